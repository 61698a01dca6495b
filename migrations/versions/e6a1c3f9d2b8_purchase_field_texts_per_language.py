"""Purchase-analysis dynamic fields keep their title and section name per language,
{locale tag: text} (issue 37, app.core.localized); the words as written stay the last fall-back.

Revision ID: e6a1c3f9d2b8
Revises: d5f9b2e8c1a7
"""

import sqlalchemy as sa
from alembic import op

revision = "e6a1c3f9d2b8"
down_revision = "d5f9b2e8c1a7"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("purchase_dynamic_field") as batch:
        batch.add_column(sa.Column("title_texts", sa.JSON(), nullable=False, server_default="{}"))
        batch.add_column(
            sa.Column("section_texts", sa.JSON(), nullable=False, server_default="{}")
        )


def downgrade():
    with op.batch_alter_table("purchase_dynamic_field") as batch:
        batch.drop_column("section_texts")
        batch.drop_column("title_texts")
