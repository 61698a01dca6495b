"""quick tests: storages, informations, storage containers

Revision ID: 181c753f9f43
Revises: 35ecadc6b5da
Create Date: 2026-11-24 08:09:00.873086

"""
from alembic import op
import sqlalchemy as sa

# revision identifiers, used by Alembic.
revision = '181c753f9f43'
down_revision = '35ecadc6b5da'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('information_group',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('title', sa.String(length=100), nullable=False),
    sa.Column('ordering', sa.Integer(), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_information_group_instance_id_instance'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_information_group'))
    )
    with op.batch_alter_table('information_group', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_information_group_instance_id'), ['instance_id'], unique=False)

    op.create_table('storage',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('title', sa.String(length=100), nullable=False),
    sa.Column('group', sa.String(length=100), nullable=True),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('modified_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_storage_instance_id_instance'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_storage'))
    )
    with op.batch_alter_table('storage', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_storage_instance_id'), ['instance_id'], unique=False)

    op.create_table('information',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('title', sa.String(length=100), nullable=False),
    sa.Column('type', sa.String(length=20), nullable=False),
    sa.Column('choices', sa.JSON(), nullable=False),
    sa.Column('ordering', sa.Integer(), nullable=False),
    sa.Column('information_group_id', sa.Integer(), nullable=True),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['information_group_id'], ['information_group.id'], name=op.f('fk_information_information_group_id_information_group'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_information_instance_id_instance'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_information'))
    )
    with op.batch_alter_table('information', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_information_information_group_id'), ['information_group_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_information_instance_id'), ['instance_id'], unique=False)

    op.create_table('storage_group',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('storage_id', sa.Integer(), nullable=False),
    sa.Column('parent_id', sa.Integer(), nullable=True),
    sa.Column('title', sa.String(length=100), nullable=False),
    sa.Column('ordering', sa.Integer(), nullable=False),
    sa.Column('image_support', sa.Boolean(), nullable=False),
    sa.Column('show_title', sa.Boolean(), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_storage_group_instance_id_instance'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['parent_id'], ['storage_group.id'], name=op.f('fk_storage_group_parent_id_storage_group'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['storage_id'], ['storage.id'], name=op.f('fk_storage_group_storage_id_storage'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_storage_group'))
    )
    with op.batch_alter_table('storage_group', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_storage_group_instance_id'), ['instance_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_storage_group_parent_id'), ['parent_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_storage_group_storage_id'), ['storage_id'], unique=False)

    op.create_table('storage_group_information',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('storage_group_id', sa.Integer(), nullable=False),
    sa.Column('information_id', sa.Integer(), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['information_id'], ['information.id'], name=op.f('fk_storage_group_information_information_id_information'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_storage_group_information_instance_id_instance'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['storage_group_id'], ['storage_group.id'], name=op.f('fk_storage_group_information_storage_group_id_storage_group'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_storage_group_information'))
    )
    with op.batch_alter_table('storage_group_information', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_storage_group_information_information_id'), ['information_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_storage_group_information_instance_id'), ['instance_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_storage_group_information_storage_group_id'), ['storage_group_id'], unique=False)

    op.create_table('storage_container',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=32), nullable=False),
    sa.Column('identifier', sa.String(length=20), nullable=False),
    sa.Column('storage_id', sa.Integer(), nullable=False),
    sa.Column('division_id', sa.Integer(), nullable=False),
    sa.Column('item_id', sa.Integer(), nullable=True),
    sa.Column('user_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('reported_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['division_id'], ['division.id'], name=op.f('fk_storage_container_division_id_division'), ondelete='RESTRICT'),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_storage_container_instance_id_instance'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['item_id'], ['preparation_item.id'], name=op.f('fk_storage_container_item_id_preparation_item'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['storage_id'], ['storage.id'], name=op.f('fk_storage_container_storage_id_storage'), ondelete='RESTRICT'),
    sa.ForeignKeyConstraint(['user_id'], ['user.id'], name=op.f('fk_storage_container_user_id_user'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_storage_container')),
    sa.UniqueConstraint('uuid', name=op.f('uq_storage_container_uuid'))
    )
    with op.batch_alter_table('storage_container', schema=None) as batch_op:
        batch_op.create_index('ix_storage_container_instance_created', ['instance_id', 'created_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_storage_container_instance_id'), ['instance_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_storage_container_item_id'), ['item_id'], unique=False)

    op.create_table('storage_container_value',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('container_id', sa.Integer(), nullable=False),
    sa.Column('group_id', sa.Integer(), nullable=False),
    sa.Column('information_id', sa.Integer(), nullable=True),
    sa.Column('value', sa.Text(), nullable=True),
    sa.Column('file_object_id', sa.Integer(), nullable=True),
    sa.Column('description', sa.String(length=200), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('modified_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['container_id'], ['storage_container.id'], name=op.f('fk_storage_container_value_container_id_storage_container'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['file_object_id'], ['file_object.id'], name=op.f('fk_storage_container_value_file_object_id_file_object'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['group_id'], ['storage_group.id'], name=op.f('fk_storage_container_value_group_id_storage_group'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['information_id'], ['information.id'], name=op.f('fk_storage_container_value_information_id_information'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_storage_container_value_instance_id_instance'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_storage_container_value'))
    )
    with op.batch_alter_table('storage_container_value', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_storage_container_value_container_id'), ['container_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_storage_container_value_file_object_id'), ['file_object_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_storage_container_value_instance_id'), ['instance_id'], unique=False)
        batch_op.create_index('uq_container_value_field', ['container_id', 'group_id', 'information_id'], unique=True, postgresql_where=sa.text('information_id IS NOT NULL'), sqlite_where=sa.text('information_id IS NOT NULL'))



def downgrade():
    with op.batch_alter_table('storage_container_value', schema=None) as batch_op:
        batch_op.drop_index('uq_container_value_field', postgresql_where=sa.text('information_id IS NOT NULL'), sqlite_where=sa.text('information_id IS NOT NULL'))
        batch_op.drop_index(batch_op.f('ix_storage_container_value_instance_id'))
        batch_op.drop_index(batch_op.f('ix_storage_container_value_file_object_id'))
        batch_op.drop_index(batch_op.f('ix_storage_container_value_container_id'))

    op.drop_table('storage_container_value')
    with op.batch_alter_table('storage_container', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_storage_container_item_id'))
        batch_op.drop_index(batch_op.f('ix_storage_container_instance_id'))
        batch_op.drop_index('ix_storage_container_instance_created')

    op.drop_table('storage_container')
    with op.batch_alter_table('storage_group_information', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_storage_group_information_storage_group_id'))
        batch_op.drop_index(batch_op.f('ix_storage_group_information_instance_id'))
        batch_op.drop_index(batch_op.f('ix_storage_group_information_information_id'))

    op.drop_table('storage_group_information')
    with op.batch_alter_table('storage_group', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_storage_group_storage_id'))
        batch_op.drop_index(batch_op.f('ix_storage_group_parent_id'))
        batch_op.drop_index(batch_op.f('ix_storage_group_instance_id'))

    op.drop_table('storage_group')
    with op.batch_alter_table('information', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_information_instance_id'))
        batch_op.drop_index(batch_op.f('ix_information_information_group_id'))

    op.drop_table('information')
    with op.batch_alter_table('storage', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_storage_instance_id'))

    op.drop_table('storage')
    with op.batch_alter_table('information_group', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_information_group_instance_id'))

    op.drop_table('information_group')
