"""Stations, station groups, locations and tags keep their name per language, {locale tag: text}
(issue 37, app.core.localized.Named). Each existing name goes into its instance's language's
slot (the locale of the instance's first country); the name as written stays the last fall-back.

Revision ID: f1b7d4a9c2e6
Revises: 7c1e4a9b2d60
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "f1b7d4a9c2e6"
down_revision = "7c1e4a9b2d60"
branch_labels = None
depends_on = None

TABLES = ("station_group", "station", "location", "tag")


def upgrade():
    for name in TABLES:
        with op.batch_alter_table(name) as batch:
            batch.add_column(
                sa.Column("name_texts", sa.JSON(), nullable=False, server_default="{}")
            )
    bind = op.get_bind()
    locales = {}
    for instance_id, locale in bind.execute(
        sa.text("SELECT instance_id, locale FROM country ORDER BY id DESC")
    ):
        locales[instance_id] = locale  # the first country's wins (read last)
    for name in TABLES:
        table = sa.table(name, sa.column("id", sa.Integer), sa.column("name_texts", sa.JSON))
        rows = bind.execute(sa.text(f"SELECT id, instance_id, name FROM {name}")).all()
        for row_id, instance_id, text in rows:
            locale = locales.get(instance_id)
            if locale and text:
                bind.execute(
                    table.update()
                    .where(table.c.id == row_id)
                    .values(name_texts=json.loads(json.dumps({locale: text})))
                )


def downgrade():
    for name in reversed(TABLES):
        with op.batch_alter_table(name) as batch:
            batch.drop_column("name_texts")
