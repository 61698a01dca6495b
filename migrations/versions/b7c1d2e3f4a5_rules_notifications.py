"""Rules and in-app notifications (issue 31): the notification table, the instance's
notices version (the bell's cache) and which vehicles each rule holds for (with its warning)

Revision ID: b7c1d2e3f4a5
Revises: c49db236f004
Create Date: 2026-12-06 03:58:00

"""
from alembic import op
import sqlalchemy as sa

# revision identifiers, used by Alembic.
revision = 'b7c1d2e3f4a5'
down_revision = 'c49db236f004'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('instance', schema=None) as batch_op:
        batch_op.add_column(sa.Column('notices_version', sa.Integer(), server_default='0', nullable=False))

    op.create_table('notification',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=40), nullable=False),
    sa.Column('params', sa.JSON(), nullable=False),
    sa.Column('link', sa.String(length=300), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('read_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_notification_instance_id_instance'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['user.id'], name=op.f('fk_notification_user_id_user'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_notification'))
    )
    with op.batch_alter_table('notification', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_notification_instance_id'), ['instance_id'], unique=False)
        batch_op.create_index('ix_notification_user_read', ['user_id', 'read_at'], unique=False)

    op.create_table('item_rule_match',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('item_id', sa.Integer(), nullable=False),
    sa.Column('rule_id', sa.Integer(), nullable=False),
    sa.Column('text', sa.String(length=120), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_item_rule_match_instance_id_instance'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['item_id'], ['preparation_item.id'], name=op.f('fk_item_rule_match_item_id_preparation_item'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['rule_id'], ['setting_row.id'], name=op.f('fk_item_rule_match_rule_id_setting_row'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_item_rule_match')),
    sa.UniqueConstraint('item_id', 'rule_id', name=op.f('uq_item_rule_match_item_id'))
    )
    with op.batch_alter_table('item_rule_match', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_item_rule_match_instance_id'), ['instance_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_item_rule_match_rule_id'), ['rule_id'], unique=False)


def downgrade():
    with op.batch_alter_table('item_rule_match', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_item_rule_match_rule_id'))
        batch_op.drop_index(batch_op.f('ix_item_rule_match_instance_id'))
    op.drop_table('item_rule_match')
    with op.batch_alter_table('notification', schema=None) as batch_op:
        batch_op.drop_index('ix_notification_user_read')
        batch_op.drop_index(batch_op.f('ix_notification_instance_id'))
    op.drop_table('notification')
    with op.batch_alter_table('instance', schema=None) as batch_op:
        batch_op.drop_column('notices_version')
