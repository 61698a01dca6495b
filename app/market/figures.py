"""The market's key figures on the dashboard: a seller's or a buyer's adverts by where they
stand, and the open adverts whose bidding ends first.

Every figure is one grouped query over the group's adverts and bids, never one per advert or
per company, so a page costs the same number of queries however much the market grows. A
seller's adverts and bids live in the seller's instance; a buyer's figures read across
instances (`all_instances`), always narrowed by the buyer's own group or its partner sellers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, case, exists, func, or_, select

from app.core.models import utcnow
from app.extensions import db
from app.market.groups import partner_seller_ids
from app.market.models import (
    Advert,
    AdvertBid,
    InstanceGroup,
    MarketPartner,
    VehicleRequest,
)

ENDING_SOON = 5


def count_where(condition):
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def _open(now: datetime):
    """An advert taking bids now."""
    return and_(Advert.status == "published", Advert.ends_at > now)


def month_start(now: datetime) -> datetime:
    return datetime(now.year, now.month, 1, tzinfo=UTC)


def _leads(group_id: int):
    """The group holds the advert's highest bid (a later bid is always strictly higher)."""
    return exists().where(
        AdvertBid.advert_id == Advert.id,
        AdvertBid.group_id == group_id,
        AdvertBid.advert_amount == Advert.highest_bid,
    )


@dataclass
class SellerNumbers:
    published: int
    bids_week: int
    awaiting: int  # ended with bids: to allocate, or to decide on under the reserve
    allocated: int
    sold_month: int
    sold_value: int
    requests: int = 0  # active vehicle requests of the partner buyers


@dataclass
class BuyerNumbers:
    open_adverts: int
    leading: int
    allocations: int
    deals_month: int
    deal_values: list[tuple[int, str]]  # (amount, currency), one per currency of the deals


@dataclass
class EndingAdvert:
    advert: Advert
    seller_name: str | None = None
    leading: bool = False


def seller_numbers(group: InstanceGroup, now: datetime | None = None) -> SellerNumbers:
    """The seller's adverts by where they stand, and its bids of the last seven days."""
    now = now or utcnow()
    bids_week = (
        select(func.count(AdvertBid.id))
        .join(Advert, Advert.id == AdvertBid.advert_id)
        .where(Advert.seller_group_id == group.id, AdvertBid.created_at >= now - timedelta(7))
        .scalar_subquery()
    )
    requests = (
        select(func.count(VehicleRequest.id))
        .where(
            VehicleRequest.group_id.in_(
                select(MarketPartner.buyer_group_id).where(
                    MarketPartner.seller_group_id == group.id
                )
            ),
            VehicleRequest.active.is_(True),
        )
        .scalar_subquery()
    )
    ended = or_(
        Advert.status == "closed", and_(Advert.status == "published", Advert.ends_at <= now)
    )
    # Ended under the reserve and waiting for the seller's answer (not for the bidder's
    # answer to a counteroffer): app.market.reserve.
    deciding = and_(Advert.status == "provisional", Advert.counter_price.is_(None))
    sold_month = and_(Advert.status == "sold", Advert.sold_at >= month_start(now))
    row = db.session.execute(
        select(
            count_where(_open(now)),
            bids_week,
            count_where(or_(and_(ended, Advert.bid_count > 0), deciding)),
            count_where(Advert.status == "allocated"),
            count_where(sold_month),
            func.coalesce(func.sum(case((sold_month, Advert.allocated_price), else_=0)), 0),
            requests,
        )
        .where(Advert.seller_group_id == group.id)
        # The requests belong to the buyers' instances; every part names its groups.
        .execution_options(all_instances=True)
    ).one()
    return SellerNumbers(*(int(n or 0) for n in row))


def buyer_numbers(group: InstanceGroup, now: datetime | None = None) -> BuyerNumbers:
    """Open adverts of the partner sellers, the ones the buyer leads, its allocations and
    this month's deals (two queries across the sellers' instances)."""
    now = now or utcnow()
    partner = Advert.seller_group_id.in_(partner_seller_ids(group.id))
    mine = Advert.allocated_group_id == group.id
    row = db.session.execute(
        select(
            count_where(and_(partner, _open(now))),
            count_where(and_(partner, _open(now), _leads(group.id))),
            count_where(and_(mine, Advert.status == "allocated")),
        )
        .where(or_(partner, mine))
        .execution_options(all_instances=True)
    ).one()
    deals = db.session.execute(
        select(Advert.currency, func.count(Advert.id), func.sum(Advert.allocated_price))
        .where(mine, Advert.status == "sold", Advert.sold_at >= month_start(now))
        .group_by(Advert.currency)
        .order_by(Advert.currency)
        .execution_options(all_instances=True)
    ).all()
    return BuyerNumbers(
        open_adverts=int(row[0]),
        leading=int(row[1]),
        allocations=int(row[2]),
        deals_month=sum(int(n) for _cur, n, _sum in deals),
        deal_values=[(int(total or 0), cur) for cur, _n, total in deals],
    )


def seller_ending(group: InstanceGroup, now: datetime | None = None) -> list[EndingAdvert]:
    """The seller's open adverts whose bidding ends first."""
    now = now or utcnow()
    adverts = db.session.scalars(
        select(Advert)
        .where(Advert.seller_group_id == group.id, _open(now))
        .order_by(Advert.ends_at, Advert.id)
        .limit(ENDING_SOON)
    )
    return [EndingAdvert(a) for a in adverts]


def buyer_ending(group: InstanceGroup, now: datetime | None = None) -> list[EndingAdvert]:
    """The partner sellers' open adverts whose bidding ends first, with the seller's name and
    whether the buyer leads."""
    now = now or utcnow()
    rows = db.session.execute(
        select(Advert, InstanceGroup.name, _leads(group.id))
        .join(InstanceGroup, InstanceGroup.id == Advert.seller_group_id)
        .where(Advert.seller_group_id.in_(partner_seller_ids(group.id)), _open(now))
        .order_by(Advert.ends_at, Advert.id)
        .limit(ENDING_SOON)
        .execution_options(all_instances=True)
    ).all()
    return [EndingAdvert(a, name, bool(leading)) for a, name, leading in rows]


# --- statistics --------------------------------------------------------------------------------
