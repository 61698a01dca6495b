"""The signed-in advert screens' rules and queries: which adverts a group sees, one page of them
with the facts each row shows, the people's public links, the bid-link e-mails, and creating
and editing adverts.

A buyer sees the adverts of the sellers it is a partner of, which live in other instances, so
every advert query here runs with `all_instances=True` and names the viewer's group explicitly
(its own id as seller, or its partners as buyer). Services only flush; the view commits.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from flask import url_for
from sqlalchemy import and_, delete, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased

from app.auth.models import User, user_instances
from app.core import audit
from app.core.i18n import to_locale, user_time_zone
from app.core.models import utcnow
from app.core.tenancy import activate, active_instance_id
from app.extensions import db
from app.mail.services import send_mail
from app.market.groups import partner_buyers, partner_seller_ids
from app.market.invites import COUNTRY_DEFAULTS, DEFAULT_LANGUAGE
from app.market.links import link_path
from app.market.models import (
    SOFT_CLOSE_SECONDS,
    Advert,
    AdvertBid,
    AdvertImage,
    ExchangeRate,
    InstanceGroup,
    MarketLink,
)
from app.market.rates import convert_up
from app.market.reserve import default_reserve
from app.preparation import queries
from app.preparation.files import store_file
from app.preparation.items import ARCHIVED, normalise_regno
from app.preparation.models import FileObject, PreparationItem

PER_PAGE = 25
SEARCH_MAX = 100
MAX_IMAGES = 20
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


# --- public links ------------------------------------------------------------------------------


@contextmanager
def writing_across_instances():
    """Let this request store rows of another instance (a buyer's link lives in the seller's
    instance); every row written inside names its instance itself."""
    before = active_instance_id()
    activate(None)
    try:
        yield
    finally:
        activate(before)


def links_for(adverts: Iterable[Advert], user_id: int, group: InstanceGroup, kind: str):
    """The user's links of one kind to these adverts, created where missing: two queries at
    most, whatever the number of adverts."""
    adverts = list(adverts)
    if not adverts:
        return {}
    ids = [a.id for a in adverts]

    def existing() -> dict[int, MarketLink]:
        return {
            link.advert_id: link
            for link in db.session.scalars(
                select(MarketLink)
                .where(
                    MarketLink.advert_id.in_(ids),
                    MarketLink.user_id == user_id,
                    MarketLink.kind == kind,
                )
                .execution_options(all_instances=True)
            )
        }

    found = existing()
    missing = [a for a in adverts if a.id not in found]
    if missing:
        try:
            with writing_across_instances(), db.session.begin_nested():
                new = [
                    MarketLink(
                        advert_id=a.id,
                        user_id=user_id,
                        group_id=group.id,
                        kind=kind,
                        instance_id=a.instance_id,
                    )
                    for a in missing
                ]
                db.session.add_all(new)
            found.update({link.advert_id: link for link in new})
        except IntegrityError:  # another tab made them at the same moment
            found = existing()
    return found


def public_paths(adverts, links: dict[int, MarketLink], group_hash: str, action: str):
    return {a.id: link_path(links[a.id], action, group_hash, a.hash) for a in adverts}


def absolute(path: str) -> str:
    return url_for("shell.root", _external=True).rstrip("/") + path


# --- the bid-link e-mails ----------------------------------------------------------------------


def recipient_language(user: User, group: InstanceGroup) -> str:
    """The user's own language, else the buyer country's, else Swedish."""
    own = to_locale((user.options or {}).get("language"))
    country = COUNTRY_DEFAULTS.get(group.country_code)
    return own or (to_locale(country[2]) if country else None) or DEFAULT_LANGUAGE


def bid_link_recipients(seller_group: InstanceGroup) -> list[tuple[User, InstanceGroup]]:
    """Every active user with the market module in every partner buyer group, once each,
    except the seller's own users."""
    groups: dict[int, InstanceGroup] = {}
    for group in partner_buyers(seller_group.id):
        if group.buyer:
            groups.setdefault(group.instance_id, group)
    if not groups:
        return []
    # The seller's own people (an admin of both companies, say) do not bid on its adverts.
    own_people = select(user_instances.c.user_id).where(
        user_instances.c.instance_id == seller_group.instance_id
    )
    rows = db.session.execute(
        select(User, user_instances.c.instance_id)
        .join(user_instances, user_instances.c.user_id == User.id)
        .where(
            user_instances.c.instance_id.in_(list(groups)),
            User.active.is_(True),
            User.id.not_in(own_people),
        )
        .order_by(User.id)
    ).all()
    seen: set[int] = set()
    recipients = []
    for user, instance_id in rows:
        if user.id in seen or "market" not in (user.modules or []):
            continue
        seen.add(user.id)
        recipients.append((user, groups[instance_id]))
    return recipients


