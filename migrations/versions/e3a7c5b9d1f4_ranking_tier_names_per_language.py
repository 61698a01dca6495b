"""Ranking tiers keep their name per language, {locale tag: text} (issue 37,
app.core.localized); tiers are the platform's, so the name as written stays the fall-back.

Revision ID: e3a7c5b9d1f4
Revises: d9f2b6c1e8a5
"""

import sqlalchemy as sa
from alembic import op

revision = "e3a7c5b9d1f4"
down_revision = "d9f2b6c1e8a5"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("ranking_tier") as batch:
        batch.add_column(sa.Column("name_texts", sa.JSON(), nullable=False, server_default="{}"))


def downgrade():
    with op.batch_alter_table("ranking_tier") as batch:
        batch.drop_column("name_texts")
