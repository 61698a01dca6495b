"""Specification values of vehicles, their last service and service due, check-up tasks on
station tasks (issue 30). preparation_item only gains columns and an index (a plain ADD COLUMN
on SQLite too: its generated search_text forbids a rebuild; the default is the string "0",
which both databases read as false).

Revision ID: a9076f0146b5
Revises: a1d7e0c29f31
Create Date: 2026-12-06 03:38:20.153089

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'a9076f0146b5'
down_revision = 'a1d7e0c29f31'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('vehicle_property_value',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('item_id', sa.Integer(), nullable=False),
    sa.Column('property_id', sa.Integer(), nullable=False),
    sa.Column('value', sa.String(length=200), nullable=False),
    sa.Column('instance_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['instance_id'], ['instance.id'], name=op.f('fk_vehicle_property_value_instance_id_instance'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['item_id'], ['preparation_item.id'], name=op.f('fk_vehicle_property_value_item_id_preparation_item'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['property_id'], ['global_setting_row.id'], name=op.f('fk_vehicle_property_value_property_id_global_setting_row'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_vehicle_property_value')),
    sa.UniqueConstraint('item_id', 'property_id', name=op.f('uq_vehicle_property_value_item_id'))
    )
    with op.batch_alter_table('vehicle_property_value', schema=None) as batch_op:
        batch_op.create_index('ix_property_value_property', ['property_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_vehicle_property_value_instance_id'), ['instance_id'], unique=False)

    with op.batch_alter_table('item_station_task', schema=None) as batch_op:
        batch_op.add_column(sa.Column('checkup_task_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key(batch_op.f('fk_item_station_task_checkup_task_id_global_setting_row'), 'global_setting_row', ['checkup_task_id'], ['id'], ondelete='SET NULL')

    with op.batch_alter_table('preparation_item', schema=None) as batch_op:
        batch_op.add_column(sa.Column('last_service_on', sa.Date(), nullable=True))
        batch_op.add_column(sa.Column('last_service_mileage', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('service_due', sa.Boolean(), server_default="0", nullable=False))
        batch_op.create_index('ix_item_module_service_due', ['instance_id', 'module', 'service_due'], unique=False)



SEARCH_TEXT = (
    "lower(regno || ' ' || coalesce(vin, '') || ' ' || brand || ' ' || model || ' ' || "
    "coalesce(model_series, ''))"
)


def downgrade():
    # SQLite drops a column by rebuilding the table, which cannot copy the generated search_text:
    # the rebuild leaves it out and a second one adds it back (as e15fa28ae2d8 does).
    sqlite = op.get_bind().dialect.name == "sqlite"
    with op.batch_alter_table("preparation_item", schema=None) as batch_op:
        if sqlite:
            batch_op.drop_index("ix_item_search_text")
            batch_op.drop_column("search_text")
        batch_op.drop_index("ix_item_module_service_due")
        batch_op.drop_column("service_due")
        batch_op.drop_column("last_service_mileage")
        batch_op.drop_column("last_service_on")
    if sqlite:
        with op.batch_alter_table("preparation_item", recreate="always") as batch_op:
            batch_op.add_column(
                sa.Column(
                    "search_text", sa.String(length=300), sa.Computed(SEARCH_TEXT, persisted=True)
                )
            )
            batch_op.create_index("ix_item_search_text", ["search_text"], unique=False)

    with op.batch_alter_table("item_station_task", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("fk_item_station_task_checkup_task_id_global_setting_row"),
            type_="foreignkey",
        )
        batch_op.drop_column("checkup_task_id")

    with op.batch_alter_table("vehicle_property_value", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_vehicle_property_value_instance_id"))
        batch_op.drop_index("ix_property_value_property")

    op.drop_table("vehicle_property_value")
