"""The market's rules: exchange rates, next bid, bids, allocation and status changes, and the
public links that carry them.

Every public call resolves its link with `resolve_link` (404 for any mismatch), then acts in
the advert's instance. Bids and allocations lock the advert's row first (app.core.locking), so
concurrent writers on one advert are serialised and its highest bid is always consistent.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from flask_babel import format_decimal
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError

from app.core import audit
from app.core.locking import locked
from app.core.models import utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.market import bidder_mail
from app.market.models import (
    MAX_AMOUNT,
    Advert,
    AdvertBid,
    ExchangeRate,
    InstanceGroup,
    MarketLink,
)

STATUSES = ("draft", "published", "closed", "provisional", "allocated", "sold", "withdrawn")
STATUS_LABELS = {
    "draft": _l("Draft"),
    "published": _l("Published"),
    "closed": _l("Closed"),
    # Bidding ended under the reserve: the seller decides (app.market.reserve).
    "provisional": _l("Provisionally sold"),
    "allocated": _l("Allocated"),
    "sold": _l("Sold"),
    "withdrawn": _l("Withdrawn"),
}
# The status changes the change-status form may make. An advert becomes allocated only by an
# allocation (which names the buyer and price); closing an allocated advert cancels it.
TRANSITIONS = {
    "draft": ("published", "withdrawn"),
    "published": ("closed", "withdrawn"),
    "closed": ("published", "withdrawn"),
    # Only the reserve's decisions (accept, decline, counter, the window passing) leave it.
    "provisional": (),
    "allocated": ("sold", "closed"),
    "sold": (),
    "withdrawn": ("draft",),
}
ALLOCATABLE = ("published", "closed")
ACTIONS = {"bid": "bid", "allocate": "seller", "change-status": "seller"}


class MarketError(Exception):
    """A refused market action; the message is translated and shown as it is."""

    def __init__(self, message: str, key: str = "MARKET_REFUSED", **extra) -> None:
        super().__init__(message)
        self.message, self.key, self.extra = message, key, extra


# --- exchange rates and amounts ----------------------------------------------------------


# The statements of the bid path are built once, on the tables (no ORM objects): building and
# loading per request cost more CPU than the database work (bench/market_bid_profile.py).
_rate_t, _advert_t, _link_t, _group_t, _bid_t = (
    m.__table__ for m in (ExchangeRate, Advert, MarketLink, InstanceGroup, AdvertBid)
)
_RATES = select(_rate_t.c.to_currency, _rate_t.c.rate).where(
    _rate_t.c.instance_id == bindparam("instance_id"), _rate_t.c.currency == bindparam("currency")
)


def rates_from(instance_id: int, currency: str) -> dict[str, Decimal]:
    """What 1 `currency` is worth in each currency the seller keeps a rate for (itself: 1)."""
    rows = db.session.execute(_RATES, {"instance_id": instance_id, "currency": currency}).all()
    rates = {to: Decimal(rate) for to, rate in rows if to != currency and rate and rate > 0}
    return {currency: Decimal(1), **dict(sorted(rates.items()))}


def convert_up(amount: int, rate: Decimal) -> int:
    """`amount` in another currency, rounded up to a whole unit."""
    return int((Decimal(amount) * rate).to_integral_value(rounding=ROUND_CEILING))


def convert_back(amount: int, rate: Decimal) -> int:
    """An amount in another currency expressed in the advert's, rounded down: a bid of at
    least convert_up(n, rate) always converts back to at least n."""
    return int((Decimal(amount) / rate).to_integral_value(rounding=ROUND_FLOOR))


def next_bid(advert) -> int:
    """The lowest acceptable bid in the advert's currency (an Advert or a row of its columns)."""
    if advert.highest_bid is None:
        return advert.start_price
    return advert.highest_bid + advert.bid_step


def currency_table(advert: Advert, rates: dict[str, Decimal] | None = None) -> dict:
    """GET _public/market-advert/currencies: the next bid in the advert's currency, and per
    currency the exchange rate and the next bid there, rounded up."""
    rates = rates if rates is not None else rates_from(advert.instance_id, advert.currency)
    amount = next_bid(advert)
    return {
        "currency": advert.currency,
        "nextBid": amount,
        "exchangeRates": [
            {
                "currency": cur,
                "exchangeRate": format(rate.normalize(), "f"),
                "nextBid": convert_up(amount, rate),
            }
            for cur, rate in rates.items()
        ],
    }


