"""Webhooks (issue 31): endpoints, their deliveries and each delivery's attempts (app/automation)

Revision ID: 15e84387b9e4
Revises: f36ef6d99842
Create Date: 2026-11-28 03:54:33.948682

"""
from alembic import op
import sqlalchemy as sa

# revision identifiers, used by Alembic.
revision = '15e84387b9e4'
down_revision = 'f36ef6d99842'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('webhook_endpoint',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('url', sa.String(length=500), nullable=False),
    sa.Column('events', sa.JSON(), nullable=False),
    sa.Column('secret', sa.String(length=80), nullable=False),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('paused_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('failed_in_row', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('created_by_id', sa.Integer(), nullable=True),
    sa.Column('acting_as_id', sa.Integer(), nullable=True),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['acting_as_id'], ['user.id'], name=op.f('fk_webhook_endpoint_acting_as_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['created_by_id'], ['user.id'], name=op.f('fk_webhook_endpoint_created_by_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_webhook_endpoint_instance_id_instance'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_endpoint'))
    )
    with op.batch_alter_table('webhook_endpoint', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_webhook_endpoint_instance_id'), ['instance_id'], unique=False)

    op.create_table('webhook_delivery',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('endpoint_id', sa.Integer(), nullable=False),
    sa.Column('event', sa.String(length=40), nullable=False),
    sa.Column('payload', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('next_attempt_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['endpoint_id'], ['webhook_endpoint.id'], name=op.f('fk_webhook_delivery_endpoint_id_webhook_endpoint'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_webhook_delivery_instance_id_instance'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_delivery'))
    )
    with op.batch_alter_table('webhook_delivery', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_webhook_delivery_endpoint_id'), ['endpoint_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_webhook_delivery_instance_id'), ['instance_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_webhook_delivery_next_attempt_at'), ['next_attempt_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_webhook_delivery_status'), ['status'], unique=False)

    op.create_table('webhook_attempt',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('delivery_id', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('status_code', sa.Integer(), nullable=True),
    sa.Column('response_ms', sa.Integer(), nullable=True),
    sa.Column('error', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['delivery_id'], ['webhook_delivery.id'], name=op.f('fk_webhook_attempt_delivery_id_webhook_delivery'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_attempt'))
    )
    with op.batch_alter_table('webhook_attempt', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_webhook_attempt_delivery_id'), ['delivery_id'], unique=False)



def downgrade():
    with op.batch_alter_table('webhook_attempt', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_webhook_attempt_delivery_id'))

    op.drop_table('webhook_attempt')
    with op.batch_alter_table('webhook_delivery', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_webhook_delivery_status'))
        batch_op.drop_index(batch_op.f('ix_webhook_delivery_next_attempt_at'))
        batch_op.drop_index(batch_op.f('ix_webhook_delivery_instance_id'))
        batch_op.drop_index(batch_op.f('ix_webhook_delivery_endpoint_id'))

    op.drop_table('webhook_delivery')
    with op.batch_alter_table('webhook_endpoint', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_webhook_endpoint_instance_id'))

    op.drop_table('webhook_endpoint')
