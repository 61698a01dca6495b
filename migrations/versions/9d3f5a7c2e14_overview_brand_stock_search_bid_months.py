"""The overview's brand filter and stock search, and the market statistics' bids, no longer read
what grows with the history (issue 34).

- ix_item_module_brand_lower: the brand filter compares the lower-case brand on a b-tree
  (instance, module, lower(brand), state) instead of narrowing by the trigram index, which at
  1M vehicles returned every vehicle of the brand.
- ix_item_search_stock: a trigram index of the vehicles in stock (state <> 9); the overview's
  search looks through these first, archived vehicles on demand.
- advert_bid_month: bids per seller group, buyer group and UTC month, filled from the bids
  (one INSERT ... SELECT) and kept from now on as bids are stored (app.market.bid_totals; on
  PostgreSQL also by market_place_bid, whose new body adds the count in the same statement).
- ix_advert_seller_published, _allocated, _sold: a seller's adverts published, won and sold in
  a period (the statistics' other tables; at 1M every one of the 50,000 adverts was read).

The indexes on growing tables are built CONCURRENTLY on PostgreSQL (no lock on the vehicles or
adverts while they build); the new table is created and filled in the migration's transaction
(it reads the bids, taking no lock that blocks a write).

Revision ID: 9d3f5a7c2e14
Revises: c4e8a2f6b1d3
Create Date: 2026-12-06 10:00:00

"""

import sqlalchemy as sa
from alembic import op

revision = "9d3f5a7c2e14"
down_revision = "c4e8a2f6b1d3"
branch_labels = None
depends_on = None

# (name, table, columns, options); the first only on PostgreSQL (SQLite cannot reflect an index
# on an expression; its overview reads without it).
BRAND = (
    "ix_item_module_brand_lower", "preparation_item",
    ["instance_id", "module", sa.text("lower(brand)"), "state"], {},
)
INDEXES = (
    (
        "ix_item_search_stock", "preparation_item", ["search_text"],
        {
            "postgresql_using": "gin", "postgresql_ops": {"search_text": "gin_trgm_ops"},
            "postgresql_where": sa.text("state <> 9"), "sqlite_where": sa.text("state <> 9"),
        },
    ),
    ("ix_advert_seller_published", "advert", ["seller_group_id", "published_at"], {}),
    ("ix_advert_seller_allocated", "advert", ["seller_group_id", "allocated_at"], {}),
    ("ix_advert_seller_sold", "advert", ["seller_group_id", "sold_at"], {}),
)  # fmt: skip

MONTH = {
    "postgresql": "date_trunc('month', advert_bid.created_at AT TIME ZONE 'UTC')::date",
    "sqlite": "date(advert_bid.created_at, 'start of month')",
}
BACKFILL = """
INSERT INTO advert_bid_month (instance_id, seller_group_id, buyer_group_id, month, bids)
SELECT advert.instance_id, advert.seller_group_id, advert_bid.group_id, {month}, count(*)
FROM advert_bid JOIN advert ON advert.id = advert_bid.advert_id
GROUP BY advert.instance_id, advert.seller_group_id, advert_bid.group_id, {month}
"""
# market_place_bid (migration c95894507d20) with the bid counted in its month: the locked
# advert row also gives the seller, and a statement of the same WITH adds one to the month's row.
COUNTED = """  ), counted AS (
    INSERT INTO advert_bid_month (instance_id, seller_group_id, buyer_group_id, month, bids)
    SELECT a.instance_id, a.seller_group_id, p_group_id,
           date_trunc('month', p_now AT TIME ZONE 'UTC')::date, 1
    FROM a, b
    ON CONFLICT (seller_group_id, buyer_group_id, month)
    DO UPDATE SET bids = advert_bid_month.bids + 1
  ), u AS ("""
EDITS = (
    ("           advert.currency\n", "           advert.currency, advert.instance_id, advert.seller_group_id\n"),
    ("  ), u AS (", COUNTED),
)  # fmt: skip


def _place_bid(counted: bool) -> str:
    """market_place_bid's statement as migration c95894507d20 wrote it, or with the count."""
    body = op.get_context().script.get_revision("c95894507d20").module.PLACE_BID
    for before, after in EDITS if counted else ():
        assert body.count(before) == 1, before
        body = body.replace(before, after)
    return body


def upgrade():
    dialect = op.get_bind().dialect.name
    op.create_table(
        "advert_bid_month",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("seller_group_id", sa.Integer(), nullable=False),
        sa.Column("buyer_group_id", sa.Integer(), nullable=False),
        sa.Column("month", sa.Date(), nullable=False),
        sa.Column("bids", sa.Integer(), nullable=False),
        sa.Column("instance_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["buyer_group_id"], ["instance_group.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["instance_id"], ["instance.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["seller_group_id"], ["instance_group.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("seller_group_id", "buyer_group_id", "month"),
    )
    with op.batch_alter_table("advert_bid_month", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_advert_bid_month_buyer_group_id"), ["buyer_group_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_advert_bid_month_instance_id"), ["instance_id"], unique=False
        )
    op.execute(BACKFILL.format(month=MONTH[dialect]))
    if dialect != "postgresql":
        for name, table, columns, options in INDEXES:
            op.create_index(name, table, columns, **options)
        return
    op.execute(_place_bid(counted=True))
    with op.get_context().autocommit_block():
        for name, table, columns, options in (BRAND, *INDEXES):
            op.create_index(
                name, table, columns, postgresql_concurrently=True, if_not_exists=True, **options
            )


def downgrade():
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute(_place_bid(counted=False))
        with op.get_context().autocommit_block():
            for name, table, _columns, _options in (BRAND, *INDEXES):
                op.drop_index(name, table, postgresql_concurrently=True, if_exists=True)
    else:
        for name, table, _columns, _options in INDEXES:
            op.drop_index(name, table)
    op.drop_table("advert_bid_month")