# --- public links --------------------------------------------------------------------------


def ensure_link(advert: Advert, user_id: int, group: InstanceGroup, kind: str) -> MarketLink:
    """The user's link to the advert, created on first use."""
    link = db.session.scalar(
        select(MarketLink)
        .where(
            MarketLink.advert_id == advert.id,
            MarketLink.user_id == user_id,
            MarketLink.kind == kind,
        )
        .execution_options(all_instances=True)
    )
    if link is None:
        link = MarketLink(
            advert_id=advert.id,
            user_id=user_id,
            group_id=group.id,
            kind=kind,
            instance_id=advert.instance_id,
        )
        db.session.add(link)
        db.session.flush()
    return link


def link_path(link: MarketLink, action: str, group_hash: str, advert_hash: str) -> str:
    return f"/market-bid/{action}/{group_hash}/{advert_hash}/{link.hash}"


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def resolve_link(action: str, group_hash: str, advert_hash: str, user_hash: str):
    """The (link, advert, group) the four path parts name, or None when any part is wrong.

    Every part is compared in constant time and the answer is the same whichever is wrong.
    On success the advert's instance becomes the active one for the rest of the request."""
    kind = ACTIONS.get(action)
    if kind is None or len(user_hash) > 64:
        return None
    row = db.session.execute(
        select(MarketLink, Advert, InstanceGroup)
        .join(Advert, Advert.id == MarketLink.advert_id)
        .join(InstanceGroup, InstanceGroup.id == MarketLink.group_id)
        .where(MarketLink.hash == user_hash)
        .execution_options(all_instances=True)
    ).first()
    if row is None:
        return None
    link, advert, group = row
    ok = _same(group.hash, group_hash) & _same(advert.hash, advert_hash) & (link.kind == kind)
    if not ok:
        return None
    activate(advert.instance_id)
    return link, advert, group


# --- bids ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class BidLink:
    """What placing a bid needs to know about a bidder's link, read in one statement."""

    link_id: int
    advert_id: int
    group_id: int
    user_id: int
    instance_id: int
    advert_currency: str
    currency: str  # the bidder's


@dataclass(frozen=True)
class PlacedBid:
    id: int
    amount: int
    currency: str
    advert_amount: int
    created_at: datetime


@dataclass(frozen=True)
class BidResult:
    bid: PlacedBid
    duplicate: bool
    next_bid: int | None  # after this bid, in the bidder's currency


def bidding_closed_message(advert, now: datetime) -> str | None:
    """Why no bid is taken on the advert now, or None while bidding is open (`advert` is an
    Advert or a row with its status and ends_at)."""
    if advert.status == "withdrawn":
        return _("This advert has been withdrawn.")
    if advert.status in ("allocated", "sold"):
        return _("This advert has already been allocated to a buyer.")
    if advert.status == "provisional":
        return _("Bidding has ended under the seller's reserve.")
    if advert.status != "published":
        return _("Bidding on this advert is closed.")
    if advert.ends_at <= now:
        return _("Bidding on this advert has ended.")
    return None


def _lock_advert(advert_id: int) -> Advert:
    # populate_existing: the identity map may hold what was read before the lock.
    return locked(
        select(Advert)
        .where(Advert.id == advert_id)
        .execution_options(all_instances=True, populate_existing=True)
    ).scalar_one()


_BID_LINK = select(
    _link_t.c.id,
    _link_t.c.advert_id,
    _link_t.c.group_id,
    _link_t.c.user_id,
    _advert_t.c.instance_id,
    _advert_t.c.currency,
    _group_t.c.currency,
    _link_t.c.kind,
    _group_t.c.hash,
    _advert_t.c.hash,
).select_from(
    _link_t.join(_advert_t, _advert_t.c.id == _link_t.c.advert_id).join(
        _group_t, _group_t.c.id == _link_t.c.group_id
    )
)
_BID_LINK_BY_HASH = _BID_LINK.where(_link_t.c.hash == bindparam("hash"))
_BID_LINK_BY_ID = _BID_LINK.where(_link_t.c.id == bindparam("id"))
_BIDDING_STATE = select(
    _advert_t.c.status,
    _advert_t.c.ends_at,
    _advert_t.c.start_price,
    _advert_t.c.bid_step,
    _advert_t.c.highest_bid,
).where(_advert_t.c.id == bindparam("advert_id"))
_EARLIER = select(
    _bid_t.c.id, _bid_t.c.amount, _bid_t.c.currency, _bid_t.c.advert_amount, _bid_t.c.created_at
).where(_bid_t.c.link_id == bindparam("link_id"), _bid_t.c.request_key == bindparam("key"))
_INSERT_BID = insert(_bid_t).returning(_bid_t.c.id)
_RAISE_HIGHEST = (
    update(_advert_t)
    .where(_advert_t.c.id == bindparam("advert_id"))
    .values(
        highest_bid=bindparam("highest"),
        bid_count=_advert_t.c.bid_count + 1,
        modified_at=bindparam("now"),
    )
)