def send_bid_links(advert: Advert, seller_group: InstanceGroup) -> int:
    """E-mail every buyer user of every partner a personal bid link; return how many."""
    now = utcnow()
    sent = 0
    for user, group in bid_link_recipients(seller_group):
        link = links_for([advert], user.id, group, "bid")[advert.id]
        send_mail(
            to=user.email,
            template="market_bid_link",
            kind="market_bid_link",
            language=recipient_language(user, group),
            instance_id=advert.instance_id,
            advert=advert,
            seller_name=seller_group.name,
            company_name=group.name,
            recipient_name=user.full_name,
            time_zone=user_time_zone(user),
            bid_url=absolute(link_path(link, "bid", group.hash, advert.hash)),
        )
        link.sent_at = now
        sent += 1
    db.session.flush()
    audit.record(
        "market_bid_links_sent", instance_id=advert.instance_id, advert=advert.id, count=sent
    )
    return sent


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


@dataclass
class SentLink:
    name: str
    email: str
    company: str
    sent_at: datetime | None
    unsubscribed_at: datetime | None = None  # the holder turned the bidder e-mails off


def sent_bid_links(advert: Advert) -> list[SentLink]:
    """Who holds a bid link to the advert, by company, when it was last e-mailed and whether
    its holder unsubscribed from the advert's bidder e-mails."""
    rows = db.session.execute(
        select(
            User.firstname,
            User.lastname,
            User.email,
            InstanceGroup.name,
            MarketLink.sent_at,
            MarketLink.unsubscribed_at,
        )  # fmt: skip
        .join(User, User.id == MarketLink.user_id)
        .join(InstanceGroup, InstanceGroup.id == MarketLink.group_id)
        .where(MarketLink.advert_id == advert.id, MarketLink.kind == "bid")
        .order_by(InstanceGroup.name, User.lastname, User.firstname, User.id)
        .execution_options(all_instances=True)
    ).all()
    return [
        SentLink(f"{first} {last}".strip() or email, email, company, sent_at, unsubscribed)
        for first, last, email, company, sent_at, unsubscribed in rows
    ]


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


# --- creating and editing ----------------------------------------------------------------------


@dataclass
class AdvertData:
    regno: str
    brand: str
    model: str
    start_price: int
    bid_step: int
    ends_at: datetime
    model_year: int | None = None
    mileage: int | None = None
    fuel_type: str | None = None
    color: str | None = None
    description: str | None = None
    item_id: int | None = None
    proxy_bidding: bool = True
    soft_close_seconds: int = SOFT_CLOSE_SECONDS
    buy_now_price: int | None = None
    reserve_price: int | None = None  # 0: none, even where the seller has a default


def stock_items(q: str, division_ids: list[int], limit: int = 10) -> list[PreparationItem]:
    """The instance's vehicles (not archived) whose registration number holds the search."""
    regno = normalise_regno(q)[:20]
    if not regno or not division_ids:
        return []
    return list(
        db.session.scalars(
            select(PreparationItem)
            .where(
                PreparationItem.module.in_(("begcare", "newcare")),
                PreparationItem.state != ARCHIVED,
                PreparationItem.division_id.in_(division_ids),
                PreparationItem.regno.contains(regno, autoescape=True),
            )
            .order_by(PreparationItem.regno, PreparationItem.id)
            .limit(limit)
        )
    )


def stock_item(item_id: int | None, division_ids: list[int]) -> PreparationItem | None:
    if not item_id or not division_ids:
        return None
    return db.session.scalar(
        select(PreparationItem).where(
            PreparationItem.id == item_id,
            PreparationItem.module.in_(("begcare", "newcare")),
            PreparationItem.state != ARCHIVED,
            PreparationItem.division_id.in_(division_ids),
        )
    )


