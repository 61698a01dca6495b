"""The signed-in advert screens' reading: which adverts a group sees, one page of them with the
facts each row shows, and one advert with its bids and images.

A buyer sees the adverts of the sellers it is a partner of, which live in other instances, so
every advert query here runs with `all_instances=True` and names the viewer's group explicitly
(its own id as seller, or its partners as buyer). Creating and editing adverts is
app.market.advert_editing; the people's links and the bid-link e-mails app.market.bid_links.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import aliased

from app.extensions import db
from app.market.groups import partner_seller_ids
from app.market.models import (
    Advert,
    AdvertBid,
    AdvertImage,
    InstanceGroup,
)
from app.market.rates import convert_up
from app.preparation import queries
from app.preparation.items import normalise_regno
from app.preparation.models import FileObject

PER_PAGE = 25
SEARCH_MAX = 100
# What each of the seller's lists holds (spec 01 section 2: my-adverts, my-assigned, my-sold).
SELLER_LISTS = {
    "my-adverts": ("draft", "published", "closed", "provisional", "withdrawn"),
    "my-assigned": ("allocated",),
    "my-sold": ("sold",),
}
# What each of the buyer's lists holds: adverts allocated, or sold, to the buyer's group.
BUYER_LISTS = {"my-allocations": "allocated", "my-deals": "sold"}
# A buyer may open an advert of a partner while it is on the market, just closed or waiting
# for the seller's decision under the reserve, and any advert allocated or sold to it.
BUYER_OPEN = ("published", "closed", "provisional")

Seller = aliased(InstanceGroup, name="seller_group")
Allocated = aliased(InstanceGroup, name="allocated_group")


# --- pages of adverts ------------------------------------------------------------------------


@dataclass
class Row:
    """One advert of a list, with the names its row shows."""

    advert: Advert
    seller_name: str
    allocated_name: str | None


@dataclass
class Page(queries.Page):
    """A page of advert rows (`items`, also `rows`); numbering as the preparation tables'."""

    per_page: int = PER_PAGE
    # Per advert id: the viewer's own best bid and public links (filled per list).
    own_best: dict[int, int] = field(default_factory=dict)
    links: dict[int, str] = field(default_factory=dict)
    change_links: dict[int, str] = field(default_factory=dict)

    @property
    def rows(self) -> list[Row]:
        return self.items


def _rows(*where, order=()):
    return (
        select(Advert, Seller.name, Allocated.name)
        .join(Seller, Seller.id == Advert.seller_group_id)
        .outerjoin(Allocated, Allocated.id == Advert.allocated_group_id)
        .where(*where)
        .order_by(*order, Advert.id.desc())
        .execution_options(all_instances=True)
    )


def search_condition(q: str):
    """Adverts whose registration number, brand or model holds the search text."""
    q = " ".join((q or "").split())[:SEARCH_MAX]
    if not q:
        return None
    regno = normalise_regno(q)
    text = q.lower()
    return or_(
        Advert.regno.contains(regno, autoescape=True),
        func.lower(Advert.brand).contains(text, autoescape=True),
        func.lower(Advert.model).contains(text, autoescape=True),
        func.lower(Advert.brand + " " + Advert.model).contains(text, autoescape=True),
    )


def paginate(stmt, page: int, per_page: int = PER_PAGE) -> Page:
    """One count and one page of rows; the page number is clamped to the pages there are."""
    counted = stmt.order_by(None).with_only_columns(Advert.id).subquery()
    total = db.session.scalar(
        select(func.count()).select_from(counted).execution_options(all_instances=True)
    )
    page = min(max(1, page), max(1, math.ceil((total or 0) / per_page)))
    rows = (
        db.session.execute(stmt.limit(per_page).offset((page - 1) * per_page)).all()
        if total
        else []
    )
    return Page([Row(a, s, al) for a, s, al in rows], total or 0, page, per_page)


def market_condition(group: InstanceGroup):
    """The published adverts a group sees on the market: its partners' as a buyer, its own
    as a seller."""
    sources = []
    if group.buyer:
        sources.append(Advert.seller_group_id.in_(partner_seller_ids(group.id)))
    if group.seller:
        sources.append(Advert.seller_group_id == group.id)
    if not sources:
        return Advert.id.is_(None)
    return and_(Advert.status == "published", or_(*sources))


def market_page(group: InstanceGroup, where: list, page: int) -> Page:
    """A page of the market list narrowed by `where` (app.market.filters), soonest ending
    first."""
    return paginate(_rows(market_condition(group), *where, order=(Advert.ends_at,)), page)


