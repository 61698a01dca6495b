"""System messages keep their description (HTML) per language too, {locale tag: html}
(issue 37, app.core.localized); the description as written stays the last fall-back.

Revision ID: d5f9b2e8c1a7
Revises: 3a4b5c6d7e80
"""

import sqlalchemy as sa
from alembic import op

revision = "d5f9b2e8c1a7"
down_revision = "3a4b5c6d7e80"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("system_message") as batch:
        batch.add_column(
            sa.Column("description_texts", sa.JSON(), nullable=False, server_default="{}")
        )


def downgrade():
    with op.batch_alter_table("system_message") as batch:
        batch.drop_column("description_texts")