def _apply(advert: Advert, data: AdvertData) -> None:
    for name in (
        "regno", "brand", "model", "model_year", "mileage", "fuel_type", "color",
        "description", "start_price", "bid_step", "ends_at", "item_id", "reserve_price",
        "proxy_bidding", "soft_close_seconds", "buy_now_price",
    ):  # fmt: skip
        setattr(advert, name, getattr(data, name))


def _add_images(advert: Advert, uploads: list[tuple[bytes, str]], user_id: int) -> None:
    start = len(advert_images(advert.id)) if advert.id else 0
    files = [store_file(content, name, user_id) for content, name in uploads]
    db.session.flush()
    for position, file in enumerate(files, start=start):
        db.session.add(AdvertImage(advert_id=advert.id, file_object_id=file.id, position=position))


def _remove_images(advert: Advert, image_ids: set[int]) -> None:
    """Delete the advert's images of those ids and their stored files; others' ids do nothing."""
    images = [image for image in advert_images(advert.id) if image.id in image_ids]
    file_ids = [image.file_object_id for image in images]
    for image in images:
        db.session.delete(image)
    db.session.flush()
    if file_ids:
        db.session.execute(
            delete(FileObject).where(
                FileObject.id.in_(file_ids), FileObject.instance_id == advert.instance_id
            )
        )
    # The images left keep their order, numbered from 0 again.
    for position, image in enumerate(advert_images(advert.id)):
        image.position = position


def publish(advert: Advert, group: InstanceGroup) -> int:
    """Put a draft on the market and send the bid links; return how many were sent."""
    from app.market.watch import advert_published  # watch builds on this module

    if advert.published_at is None:
        advert_published(advert)
    advert.status = "published"
    advert.published_at = advert.published_at or utcnow()
    db.session.flush()
    return send_bid_links(advert, group)


def create_advert(
    group: InstanceGroup, data: AdvertData, uploads, user, publish_now: bool
) -> tuple[Advert, int]:
    """A new advert of the group in its currency, with its images; published (and its bid
    links sent) when asked. Returns the advert and how many bid links were sent."""
    advert = Advert(
        seller_group_id=group.id, currency=group.currency, status="draft", created_by_id=user.id
    )
    if data.reserve_price is None:  # left empty: the seller's default, if any
        data.reserve_price = default_reserve(data.start_price, group.reserve_percent)
    _apply(advert, data)
    db.session.add(advert)
    db.session.flush()
    _add_images(advert, uploads, user.id)
    return advert, _publish_recorded(advert, group, user, publish_now, "market_advert_created")


def update_draft(
    advert: Advert,
    group: InstanceGroup,
    data: AdvertData,
    uploads,
    user,
    publish_now: bool,
    remove_image_ids: set[int] = frozenset(),
) -> int:
    """Save a draft's fields, remove the images asked for (of this advert only) and add the new
    ones; publish it when asked."""
    _apply(advert, data)
    _remove_images(advert, remove_image_ids)
    _add_images(advert, uploads, user.id)
    db.session.flush()
    return _publish_recorded(advert, group, user, publish_now, "market_advert_edited")


def _publish_recorded(
    advert: Advert, group: InstanceGroup, user, publish_now: bool, event: str
) -> int:
    """Publish the saved advert when asked and audit the save; returns the bid links sent."""
    sent = publish(advert, group) if publish_now else 0
    audit.record(
        event,
        instance_id=advert.instance_id,
        advert=advert.id,
        status=advert.status,
        by=user.id,
    )
    return sent


@dataclass
class StaleRate:
    to_currency: str
    modified_at: datetime
    days: int


def stale_rates(group: InstanceGroup) -> list[StaleRate]:
    """The group's exchange rates last changed longer ago than its setting allows: the advert
    form warns about them before publishing (bids are converted at these rates)."""
    now = utcnow()
    limit = now - timedelta(days=group.rate_max_age_days)
    rows = db.session.execute(
        select(ExchangeRate.to_currency, ExchangeRate.modified_at)
        .where(
            ExchangeRate.instance_id == group.instance_id,
            ExchangeRate.currency == group.currency,
            ExchangeRate.modified_at < limit,
        )
        .order_by(ExchangeRate.to_currency)
        .execution_options(all_instances=True)
    ).all()
    return [StaleRate(to, aware(at), (now - aware(at)).days) for to, at in rows]


def aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)