def resolve_bid_link(group_hash: str, advert_hash: str, user_hash: str) -> BidLink | None:
    """resolve_link for placing a bid: the same checks, only the columns a bid needs."""
    if len(user_hash) > 64:
        return None
    row = db.session.execute(_BID_LINK_BY_HASH, {"hash": user_hash}).first()
    if row is None:
        return None
    *values, kind, real_group_hash, real_advert_hash = row
    ok = _same(real_group_hash, group_hash) & _same(real_advert_hash, advert_hash)
    if not (ok and kind == "bid"):
        return None
    link = BidLink(*values)
    activate(link.instance_id)
    return link


def _bid_link(link_id: int) -> BidLink:
    row = db.session.execute(_BID_LINK_BY_ID, {"id": link_id}).one()
    return BidLink(*row[:7])


def _earlier(link_id: int, request_key: str) -> PlacedBid | None:
    row = db.session.execute(_EARLIER, {"link_id": link_id, "key": request_key}).first()
    return PlacedBid(*row) if row else None


def place_bid(link: BidLink | int, amount: int, request_key: str) -> BidResult:
    """Record a bid through a bidder's link, or raise MarketError. The advert's row is locked
    for the whole decision; the same request key on the same link records one bid.

    This is the market's hottest path, so it speaks in columns, not objects: the rates are read
    before the lock (they do not depend on the bids), then under the lock one read of the
    advert's bidding state, one insert and one update."""
    link = _bid_link(link) if isinstance(link, int) else link
    rate = rates_from(link.instance_id, link.advert_currency).get(link.currency)
    state = locked(_BIDDING_STATE, {"advert_id": link.advert_id}).one()
    # A statement of its own, after the lock: on PostgreSQL (read committed) it reads a fresh
    # snapshot, so a double tap that waited for the lock sees the first tap's bid. Joined into
    # the locked read it would not (the lock re-reads the advert's row, not the joined ones).
    if earlier := _earlier(link.link_id, request_key):
        return BidResult(earlier, duplicate=True, next_bid=_next_in(state, rate))
    if reason := bidding_closed_message(state, utcnow()):
        raise MarketError(reason, "BIDDING_CLOSED")
    if rate is None:
        raise MarketError(
            _(
                "No exchange rate from %(from)s to %(to)s is set for this advert. "
                "Please contact the seller.",
                **{"from": link.advert_currency, "to": link.currency},
            ),
            "NO_EXCHANGE_RATE",
        )
    minimum = convert_up(next_bid(state), rate)
    if amount < minimum:
        raise MarketError(
            _(
                "Your bid must be at least %(amount)s %(currency)s.",
                amount=format_amount(minimum),
                currency=link.currency,
            ),
            "BID_TOO_LOW",
            next_bid=minimum,
        )
    if amount > MAX_AMOUNT:
        raise MarketError(_("The amount is too large."), "BID_TOO_HIGH")
    advert_amount, now = convert_back(amount, rate), utcnow()
    values = {
        "instance_id": link.instance_id,
        "advert_id": link.advert_id,
        "group_id": link.group_id,
        "user_id": link.user_id,
        "link_id": link.link_id,
        "request_key": request_key,
        "amount": amount,
        "currency": link.currency,
        "advert_amount": advert_amount,
        "created_at": now,
    }
    bid_id = db.session.execute(_INSERT_BID, values).scalar_one()
    db.session.execute(
        _RAISE_HIGHEST, {"advert_id": link.advert_id, "highest": advert_amount, "now": now}
    )
    placed = PlacedBid(bid_id, amount, link.currency, advert_amount, now)
    next_amount = convert_up(advert_amount + state.bid_step, rate)
    return BidResult(placed, duplicate=False, next_bid=next_amount)


def _next_in(state, rate: Decimal | None) -> int | None:
    return convert_up(next_bid(state), rate) if rate is not None else None


