"""roles belong to a membership: user_instance carries the roles, modules and all-divisions flag
that instance granted; the user keeps only the platform's roles

Revision ID: 7c1e5a9d2b40
Revises: d41e7a2b9c05
Create Date: 2026-11-28 00:20:00

Nobody gains or loses a right by it: each membership gets the roles (all but the platform's),
modules and all-divisions flag the person held everywhere before; the platform's roles
(ROLE_GLOBAL_* and the platform staff's) stay on the person as platform_roles. The downgrade puts the union back.
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "7c1e5a9d2b40"
down_revision = "d41e7a2b9c05"
branch_labels = None
depends_on = None

PLATFORM_PREFIX = "ROLE_GLOBAL_"
PLATFORM_STAFF = {"ROLE_SUPPORT_ADMIN", "ROLE_ONBOARDING_ADMIN", "ROLE_SALES_ADMIN", "ROLE_DEVELOPER_ADMIN"}


def _platform(role: str) -> bool:
    return role.startswith(PLATFORM_PREFIX) or role in PLATFORM_STAFF


def _load(value):
    if value is None:
        return []
    return json.loads(value) if isinstance(value, str) else value


def upgrade():
    with op.batch_alter_table("user_instance", schema=None) as batch_op:
        batch_op.add_column(sa.Column("roles", sa.JSON(), nullable=False, server_default="[]"))
        batch_op.add_column(sa.Column("modules", sa.JSON(), nullable=False, server_default="[]"))
        batch_op.add_column(
            sa.Column("all_divisions", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("platform_roles", sa.JSON(), nullable=False, server_default="[]")
        )

    conn = op.get_bind()
    people = conn.execute(sa.text('SELECT id, roles, modules, all_divisions FROM "user"')).all()
    for user_id, roles, modules, all_divisions in people:
        roles = _load(roles)
        platform = sorted(r for r in roles if _platform(r))
        granted = sorted(r for r in roles if not _platform(r))
        conn.execute(
            sa.text('UPDATE "user" SET platform_roles = :p WHERE id = :id'),
            {"p": json.dumps(platform), "id": user_id},
        )
        conn.execute(
            sa.text(
                "UPDATE user_instance SET roles = :r, modules = :m, all_divisions = :a"
                " WHERE user_id = :id"
            ),
            {
                "r": json.dumps(granted),
                "m": json.dumps(_load(modules)),
                "a": bool(all_divisions),
                "id": user_id,
            },
        )

    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.drop_column("roles")
        batch_op.drop_column("modules")
        batch_op.drop_column("all_divisions")
    with op.batch_alter_table("user_instance", schema=None) as batch_op:
        batch_op.alter_column("roles", server_default=None)
        batch_op.alter_column("modules", server_default=None)
        batch_op.alter_column("all_divisions", server_default=None)
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.alter_column("platform_roles", server_default=None)


def downgrade():
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.add_column(sa.Column("roles", sa.JSON(), nullable=False, server_default="[]"))
        batch_op.add_column(sa.Column("modules", sa.JSON(), nullable=False, server_default="[]"))
        batch_op.add_column(
            sa.Column("all_divisions", sa.Boolean(), nullable=False, server_default=sa.false())
        )

    conn = op.get_bind()
    people = conn.execute(sa.text('SELECT id, platform_roles FROM "user"')).all()
    for user_id, platform in people:
        roles, modules, everywhere = set(_load(platform)), [], False
        rows = conn.execute(
            sa.text("SELECT roles, modules, all_divisions FROM user_instance WHERE user_id = :id"),
            {"id": user_id},
        ).all()
        for granted, granted_modules, all_divisions in rows:
            roles.update(_load(granted))
            modules += [m for m in _load(granted_modules) if m not in modules]
            everywhere = everywhere or bool(all_divisions)
        conn.execute(
            sa.text('UPDATE "user" SET roles = :r, modules = :m, all_divisions = :a WHERE id = :id'),
            {"r": json.dumps(sorted(roles)), "m": json.dumps(modules), "a": everywhere, "id": user_id},
        )

    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.alter_column("roles", server_default=None)
        batch_op.alter_column("modules", server_default=None)
        batch_op.alter_column("all_divisions", server_default=None)
        batch_op.drop_column("platform_roles")
    with op.batch_alter_table("user_instance", schema=None) as batch_op:
        batch_op.drop_column("all_divisions")
        batch_op.drop_column("modules")
        batch_op.drop_column("roles")
