"""Every reference to a vehicle is indexed (issue 34): the hub and central vehicle of a vehicle,
custom list rows and seen marks, and purchase analyses. Without these a vehicle's delete
(ON DELETE SET NULL / CASCADE) read the whole of preparation_item twice and purchase_analysis
once per deleted vehicle: removing 10,000 imported vehicles of a 10k data set took minutes, on
1M hours. Built concurrently on PostgreSQL: no lock on the tables while they build.

Revision ID: 5e2b8d4f1a93
Revises: f3b7c2d9a4e1
Create Date: 2026-12-06 08:10:00

"""

from alembic import op

revision = "5e2b8d4f1a93"
down_revision = "f3b7c2d9a4e1"
branch_labels = None
depends_on = None

INDEXES = (
    ("ix_item_hub_item", "preparation_item", ["hub_item_id"]),
    ("ix_item_central_item", "preparation_item", ["central_item_id"]),
    ("ix_custom_list_item_item", "custom_list_item", ["item_id"]),
    ("ix_custom_list_seen_item", "custom_list_seen", ["item_id"]),
    ("ix_purchase_analysis_item", "purchase_analysis", ["item_id"]),
)


def upgrade():
    if op.get_bind().dialect.name == "postgresql":
        with op.get_context().autocommit_block():
            for name, table, columns in INDEXES:
                op.create_index(
                    name, table, columns, postgresql_concurrently=True, if_not_exists=True
                )
    else:
        for name, table, columns in INDEXES:
            op.create_index(name, table, columns)


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        with op.get_context().autocommit_block():
            for name, table, _columns in INDEXES:
                op.drop_index(name, table, postgresql_concurrently=True, if_exists=True)
    else:
        for name, table, _columns in INDEXES:
            op.drop_index(name, table)
