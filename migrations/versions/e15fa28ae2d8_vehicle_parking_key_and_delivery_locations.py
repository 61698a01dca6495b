"""preparation: a vehicle's parking, key and delivery location

Three nullable columns (no table rewrite on PostgreSQL), their indexes for the overview's
filters and the admin screens' "in use by N vehicles", and their foreign keys.

SQLite adds a foreign key only by rebuilding the table, and a rebuild cannot copy the
generated search_text: the first rebuild leaves it out, the second adds it back (computed
from the copied columns), as its own migration (500b2e591c94) did.

Revision ID: e15fa28ae2d8
Revises: c99ecd3131c9
Create Date: 2026-11-28 03:27:43.941970

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "e15fa28ae2d8"
down_revision = "c99ecd3131c9"
branch_labels = None
depends_on = None

COLUMNS = {
    "parking_location_id": "ix_item_parking_location",
    "key_location_id": "ix_item_key_location",
    "delivery_location_id": "ix_item_delivery_location",
}
SEARCH_TEXT = (
    "lower(regno || ' ' || coalesce(vin, '') || ' ' || brand || ' ' || model || ' ' || "
    "coalesce(model_series, ''))"
)


def _fk(column: str) -> str:
    return f"fk_preparation_item_{column}_location"


def _sqlite() -> bool:
    return op.get_bind().dialect.name == "sqlite"


def _without_search_text(batch_op) -> None:
    batch_op.drop_index("ix_item_search_text")
    batch_op.drop_column("search_text")


def _add_search_text() -> None:
    with op.batch_alter_table("preparation_item", recreate="always") as batch_op:
        batch_op.add_column(
            sa.Column(
                "search_text", sa.String(length=300), sa.Computed(SEARCH_TEXT, persisted=True)
            )
        )
        batch_op.create_index("ix_item_search_text", ["search_text"], unique=False)


def upgrade():
    sqlite = _sqlite()
    with op.batch_alter_table("preparation_item") as batch_op:
        if sqlite:
            _without_search_text(batch_op)
        for column, index in COLUMNS.items():
            batch_op.add_column(sa.Column(column, sa.Integer(), nullable=True))
            batch_op.create_index(index, [column], unique=False)
            batch_op.create_foreign_key(
                _fk(column), "location", [column], ["id"], ondelete="SET NULL"
            )
    if sqlite:
        _add_search_text()


def downgrade():
    sqlite = _sqlite()
    with op.batch_alter_table("preparation_item") as batch_op:
        if sqlite:
            _without_search_text(batch_op)
        for column, index in COLUMNS.items():
            batch_op.drop_constraint(_fk(column), type_="foreignkey")
            batch_op.drop_index(index)
            batch_op.drop_column(column)
    if sqlite:
        _add_search_text()