def seller_page(group: InstanceGroup, list_name: str, q: str, page: int) -> Page:
    """A page of one of the seller's own lists."""
    where = [
        Advert.seller_group_id == group.id,
        Advert.instance_id == group.instance_id,
        Advert.status.in_(SELLER_LISTS[list_name]),
    ]
    if (found := search_condition(q)) is not None:
        where.append(found)
    order = {
        "my-adverts": (Advert.created_at.desc(),),
        "my-assigned": (Advert.allocated_at.desc(),),
        "my-sold": (Advert.sold_at.desc(),),
    }[list_name]
    return paginate(_rows(*where, order=order), page)


def buyer_page(group: InstanceGroup, list_name: str, q: str, page: int) -> Page:
    """A page of the adverts allocated (or sold) to the buyer's group by its partners."""
    status = BUYER_LISTS[list_name]
    where = [
        Advert.allocated_group_id == group.id,
        Advert.status == status,
        Advert.seller_group_id.in_(partner_seller_ids(group.id)),
    ]
    if (found := search_condition(q)) is not None:
        where.append(found)
    order = Advert.allocated_at.desc() if status == "allocated" else Advert.sold_at.desc()
    return paginate(_rows(*where, order=(order,)), page)


def own_best_bids(advert_ids: list[int], group_id: int) -> dict[int, int]:
    """The group's highest bid per advert, in the advert's currency (one grouped query)."""
    if not advert_ids:
        return {}
    rows = db.session.execute(
        select(AdvertBid.advert_id, func.max(AdvertBid.advert_amount))
        .where(AdvertBid.advert_id.in_(advert_ids), AdvertBid.group_id == group_id)
        .group_by(AdvertBid.advert_id)
        .execution_options(all_instances=True)
    ).all()
    return {advert_id: int(best) for advert_id, best in rows}


# --- one advert --------------------------------------------------------------------------------


def find_advert(advert_id: int, group: InstanceGroup) -> Advert | None:
    """An advert the group may open: its own as seller; as buyer a partner's advert on the
    market, or one allocated or sold to it. Anything else is None (a 404)."""
    return db.session.scalar(
        select(Advert)
        .where(Advert.id == advert_id, visible_condition(group))
        .execution_options(all_instances=True)
    )


def visible_condition(group: InstanceGroup):
    """The adverts the group may open (find_advert), as a condition."""
    allowed = []
    if group.seller:
        allowed.append(
            and_(Advert.seller_group_id == group.id, Advert.instance_id == group.instance_id)
        )
    if group.buyer:
        allowed.append(
            and_(
                Advert.seller_group_id.in_(partner_seller_ids(group.id)),
                or_(
                    Advert.status.in_(BUYER_OPEN),
                    Advert.allocated_group_id == group.id,
                ),
            )
        )
    return or_(*allowed) if allowed else Advert.id.is_(None)


@dataclass
class BidLine:
    bid: AdvertBid
    group_name: str | None  # None when the viewer may not see who bid


def bid_lines(advert: Advert, viewer_group: InstanceGroup) -> list[BidLine]:
    """The advert's bids, newest first; a buyer sees only its own company's name."""
    rows = db.session.execute(
        select(AdvertBid, InstanceGroup.name)
        .join(InstanceGroup, InstanceGroup.id == AdvertBid.group_id)
        .where(AdvertBid.advert_id == advert.id)
        .order_by(AdvertBid.created_at.desc(), AdvertBid.id.desc())
        .execution_options(all_instances=True)
    ).all()
    seller = viewer_group.id == advert.seller_group_id
    return [
        BidLine(bid, name if seller or bid.group_id == viewer_group.id else None)
        for bid, name in rows
    ]


def allocation_in_buyer_currency(
    advert: Advert, bids: list[BidLine]
) -> tuple[int, str, str] | None:
    """The allocated price in the buyer's currency at the rate of the buyer's highest bid
    (amount, currency, rate as stored), when the buyer bid in another currency."""
    if advert.allocated_price is None or advert.allocated_group_id is None:
        return None
    theirs = [b.bid for b in bids if b.bid.group_id == advert.allocated_group_id]
    top = max(theirs, key=lambda b: (b.advert_amount, -b.id), default=None)
    if top is None or top.currency == advert.currency or not top.rate:
        return None
    rate = Decimal(top.rate)
    return convert_up(advert.allocated_price, rate), top.currency, format(rate.normalize(), "f")


def advert_images(advert_id: int) -> list[AdvertImage]:
    return list(
        db.session.scalars(
            select(AdvertImage)
            .where(AdvertImage.advert_id == advert_id)
            .order_by(AdvertImage.position, AdvertImage.id)
            .execution_options(all_instances=True)
        )
    )


def image_file(advert: Advert, image_id: int) -> FileObject | None:
    """The stored file of one of the advert's images."""
    return db.session.scalar(
        select(FileObject)
        .join(AdvertImage, AdvertImage.file_object_id == FileObject.id)
        .where(
            AdvertImage.id == image_id,
            AdvertImage.advert_id == advert.id,
            FileObject.instance_id == advert.instance_id,
        )
        .execution_options(all_instances=True)
    )


def aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)
