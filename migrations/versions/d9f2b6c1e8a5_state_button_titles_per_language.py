"""State buttons keep their title per language, {locale tag: text} (issue 37,
app.core.localized). Each existing title goes into its instance's language's slot (the locale of
the instance's first country); the title as written stays the last fall-back.

Revision ID: d9f2b6c1e8a5
Revises: c4e8a1f7d3b2
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "d9f2b6c1e8a5"
down_revision = "c4e8a1f7d3b2"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("state_button") as batch:
        batch.add_column(sa.Column("title_texts", sa.JSON(), nullable=False, server_default="{}"))
    bind = op.get_bind()
    locales = {}
    for instance_id, locale in bind.execute(
        sa.text("SELECT instance_id, locale FROM country ORDER BY id DESC")
    ):
        locales[instance_id] = locale  # the first country's wins (read last)
    buttons = sa.table(
        "state_button",
        sa.column("id", sa.Integer),
        sa.column("title_texts", sa.JSON),
    )
    rows = bind.execute(sa.text("SELECT id, instance_id, title FROM state_button")).all()
    for button_id, instance_id, title in rows:
        locale = locales.get(instance_id)
        if locale and title:
            bind.execute(
                buttons.update()
                .where(buttons.c.id == button_id)
                .values(title_texts=json.loads(json.dumps({locale: title})))
            )


def downgrade():
    with op.batch_alter_table("state_button") as batch:
        batch.drop_column("title_texts")
