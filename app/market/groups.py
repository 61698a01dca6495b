"""Who trades with whom: the signed-in instance's group and its market partners."""

from sqlalchemy import select

from app.extensions import db
from app.market.models import InstanceGroup, MarketPartner


def current_group() -> InstanceGroup | None:
    """The active instance's market group (an instance has at most one; the first counts)."""
    return db.session.scalars(select(InstanceGroup).order_by(InstanceGroup.id)).first()


def partner_seller_ids(buyer_group_id: int):
    """Subquery: the seller groups whose adverts this buyer group sees and bids on."""
    return select(MarketPartner.seller_group_id).where(
        MarketPartner.buyer_group_id == buyer_group_id
    )


def partner_buyers(seller_group_id: int) -> list[InstanceGroup]:
    """The buyer groups that accepted this seller's invites, by name (across instances)."""
    return list(
        db.session.scalars(
            select(InstanceGroup)
            .join(MarketPartner, MarketPartner.buyer_group_id == InstanceGroup.id)
            .where(MarketPartner.seller_group_id == seller_group_id)
            .order_by(InstanceGroup.name)
            .execution_options(all_instances=True)
        )
    )


def add_partner(seller_group_id: int, buyer_group_id: int) -> None:
    """Let a buyer group trade with a seller group (no-op when it already does)."""
    exists = db.session.scalar(
        select(MarketPartner.id).where(
            MarketPartner.seller_group_id == seller_group_id,
            MarketPartner.buyer_group_id == buyer_group_id,
        )
    )
    if exists is None:
        db.session.add(
            MarketPartner(seller_group_id=seller_group_id, buyer_group_id=buyer_group_id)
        )
        db.session.flush()
