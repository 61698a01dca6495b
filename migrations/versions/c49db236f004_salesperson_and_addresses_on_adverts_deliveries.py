"""A sold vehicle's salesperson; where an advert's car stands and a delivery's address

preparation_item.salesperson_id: the seller user (setting_row of kind "seller") who sold it.
advert.address_id and booking.address_id: one of the division's addresses (address).
Nullable columns, their foreign keys and the salesperson's index.

SQLite adds a foreign key only by rebuilding the table, and a rebuild cannot copy the
generated search_text of preparation_item: as e15fa28ae2d8 does, the first rebuild leaves it
out and the second adds it back.

Revision ID: c49db236f004
Revises: a9076f0146b5
Create Date: 2026-12-06 03:38:12.095600
"""

import sqlalchemy as sa
from alembic import op

revision = "c49db236f004"
down_revision = "a9076f0146b5"
branch_labels = None
depends_on = None

SEARCH_TEXT = (
    "lower(regno || ' ' || coalesce(vin, '') || ' ' || brand || ' ' || model || ' ' || "
    "coalesce(model_series, ''))"
)
SALESPERSON_FK = "fk_preparation_item_salesperson_id_setting_row"


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
    for table in ("advert", "booking"):
        with op.batch_alter_table(table) as batch_op:
            batch_op.add_column(sa.Column("address_id", sa.Integer(), nullable=True))
            batch_op.create_foreign_key(
                f"fk_{table}_address_id_address", "address", ["address_id"], ["id"],
                ondelete="SET NULL",
            )  # fmt: skip
    sqlite = _sqlite()
    with op.batch_alter_table("preparation_item") as batch_op:
        if sqlite:
            _without_search_text(batch_op)
        batch_op.add_column(sa.Column("salesperson_id", sa.Integer(), nullable=True))
        batch_op.create_index("ix_item_salesperson", ["salesperson_id"], unique=False)
        batch_op.create_foreign_key(
            SALESPERSON_FK, "setting_row", ["salesperson_id"], ["id"], ondelete="SET NULL"
        )
    if sqlite:
        _add_search_text()


def downgrade():
    sqlite = _sqlite()
    with op.batch_alter_table("preparation_item") as batch_op:
        if sqlite:
            _without_search_text(batch_op)
        batch_op.drop_constraint(SALESPERSON_FK, type_="foreignkey")
        batch_op.drop_index("ix_item_salesperson")
        batch_op.drop_column("salesperson_id")
    if sqlite:
        _add_search_text()
    for table in ("booking", "advert"):
        with op.batch_alter_table(table) as batch_op:
            batch_op.drop_constraint(f"fk_{table}_address_id_address", type_="foreignkey")
            batch_op.drop_column("address_id")