def format_amount(amount: int) -> str:
    """A whole amount grouped as the reader's language writes numbers (190 000 with no-break
    spaces in Swedish, 190.000 in German, 190,000 in English): the current locale, which a
    mail's rendering sets to the recipient's."""
    return format_decimal(amount, format="#,##0")


def group_bids(advert_id: int) -> dict[int, AdvertBid]:
    """Each bidding group's highest bid on the advert (in the advert's currency)."""
    best: dict[int, AdvertBid] = {}
    bids = db.session.scalars(
        select(AdvertBid)
        .where(AdvertBid.advert_id == advert_id)
        .order_by(AdvertBid.advert_amount, AdvertBid.id)
        .execution_options(all_instances=True)
    )
    for bid in bids:
        best[bid.group_id] = bid
    return best


# --- allocation and status -----------------------------------------------------------------


def allocate(advert_id: int, group_id: int, price: int, notes: str | None, user_id: int) -> Advert:
    """Allocate the advert to a group that bid on it, at `price` in the advert's currency."""
    advert = _lock_advert(advert_id)
    if advert.status not in ALLOCATABLE:
        raise MarketError(
            _(
                "An advert that is %(status)s cannot be allocated.",
                status=str(STATUS_LABELS[advert.status]).lower(),
            ),
            "ILLEGAL_STATUS",
        )
    if group_id not in group_bids(advert.id):
        raise MarketError(_("Choose a company that has bid on this advert."), "UNKNOWN_BIDDER")
    if not 0 < price <= MAX_AMOUNT:
        raise MarketError(_("Enter a sales price above zero."), "INVALID_PRICE")
    previous = advert.status
    advert.status = "allocated"
    advert.allocated_group_id = group_id
    advert.allocated_price = price
    advert.allocated_notes = notes or None
    advert.allocated_at = utcnow()
    return _recorded(
        "market_advert_allocated", advert, previous, user_id, group=group_id, price=price
    )


def _recorded(action: str, advert: Advert, previous: str, user_id: int, **details) -> Advert:
    """Flush a change of the advert and write it to the audit log (in the seller's instance)."""
    db.session.flush()
    audit.record(
        action,
        instance_id=advert.instance_id,
        advert=advert.id,
        previous=previous,
        by=user_id,
        **details,
    )
    return advert


def change_status(advert_id: int, status: str, notes: str | None, user_id: int) -> Advert:
    """Move the advert to `status` if the state machine allows it, or raise MarketError."""
    advert = _lock_advert(advert_id)
    if status not in STATUSES:
        raise MarketError(_("Choose a status from the list."), "STATUS_REQUIRED")
    if status == "allocated" and advert.status in ALLOCATABLE:
        raise MarketError(
            _("Use the allocation form to allocate the advert to a bidder."), "ILLEGAL_STATUS"
        )
    if status not in TRANSITIONS[advert.status]:
        raise MarketError(
            _(
                "An advert cannot go from %(current)s to %(status)s.",
                current=str(STATUS_LABELS[advert.status]).lower(),
                status=str(STATUS_LABELS[status]).lower(),
            ),
            "ILLEGAL_STATUS",
        )
    now = utcnow()
    if status == "published" and advert.ends_at <= now:
        raise MarketError(
            _("The bidding time has ended. Change the end time before publishing again."),
            "ENDED",
        )
    previous = advert.status
    advert.status = status
    advert.status_notes = notes or None
    if status == "published" and advert.published_at is None:
        advert.published_at = now
    if status == "sold":
        advert.sold_at = now
    if previous == "allocated" and status == "closed":
        advert.allocated_group_id = advert.allocated_price = advert.allocated_at = None
        advert.allocated_notes = None
    return _recorded("market_advert_status", advert, previous, user_id, status=status)


def allowed_statuses(advert: Advert) -> tuple[str, ...]:
    return TRANSITIONS[advert.status]


def save_bid(link: BidLink | int, amount: int, request_key: str) -> BidResult:
    """place_bid and commit; a double tap that raced past the lookup returns the first bid."""
    link = _bid_link(link) if isinstance(link, int) else link
    try:
        result = place_bid(link, amount, request_key)
        if not result.duplicate:  # whoever led before is told, by a mail sent after the commit
            bidder_mail.outbid_by(link.advert_id, result.bid.id)
        db.session.commit()
        return result
    except IntegrityError:
        db.session.rollback()
        earlier = _earlier(link.link_id, request_key)
        if earlier is None:
            raise
        return BidResult(earlier, duplicate=True, next_bid=None)
