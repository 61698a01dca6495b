"""My events: the calendar feed behind a secret link (one per user, token stored hashed).

Revision ID: 1f4360efe78e
Revises: 19291054dfe4
Create Date: 2026-11-24 08:07:08.517045

"""
from alembic import op
import sqlalchemy as sa

# revision identifiers, used by Alembic.
revision = '1f4360efe78e'
down_revision = '19291054dfe4'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('calendar_feed',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_read_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['user.id'], name=op.f('fk_calendar_feed_user_id_user'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_calendar_feed')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_calendar_feed_token_hash')),
    sa.UniqueConstraint('user_id', name=op.f('uq_calendar_feed_user_id'))
    )


def downgrade():
    op.drop_table('calendar_feed')
