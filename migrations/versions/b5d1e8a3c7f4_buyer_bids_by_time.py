"""A buyer's bids by time (issue 34): ix_advert_bid_group_created (group_id, created_at) in place
of ix_advert_bid_group_id, so that a buyer's market statistics read the buyer's bids of the
year through the index instead of every bid the buyer ever placed (ten years of a group).

The new index serves everything the old one did (its first column is the group: the buyer's
bids, the cascade when a group is deleted). Both built and dropped CONCURRENTLY on PostgreSQL:
no lock on the bids while it builds.

Revision ID: b5d1e8a3c7f4
Revises: d7a3c9e5f2b8
"""

from alembic import op

revision = "b5d1e8a3c7f4"
down_revision = "d7a3c9e5f2b8"
branch_labels = None
depends_on = None


def _swap(create: tuple[str, list[str]], drop: str) -> None:
    """Build one index on advert_bid and drop the other (concurrently on PostgreSQL)."""
    name, columns = create
    if op.get_bind().dialect.name != "postgresql":
        op.create_index(name, "advert_bid", columns)
        op.drop_index(drop, "advert_bid")
        return
    with op.get_context().autocommit_block():
        op.create_index(
            name, "advert_bid", columns, postgresql_concurrently=True, if_not_exists=True
        )
        op.drop_index(drop, "advert_bid", postgresql_concurrently=True, if_exists=True)


def upgrade():
    _swap(("ix_advert_bid_group_created", ["group_id", "created_at"]), "ix_advert_bid_group_id")


def downgrade():
    _swap(("ix_advert_bid_group_id", ["group_id"]), "ix_advert_bid_group_created")
