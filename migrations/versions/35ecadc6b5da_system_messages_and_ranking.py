"""system messages (with viewed records) and the ranking: seasons, tiers, points

Revision ID: 35ecadc6b5da
Revises: 1f4360efe78e
Create Date: 2026-11-24 08:03:28.545528

"""
from alembic import op
import sqlalchemy as sa

# revision identifiers, used by Alembic.
revision = '35ecadc6b5da'
down_revision = '1f4360efe78e'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('ranking_season',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('identifier', sa.String(length=50), nullable=False),
    sa.Column('start_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('end_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_ranking_season')),
    sa.UniqueConstraint('identifier', name=op.f('uq_ranking_season_identifier'))
    )
    op.create_table('ranking_tier',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=50), nullable=False),
    sa.Column('min_points', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_ranking_tier')),
    sa.UniqueConstraint('min_points', name=op.f('uq_ranking_tier_min_points')),
    sa.UniqueConstraint('name', name=op.f('uq_ranking_tier_name'))
    )
    op.create_table('system_message',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('type', sa.String(length=30), nullable=False),
    sa.Column('message', sa.String(length=300), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('ended_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('persistent', sa.Boolean(), nullable=False),
    sa.Column('show_as', sa.String(length=10), nullable=False),
    sa.Column('audience', sa.String(length=10), nullable=False),
    sa.Column('audience_instance_id', sa.Integer(), nullable=True),
    sa.Column('audience_role', sa.String(length=100), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('modified_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('created_by_id', sa.Integer(), nullable=True),
    sa.Column('modified_by_id', sa.Integer(), nullable=True),
    sa.CheckConstraint("audience IN ('all', 'instance', 'role')", name=op.f('ck_system_message_audience')),
    sa.CheckConstraint("show_as IN ('modal', 'alert')", name=op.f('ck_system_message_show_as')),
    sa.ForeignKeyConstraint(['audience_instance_id'], ['instance.id'], name=op.f('fk_system_message_audience_instance_id_instance'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['created_by_id'], ['user.id'], name=op.f('fk_system_message_created_by_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['modified_by_id'], ['user.id'], name=op.f('fk_system_message_modified_by_id_user'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_system_message'))
    )
    with op.batch_alter_table('system_message', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_system_message_audience_instance_id'), ['audience_instance_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_system_message_started_at'), ['started_at'], unique=False)

    op.create_table('system_message_view',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('message_id', sa.Integer(), nullable=False),
    sa.Column('message_modified_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('viewed_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['message_id'], ['system_message.id'], name=op.f('fk_system_message_view_message_id_system_message'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['user.id'], name=op.f('fk_system_message_view_user_id_user'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_system_message_view')),
    sa.UniqueConstraint('user_id', 'message_id', name=op.f('uq_system_message_view_user_id'))
    )
    with op.batch_alter_table('system_message_view', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_system_message_view_message_id'), ['message_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_system_message_view_user_id'), ['user_id'], unique=False)

    op.create_table('ranking_points',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('season_id', sa.Integer(), nullable=False),
    sa.Column('division_id', sa.Integer(), nullable=False),
    sa.Column('tier_id', sa.Integer(), nullable=True),
    sa.Column('points', sa.Integer(), nullable=False),
    sa.Column('new_points', sa.Integer(), nullable=False),
    sa.Column('progress', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('overall_position', sa.Integer(), nullable=False),
    sa.Column('computed_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['division_id'], ['division.id'], name=op.f('fk_ranking_points_division_id_division'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_ranking_points_instance_id_instance'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['season_id'], ['ranking_season.id'], name=op.f('fk_ranking_points_season_id_ranking_season'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['tier_id'], ['ranking_tier.id'], name=op.f('fk_ranking_points_tier_id_ranking_tier'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_ranking_points')),
    sa.UniqueConstraint('season_id', 'division_id', name=op.f('uq_ranking_points_season_id'))
    )
    with op.batch_alter_table('ranking_points', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_ranking_points_division_id'), ['division_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_ranking_points_instance_id'), ['instance_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_ranking_points_season_id'), ['season_id'], unique=False)



def downgrade():
    with op.batch_alter_table('ranking_points', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_ranking_points_season_id'))
        batch_op.drop_index(batch_op.f('ix_ranking_points_instance_id'))
        batch_op.drop_index(batch_op.f('ix_ranking_points_division_id'))

    op.drop_table('ranking_points')
    with op.batch_alter_table('system_message_view', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_system_message_view_user_id'))
        batch_op.drop_index(batch_op.f('ix_system_message_view_message_id'))

    op.drop_table('system_message_view')
    with op.batch_alter_table('system_message', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_system_message_started_at'))
        batch_op.drop_index(batch_op.f('ix_system_message_audience_instance_id'))

    op.drop_table('system_message')
    op.drop_table('ranking_tier')
    op.drop_table('ranking_season')
