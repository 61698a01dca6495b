"""System messages keep their text per language, {locale tag: text} (issue 37,
app.core.localized); the message as written stays the last fall-back.

Revision ID: c4e8a1f7d3b2
Revises: b7c3d9e1f2a4
"""

import sqlalchemy as sa
from alembic import op

revision = "c4e8a1f7d3b2"
down_revision = "b7c3d9e1f2a4"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("system_message") as batch:
        batch.add_column(sa.Column("message_texts", sa.JSON(), nullable=False, server_default="{}"))


def downgrade():
    with op.batch_alter_table("system_message") as batch:
        batch.drop_column("message_texts")
