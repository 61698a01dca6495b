"""Dashboard widgets (per user and dashboard) and the goals admins set for them

Revision ID: 78606112ee7b
Revises: 5ffc57e87ffc
Create Date: 2026-11-24 08:05:41.522143

"""
from alembic import op
import sqlalchemy as sa

# revision identifiers, used by Alembic.
revision = '78606112ee7b'
down_revision = '5ffc57e87ffc'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('dashboard_widget',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('dashboard', sa.String(length=10), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('type', sa.String(length=20), nullable=False),
    sa.Column('title', sa.String(length=100), nullable=False),
    sa.Column('h', sa.Integer(), nullable=False),
    sa.Column('w', sa.Integer(), nullable=False),
    sa.Column('auto_update', sa.Integer(), nullable=False),
    sa.Column('options', sa.JSON(), nullable=False),
    sa.Column('config', sa.JSON(), nullable=False),
    sa.Column('item_filters', sa.JSON(), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('modified_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_dashboard_widget_instance_id_instance'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['user.id'], name=op.f('fk_dashboard_widget_user_id_user'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_dashboard_widget'))
    )
    with op.batch_alter_table('dashboard_widget', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_dashboard_widget_instance_id'), ['instance_id'], unique=False)
        batch_op.create_index('ix_widget_user_dashboard', ['user_id', 'dashboard', 'position'], unique=False)

    op.create_table('goal',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=40), nullable=False),
    sa.Column('goal_name', sa.String(length=100), nullable=False),
    sa.Column('goal_value', sa.Float(), nullable=False),
    sa.Column('acceptance', sa.Float(), nullable=True),
    sa.Column('module', sa.String(length=20), nullable=False),
    sa.Column('time_period', sa.String(length=10), nullable=False),
    sa.Column('division_id', sa.Integer(), nullable=True),
    sa.Column('region_id', sa.Integer(), nullable=True),
    sa.Column('country_id', sa.Integer(), nullable=True),
    sa.Column('translate', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['country_id'], ['country.id'], name=op.f('fk_goal_country_id_country'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['division_id'], ['division.id'], name=op.f('fk_goal_division_id_division'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_goal_instance_id_instance'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['region_id'], ['region.id'], name=op.f('fk_goal_region_id_region'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_goal'))
    )
    with op.batch_alter_table('goal', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_goal_instance_id'), ['instance_id'], unique=False)
        batch_op.create_index('ix_goal_lookup', ['instance_id', 'name', 'module'], unique=False)

    with op.batch_alter_table('item_state_event', schema=None) as batch_op:
        batch_op.create_index(
            'ix_state_event_instance_to_state_created',
            ['instance_id', 'to_state', 'created_at'],
            unique=False,
        )



def downgrade():
    with op.batch_alter_table('item_state_event', schema=None) as batch_op:
        batch_op.drop_index('ix_state_event_instance_to_state_created')

    with op.batch_alter_table('goal', schema=None) as batch_op:
        batch_op.drop_index('ix_goal_lookup')
        batch_op.drop_index(batch_op.f('ix_goal_instance_id'))

    op.drop_table('goal')
    with op.batch_alter_table('dashboard_widget', schema=None) as batch_op:
        batch_op.drop_index('ix_widget_user_dashboard')
        batch_op.drop_index(batch_op.f('ix_dashboard_widget_instance_id'))

    op.drop_table('dashboard_widget')
