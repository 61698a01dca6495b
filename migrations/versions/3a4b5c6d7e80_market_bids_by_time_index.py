"""Market: bids by time (ix_advert_bid_created), so the market statistics' bids of a period
read the period's bids, not every bid (issue 34: a sequential scan of advert_bid on 100k
vehicles). Built concurrently on PostgreSQL: no lock on the bids while it builds.

Revision ID: 3a4b5c6d7e80
Revises: c3a9d2f4e871
Create Date: 2026-12-06 04:45:00

"""

from alembic import op

revision = "3a4b5c6d7e80"
down_revision = "c3a9d2f4e871"
branch_labels = None
depends_on = None


def upgrade():
    if op.get_bind().dialect.name == "postgresql":
        with op.get_context().autocommit_block():
            op.create_index(
                "ix_advert_bid_created", "advert_bid", ["created_at"],
                postgresql_concurrently=True, if_not_exists=True,
            )  # fmt: skip
    else:
        op.create_index("ix_advert_bid_created", "advert_bid", ["created_at"])


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        with op.get_context().autocommit_block():
            op.drop_index(
                "ix_advert_bid_created", "advert_bid",
                postgresql_concurrently=True, if_exists=True,
            )  # fmt: skip
    else:
        op.drop_index("ix_advert_bid_created", "advert_bid")
