"""preparation: images of vehicle comments

Revision ID: 7aafe1db8c8b
Revises: f658ddab5765
Create Date: 2026-11-28 03:59:03.507340

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '7aafe1db8c8b'
down_revision = 'f658ddab5765'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('item_comment_image',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('comment_id', sa.Integer(), nullable=False),
    sa.Column('file_object_id', sa.Integer(), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['comment_id'], ['item_comment.id'], name=op.f('fk_item_comment_image_comment_id_item_comment'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['file_object_id'], ['file_object.id'], name=op.f('fk_item_comment_image_file_object_id_file_object'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_item_comment_image_instance_id_instance'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_item_comment_image'))
    )
    with op.batch_alter_table('item_comment_image', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_item_comment_image_comment_id'), ['comment_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_item_comment_image_file_object_id'), ['file_object_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_item_comment_image_instance_id'), ['instance_id'], unique=False)



def downgrade():
    with op.batch_alter_table('item_comment_image', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_item_comment_image_instance_id'))
        batch_op.drop_index(batch_op.f('ix_item_comment_image_file_object_id'))
        batch_op.drop_index(batch_op.f('ix_item_comment_image_comment_id'))

    op.drop_table('item_comment_image')
