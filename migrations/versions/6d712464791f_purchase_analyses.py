"""Purchase analyses: dynamic fields, priorities, calculators, analyses, valuations, comments

Revision ID: 6d712464791f
Revises: 78606112ee7b
Create Date: 2026-11-24 08:03:26.975996

"""
from alembic import op
import sqlalchemy as sa

# revision identifiers, used by Alembic.
revision = '6d712464791f'
down_revision = '78606112ee7b'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('calculator',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('title', sa.String(length=100), nullable=False),
    sa.Column('rows', sa.JSON(), nullable=False),
    sa.Column('preset_description', sa.String(length=200), nullable=False),
    sa.Column('preset_percent', sa.Numeric(precision=6, scale=2), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_calculator_instance_id_instance'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_calculator'))
    )
    with op.batch_alter_table('calculator', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_calculator_instance_id'), ['instance_id'], unique=False)

    op.create_table('purchase_dynamic_field',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('title', sa.String(length=100), nullable=False),
    sa.Column('section', sa.String(length=100), nullable=False),
    sa.Column('field_type', sa.String(length=20), nullable=False),
    sa.Column('choices', sa.JSON(), nullable=False),
    sa.Column('required', sa.Boolean(), nullable=False),
    sa.Column('ordering', sa.Integer(), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_purchase_dynamic_field_instance_id_instance'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_purchase_dynamic_field'))
    )
    with op.batch_alter_table('purchase_dynamic_field', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_purchase_dynamic_field_instance_id'), ['instance_id'], unique=False)

    op.create_table('purchase_priority',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=80), nullable=False),
    sa.Column('ordering', sa.Integer(), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_purchase_priority_instance_id_instance'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_purchase_priority'))
    )
    with op.batch_alter_table('purchase_priority', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_purchase_priority_instance_id'), ['instance_id'], unique=False)

    op.create_table('purchase_analysis',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('identifier', sa.String(length=30), nullable=False),
    sa.Column('division_id', sa.Integer(), nullable=False),
    sa.Column('created_by_id', sa.Integer(), nullable=True),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('priority_id', sa.Integer(), nullable=True),
    sa.Column('regno', sa.String(length=20), nullable=False),
    sa.Column('brand', sa.String(length=60), nullable=False),
    sa.Column('model', sa.String(length=80), nullable=False),
    sa.Column('model_series', sa.String(length=80), nullable=True),
    sa.Column('model_year', sa.Integer(), nullable=True),
    sa.Column('fuel_type', sa.String(length=30), nullable=True),
    sa.Column('color', sa.String(length=40), nullable=True),
    sa.Column('mileage', sa.Integer(), nullable=True),
    sa.Column('inputs', sa.JSON(), nullable=False),
    sa.Column('valuation', sa.JSON(), nullable=False),
    sa.Column('price_predictions', sa.JSON(), nullable=False),
    sa.Column('basic', sa.JSON(), nullable=False),
    sa.Column('latest_calculation', sa.JSON(), nullable=True),
    sa.Column('decided_by_id', sa.Integer(), nullable=True),
    sa.Column('decided_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('item_id', sa.Integer(), nullable=True),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('modified_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['created_by_id'], ['user.id'], name=op.f('fk_purchase_analysis_created_by_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['decided_by_id'], ['user.id'], name=op.f('fk_purchase_analysis_decided_by_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['division_id'], ['division.id'], name=op.f('fk_purchase_analysis_division_id_division'), ondelete='RESTRICT'),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_purchase_analysis_instance_id_instance'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['item_id'], ['preparation_item.id'], name=op.f('fk_purchase_analysis_item_id_preparation_item'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['priority_id'], ['purchase_priority.id'], name=op.f('fk_purchase_analysis_priority_id_purchase_priority'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_purchase_analysis'))
    )
    with op.batch_alter_table('purchase_analysis', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_purchase_analysis_instance_id'), ['instance_id'], unique=False)
        batch_op.create_index('ix_purchase_analysis_regno', ['instance_id', 'regno'], unique=False)
        batch_op.create_index('ix_purchase_analysis_status', ['instance_id', 'status'], unique=False)

    op.create_table('purchase_comment',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('analysis_id', sa.Integer(), nullable=False),
    sa.Column('created_by_id', sa.Integer(), nullable=True),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('modified_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['analysis_id'], ['purchase_analysis.id'], name=op.f('fk_purchase_comment_analysis_id_purchase_analysis'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['created_by_id'], ['user.id'], name=op.f('fk_purchase_comment_created_by_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_purchase_comment_instance_id_instance'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_purchase_comment'))
    )
    with op.batch_alter_table('purchase_comment', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_purchase_comment_analysis_id'), ['analysis_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_purchase_comment_instance_id'), ['instance_id'], unique=False)

    op.create_table('purchase_valuation',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('analysis_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('price_in', sa.Numeric(precision=12, scale=2), nullable=True),
    sa.Column('price_out', sa.Numeric(precision=12, scale=2), nullable=True),
    sa.Column('source', sa.String(length=100), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=True),
    sa.Column('division_id', sa.Integer(), nullable=True),
    sa.Column('data', sa.JSON(), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['analysis_id'], ['purchase_analysis.id'], name=op.f('fk_purchase_valuation_analysis_id_purchase_analysis'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['division_id'], ['division.id'], name=op.f('fk_purchase_valuation_division_id_division'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_purchase_valuation_instance_id_instance'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['user.id'], name=op.f('fk_purchase_valuation_user_id_user'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_purchase_valuation'))
    )
    with op.batch_alter_table('purchase_valuation', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_purchase_valuation_analysis_id'), ['analysis_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_purchase_valuation_instance_id'), ['instance_id'], unique=False)

    op.create_table('purchase_comment_image',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('comment_id', sa.Integer(), nullable=False),
    sa.Column('file_object_id', sa.Integer(), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['comment_id'], ['purchase_comment.id'], name=op.f('fk_purchase_comment_image_comment_id_purchase_comment'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['file_object_id'], ['file_object.id'], name=op.f('fk_purchase_comment_image_file_object_id_file_object'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_purchase_comment_image_instance_id_instance'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_purchase_comment_image'))
    )
    with op.batch_alter_table('purchase_comment_image', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_purchase_comment_image_comment_id'), ['comment_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_purchase_comment_image_file_object_id'), ['file_object_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_purchase_comment_image_instance_id'), ['instance_id'], unique=False)



def downgrade():
    with op.batch_alter_table('purchase_comment_image', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_purchase_comment_image_instance_id'))
        batch_op.drop_index(batch_op.f('ix_purchase_comment_image_file_object_id'))
        batch_op.drop_index(batch_op.f('ix_purchase_comment_image_comment_id'))

    op.drop_table('purchase_comment_image')
    with op.batch_alter_table('purchase_valuation', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_purchase_valuation_instance_id'))
        batch_op.drop_index(batch_op.f('ix_purchase_valuation_analysis_id'))

    op.drop_table('purchase_valuation')
    with op.batch_alter_table('purchase_comment', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_purchase_comment_instance_id'))
        batch_op.drop_index(batch_op.f('ix_purchase_comment_analysis_id'))

    op.drop_table('purchase_comment')
    with op.batch_alter_table('purchase_analysis', schema=None) as batch_op:
        batch_op.drop_index('ix_purchase_analysis_status')
        batch_op.drop_index('ix_purchase_analysis_regno')
        batch_op.drop_index(batch_op.f('ix_purchase_analysis_instance_id'))

    op.drop_table('purchase_analysis')
    with op.batch_alter_table('purchase_priority', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_purchase_priority_instance_id'))

    op.drop_table('purchase_priority')
    with op.batch_alter_table('purchase_dynamic_field', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_purchase_dynamic_field_instance_id'))

    op.drop_table('purchase_dynamic_field')
    with op.batch_alter_table('calculator', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_calculator_instance_id'))

    op.drop_table('calculator')
