"""API tokens: scopes (the calls column, renamed), an expiry, the last use and the service user
whose rights a token acts with (app/auth/tokens.py).

A token made before this has no service user and no expiry: it is refused (app.auth.tokens
takes a token only with its service user); its administrator makes a new one.

Revision ID: f36ef6d99842
Revises: 7aafe1db8c8b
Create Date: 2026-11-28 03:31:21.369405

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "f36ef6d99842"
down_revision = "7aafe1db8c8b"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("api_user", schema=None) as batch_op:
        batch_op.alter_column("calls", new_column_name="scopes")
        batch_op.add_column(sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("service_user_id", sa.Integer(), nullable=True))
        batch_op.create_index(
            batch_op.f("ix_api_user_service_user_id"), ["service_user_id"], unique=False
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_api_user_service_user_id_user"),
            "user",
            ["service_user_id"],
            ["id"],
            ondelete="SET NULL",
        )


def downgrade():
    with op.batch_alter_table("api_user", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("fk_api_user_service_user_id_user"), type_="foreignkey"
        )
        batch_op.drop_index(batch_op.f("ix_api_user_service_user_id"))
        batch_op.drop_column("service_user_id")
        batch_op.drop_column("last_used_at")
        batch_op.drop_column("expires_at")
        batch_op.alter_column("scopes", new_column_name="calls")
