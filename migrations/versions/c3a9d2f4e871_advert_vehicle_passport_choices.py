"""advert vehicle passport choices

Revision ID: c3a9d2f4e871
Revises: afab6a330e77
Create Date: 2026-12-06 04:45:00.000000

"""
from alembic import op
import sqlalchemy as sa

# revision identifiers, used by Alembic.
revision = 'c3a9d2f4e871'
down_revision = 'afab6a330e77'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('advert', schema=None) as batch_op:
        batch_op.add_column(sa.Column('passport', sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table('advert', schema=None) as batch_op:
        batch_op.drop_column('passport')
