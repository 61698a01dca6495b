"""The market's rules: exchange rates, next bid, bids, allocation and status changes, and the
public links that carry them.

Every public call resolves its link with `resolve_link` (404 for any mismatch), then acts in
the advert's instance. Bids and allocations lock the advert's row first (app.core.locking), so
concurrent writers on one advert are serialised and its highest bid is always consistent.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from babel.numbers import parse_pattern
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import and_, bindparam, exists, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from app.core import audit
from app.core.cache import LRUCache
from app.core.locking import locked
from app.core.models import utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.market import bidder_mail
from app.market.models import (
    MAX_AMOUNT,
    Advert,
    AdvertBid,
    AdvertMaximum,
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
    # What 1 advert_currency is worth in the bidder's currency, read with the link (None: the
    # seller keeps no rate for it); 1 for the advert's own currency.
    rate: Decimal | None = None
    # False: remembered from an earlier request, not read in this transaction; the bid's
    # locked read checks it still holds, else StaleLink.
    checked: bool = True

    def rates(self) -> dict[str, Decimal]:
        """The rates a bid without maxima needs: the advert's currency and the bidder's."""
        rates = {self.advert_currency: Decimal(1)}
        if self.rate is not None and self.rate > 0:
            rates.setdefault(self.currency, Decimal(self.rate))
        return rates


@dataclass(frozen=True)
class PlacedBid:
    id: int
    amount: int
    currency: str
    advert_amount: int
    created_at: datetime


@dataclass(frozen=True)
class BidResult:
    bid: PlacedBid | None  # the bidder's own bid; None when a maximum alone was set
    duplicate: bool
    next_bid: int | None  # after this bid, in the bidder's currency
    leading: bool = True  # the bidder's company holds the highest bid after the transaction
    maximum: int | None = None  # the bidder's maximum now (their currency)
    ends_at: datetime | None = None
    extended: bool = False  # the soft close moved the end
    # Links of bidders whose company lost the lead in this transaction, to a typed bid or an
    # automatic raise, and did not win it back (they get a mail).
    outbid_links: tuple[int, ...] = ()
    # What bidder_mail.outbid would read for them, when the bid's own statement read it:
    # (subscribed bid link, its company's highest bid, currency); None: not read.
    outbid_mails: tuple[tuple[int, int, str], ...] | None = None


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


# The link, its advert's and group's currencies and the seller's rate between them, in one
# statement (the rate does not depend on the bids, so it is read before the lock).
_BID_LINK = select(
    _link_t.c.id,
    _link_t.c.advert_id,
    _link_t.c.group_id,
    _link_t.c.user_id,
    _advert_t.c.instance_id,
    _advert_t.c.currency,
    _group_t.c.currency,
    _rate_t.c.rate,
    _link_t.c.kind,
    _group_t.c.hash,
    _advert_t.c.hash,
).select_from(
    _link_t.join(_advert_t, _advert_t.c.id == _link_t.c.advert_id)
    .join(_group_t, _group_t.c.id == _link_t.c.group_id)
    .outerjoin(
        _rate_t,
        (_rate_t.c.instance_id == _advert_t.c.instance_id)
        & (_rate_t.c.currency == _advert_t.c.currency)
        & (_rate_t.c.to_currency == _group_t.c.currency),
    )
)
_BID_LINK_BY_HASH = _BID_LINK.where(_link_t.c.hash == bindparam("hash"))
_BID_LINK_BY_ID = _BID_LINK.where(_link_t.c.id == bindparam("id"))
# Everything the bid transaction decides on, from the advert's locked row alone: on
# PostgreSQL a bid that waited for the lock reads this row as the previous bid left it.
# With it, the leading company's last bid (its highest: every bid tops all before it), whose
# link is told "outbid" when another company takes the lead, and whether that link takes mails.
_LEADER_LAST_BID = (
    select(_bid_t.c.id)
    .where(
        _bid_t.c.advert_id == _advert_t.c.id,  # ix_advert_bid_advert_amount finds it at once
        _bid_t.c.advert_amount == _advert_t.c.highest_bid,
        _bid_t.c.group_id == _advert_t.c.highest_group_id,
    )
    .order_by(_bid_t.c.id.desc())
    .limit(1)
    .correlate(_advert_t)
    .scalar_subquery()
)
_lost_bid_t, _lost_link_t = _bid_t.alias("lost_bid"), _link_t.alias("lost_link")
_BIDDING_STATE = (
    select(
        _advert_t.c.status,
        _advert_t.c.ends_at,
        _advert_t.c.start_price,
        _advert_t.c.bid_step,
        _advert_t.c.highest_bid,
        _advert_t.c.highest_group_id,
        _advert_t.c.proxy_bidding,
        _advert_t.c.soft_close_seconds,
        _advert_t.c.buy_now_price,
        _advert_t.c.maxima_count,
        _lost_bid_t.c.link_id.label("lost_link"),
        _lost_bid_t.c.amount.label("lost_amount"),
        _lost_bid_t.c.currency.label("lost_currency"),
        ((_lost_link_t.c.kind == "bid") & _lost_link_t.c.unsubscribed_at.is_(None)).label(
            "lost_mailed"
        ),
    )
    .select_from(
        _advert_t.outerjoin(_lost_bid_t, _lost_bid_t.c.id == _LEADER_LAST_BID).outerjoin(
            _lost_link_t, _lost_link_t.c.id == _lost_bid_t.c.link_id
        )
    )
    .where(_advert_t.c.id == bindparam("advert_id"))
)
# SQLite: the locked state, with whether a remembered link's facts still hold (as _PG_BID's
# `facts`): the advert's and the group's currency, the rate between them, the link itself.
_LINK_OK = and_(
    _advert_t.c.currency == bindparam("advert_currency"),
    exists().where(_link_t.c.id == bindparam("link_id")),
    select(_group_t.c.currency).where(_group_t.c.id == bindparam("group_id")).scalar_subquery()
    == bindparam("currency"),
    select(_rate_t.c.rate)
    .where(
        _rate_t.c.instance_id == bindparam("instance_id"),
        _rate_t.c.currency == bindparam("advert_currency"),
        _rate_t.c.to_currency == bindparam("currency"),
    )
    .scalar_subquery()
    .is_not_distinct_from(bindparam("link_rate", type_=_rate_t.c.rate.type)),
).label("link_ok")
_CHECKED_STATE = _BIDDING_STATE.add_columns(_LINK_OK)
_EARLIER = select(
    _bid_t.c.id, _bid_t.c.amount, _bid_t.c.currency, _bid_t.c.advert_amount, _bid_t.c.created_at
).where(_bid_t.c.link_id == bindparam("link_id"), _bid_t.c.request_key == bindparam("key"))
_INSERT_BID = insert(_bid_t).returning(_bid_t.c.id)
_max_t = AdvertMaximum.__table__
_MAXIMA = (
    select(
        _max_t.c.id,
        _max_t.c.link_id,
        _max_t.c.group_id,
        _max_t.c.user_id,
        _max_t.c.amount,
        _max_t.c.currency,
        _max_t.c.set_at,
    )
    .where(_max_t.c.advert_id == bindparam("advert_id"))
    .order_by(_max_t.c.set_at, _max_t.c.id)
)
_INSERT_MAXIMUM = insert(_max_t)
_RAISE_MAXIMUM = (
    update(_max_t)
    .where(_max_t.c.id == bindparam("maximum_id"))
    .values(amount=bindparam("amount"), set_at=bindparam("now"))
)
_SAVE_STATE = (
    update(_advert_t)
    .where(_advert_t.c.id == bindparam("advert_id"))
    .values(
        highest_bid=bindparam("highest"),
        highest_group_id=bindparam("leader"),
        bid_count=_advert_t.c.bid_count + bindparam("placed"),
        maxima_count=bindparam("maxima"),
        ends_at=bindparam("ends"),
        modified_at=bindparam("now"),
    )
)
_LAST_LINK_OF_GROUP = (
    select(_bid_t.c.link_id)
    .where(_bid_t.c.advert_id == bindparam("advert_id"), _bid_t.c.group_id == bindparam("group"))
    .order_by(_bid_t.c.advert_amount.desc(), _bid_t.c.id.desc())  # its last is its highest
    .limit(1)
)


# PostgreSQL: the locked read, the checks, the insert and the advert's update in one call (one
# round trip) for a bid without maxima: the function market_place_bid (migration c95894507d20,
# where its statement and the reasons for a function are). What it refuses, Python explains
# from the state it returns; with a refusal it also returns the earlier bid of the same request
# key, if any. It runs in the session's transaction, whose lock is still held when it took no
# bid.
_PG_BID = text(
    "SELECT * FROM market_place_bid(:advert_id, :advert_currency, :link_id, :group_id,"
    " :currency, :instance_id, :link_rate, :now, :advert_amount, :user_id, :request_key,"
    " :amount, :rate)"
)


def _sql(statement, params: dict | None = None):
    """Run one of the bid path's Core statements on the session's connection, in its
    transaction. They name their tables and ids, so the ORM's execute (whose tenancy criteria
    reach ORM entities only) would add nothing to them but some 25 µs each."""
    return db.session.connection().execute(statement, params)


class StaleLink(Exception):
    """A link remembered from an earlier request no longer holds (the seller changed its rate
    or a currency, or the link is gone): the caller reads it afresh and tries again."""


# Each process remembers the links it has read (user hash -> _BID_LINK's row), so a bidder's
# next bid needs no statement of its own for them: the bid's locked read checks that what was
# remembered still holds (_PG_BID's `facts`, on SQLite _CHECKED_STATE). Hashes, kinds, and a
# link's advert, group and user never change; currencies and rates may, and are checked.
_LINKS = LRUCache(4096)


def resolve_bid_link(
    group_hash: str, advert_hash: str, user_hash: str, fresh: bool = False
) -> BidLink | None:
    """resolve_link for placing a bid: the same checks, only the columns a bid needs (from
    the process's memory of the link unless `fresh`: then `checked` is False and the bid's
    locked read checks it)."""
    if len(user_hash) > 64:
        return None
    row = None if fresh else _LINKS.get(user_hash)
    checked = row is None
    if row is None:
        row = _sql(_BID_LINK_BY_HASH, {"hash": user_hash}).first()
        if row is None:
            _LINKS.discard(user_hash)  # gone since it was remembered
            return None
        _LINKS.put(user_hash, tuple(row))
    *values, kind, real_group_hash, real_advert_hash = row
    ok = _same(real_group_hash, group_hash) & _same(real_advert_hash, advert_hash)
    if not (ok and kind == "bid"):
        return None
    link = BidLink(*values, checked=checked)
    activate(link.instance_id)
    return link


def _bid_link(link_id: int) -> BidLink:
    row = _sql(_BID_LINK_BY_ID, {"id": link_id}).one()
    return BidLink(*row[:8])


def _earlier(link_id: int, request_key: str) -> PlacedBid | None:
    row = _sql(_EARLIER, {"link_id": link_id, "key": request_key}).first()
    return PlacedBid(*row) if row else None


def _earlier_after_lock(state, link_id: int, request_key: str) -> PlacedBid | None:
    """The bid of this link and request key stored before the advert's lock was granted: read
    by market_place_bid after its lock when `state` is that function's answer, else now."""
    if "earlier_id" not in state._fields:
        return _earlier(link_id, request_key)
    if state.earlier_id is None:
        return None
    return PlacedBid(
        state.earlier_id, state.earlier_amount, state.earlier_currency,
        state.earlier_advert_amount, state.earlier_created_at,
    )  # fmt: skip


def _no_rate(link: BidLink) -> MarketError:
    return MarketError(
        _(
            "No exchange rate from %(from)s to %(to)s is set for this advert. "
            "Please contact the seller.",
            **{"from": link.advert_currency, "to": link.currency},
        ),
        "NO_EXCHANGE_RATE",
    )


def _too_large() -> MarketError:
    return MarketError(_("The amount is too large."), "BID_TOO_HIGH")


class _Book:
    """The bid transaction's view of one advert under its lock: the highest bid and its group,
    and the bids written so far (each its own row, never changed afterwards)."""

    def __init__(self, link: BidLink, state, rates: dict[str, Decimal], now: datetime) -> None:
        self.link, self.rates, self.now = link, rates, now
        self.highest, self.leader = state.highest_bid, state.highest_group_id
        self.step, self.start = state.bid_step, state.start_price
        self.placed: list[tuple[int, int, bool]] = []  # (group, link, automatic) in order
        self.outbid: list[tuple[int, int | None]] = []  # (group, its link or None)
        self.leader_link: int | None = None

    @property
    def next(self) -> int:
        return self.start if self.highest is None else self.highest + self.step

    def write(
        self, group_id: int, user_id: int | None, link_id: int, currency: str, amount: int,
        key: str, automatic: bool = False, buy_now: bool = False,
    ) -> PlacedBid:  # fmt: skip
        """Insert one bid of `amount` in `currency`; it becomes the highest."""
        rate = self.rates[currency]
        advert_amount = convert_back(amount, rate)
        values = {
            "instance_id": self.link.instance_id, "advert_id": self.link.advert_id,
            "group_id": group_id, "user_id": user_id, "link_id": link_id, "request_key": key,
            "amount": amount, "currency": currency, "advert_amount": advert_amount,
            "created_at": self.now, "rate": rate, "automatic": automatic, "buy_now": buy_now,
        }  # fmt: skip
        bid_id = _sql(_INSERT_BID, values).scalar_one()
        if self.leader is not None and self.leader != group_id:
            self.outbid.append((self.leader, self.leader_link))
        self.highest, self.leader, self.leader_link = advert_amount, group_id, link_id
        self.placed.append((group_id, link_id, automatic))
        return PlacedBid(bid_id, amount, currency, advert_amount, self.now)


@dataclass
class _Ceiling:
    """A group's proxy ceiling in the advert's currency: its highest maximum (for the leader at
    least its highest bid) and the time that ranks it against equal ceilings."""

    group_id: int
    amount: int
    set_at: datetime | None
    maximum: object | None  # the row of _MAXIMA it comes from


def _ceilings(book: _Book, maxima: list) -> dict[int, _Ceiling]:
    best: dict[int, _Ceiling] = {}
    for row in maxima:
        rate = book.rates.get(row.currency)
        if rate is None:  # the seller removed the rate: that maximum cannot bid
            continue
        amount = convert_back(row.amount, rate)
        held = best.get(row.group_id)
        if held is None or amount > held.amount:
            best[row.group_id] = _Ceiling(row.group_id, amount, row.set_at, row)
    if book.leader is not None:
        held = best.get(book.leader)
        if held is None or held.amount < book.highest:
            best[book.leader] = _Ceiling(book.leader, book.highest, None, None)
    return best


def _rank(ceilings: list[_Ceiling]) -> list[_Ceiling]:
    """Highest ceiling first; equal ceilings: the earliest maximum first."""
    return sorted(ceilings, key=lambda c: (-c.amount, c.set_at or datetime.max.replace(tzinfo=UTC)))


def _auto_bid(book: _Book, ceiling: _Ceiling, target: int, key: str) -> bool:
    """The system's bid of `target` (advert's currency) for a maximum, in its holder's
    currency rounded up; False when that would pass the maximum."""
    row = ceiling.maximum
    amount = convert_up(target, book.rates[row.currency])
    if amount > row.amount:
        return False
    book.write(row.group_id, row.user_id, row.link_id, row.currency, amount, key, automatic=True)
    return True


def _resolve_proxies(book: _Book, maxima: list) -> None:
    """Let the maxima answer: the group with the highest ceiling (ties: the earliest maximum)
    ends up leading at the least the step rules need. When it is challenged, the runner-up's
    maximum is spent first (its last bid the winner can still beat by a step), then the winner
    bids one step above it: the outcome of bidding step by step, in at most two stored bids."""
    for _round in range(8):  # each round writes a bid and raises the highest; two or three do
        ceilings = _ceilings(book, maxima)
        ranked = [
            c
            for c in _rank(list(ceilings.values()))
            if c.group_id == book.leader or c.amount >= book.next
        ]
        if not ranked or (len(ranked) == 1 and ranked[0].group_id == book.leader):
            return
        winner, others = ranked[0], ranked[1:]
        runner = others[0] if others else None
        auto_key = f"auto-{secrets.token_hex(12)}"  # each automatic bid: a key of its own
        if winner.group_id == book.leader:
            # Challenged: the challenger spends its maximum up to where the winner still beats it.
            target = min(runner.amount, winner.amount - book.step)
            if target < book.next or runner.maximum is None:
                return
            if not _auto_bid(book, runner, target, auto_key):
                return
            continue
        if runner is not None and runner.maximum is not None:
            target = min(runner.amount, winner.amount - book.step)
            if target >= book.next and _auto_bid(book, runner, target, auto_key):
                continue
        if winner.maximum is None or not _auto_bid(book, winner, book.next, auto_key):
            return


def place_bid(
    link: BidLink | int,
    amount: int | None,
    request_key: str,
    maximum: int | None = None,
) -> BidResult:
    """Record a bid (and/or set the bidder's maximum) through a bidder's link, or raise
    MarketError. The advert's row is locked for the whole decision; inside it the maxima
    answer (proxy bids), the soft close moves the end, and the advert's state is written once.
    The same request key on the same link records one bid.

    This is the market's hottest path, so it speaks in columns, not objects: the rates are read
    before the lock (they do not depend on the bids), then under the lock one read of the
    advert's row, the maxima only when there are any, the bid's insert and one update."""
    link = _bid_link(link) if isinstance(link, int) else link
    state = None
    if maximum is None and amount is not None and db.engine.dialect.name == "postgresql":
        state, result = _pg_bid(link, amount, request_key)
        if result is not None:
            return result
    if state is None and not link.checked:
        # What follows decides on the link's remembered facts: checked under the lock.
        state = locked(_CHECKED_STATE, _facts(link), of=_advert_t).first()
        if state is None or not state.link_ok:
            raise StaleLink
    if state is None:
        state = locked(_BIDDING_STATE, {"advert_id": link.advert_id}, of=_advert_t).one()
    proxy = state.proxy_bidding and (state.maxima_count or maximum is not None)
    # Maxima may be in any currency: then every rate; else the link's own, read with it.
    rates = rates_from(link.instance_id, link.advert_currency) if proxy else link.rates()
    try:
        return _place(link, state, rates, amount, request_key, maximum)
    except MarketError:
        if duplicate := _double_tap(state, link, request_key, rates):
            return duplicate
        raise


def _double_tap(state, link: BidLink, request_key: str, rates: dict) -> BidResult | None:
    """For a refused bid: the first tap's answer again when the request key was used before
    on the link (a double tap, whose first tap raised the next bid or ended the advert by a
    rule). Looked up after the lock, in a statement of its own, so on PostgreSQL (read
    committed) it sees the bid the lock waited for. Accepted bids need no look-up: a second
    insert of the key breaks the unique constraint."""
    if earlier := _earlier_after_lock(state, link.link_id, request_key):
        return BidResult(
            earlier, duplicate=True, next_bid=_next_in(state, rates.get(link.currency))
        )
    return None


def _facts(link: BidLink) -> dict:
    """The parameters that check a remembered link's facts (_LINK_OK, _PG_BID's `facts`)."""
    return {
        "advert_id": link.advert_id, "link_id": link.link_id, "group_id": link.group_id,
        "instance_id": link.instance_id, "advert_currency": link.advert_currency,
        "currency": link.currency, "link_rate": link.rate,
    }  # fmt: skip


def _pg_bid(link: BidLink, amount: int, request_key: str):
    """PostgreSQL, a bid without a maximum: lock, check, insert and update in one round trip
    (a call of market_place_bid, in the session's transaction). Returns the advert's locked
    state and the result, None when the call took no bid: then the lock is still held and the
    general path decides from the state (a refusal's reason, or the maxima that must answer)."""
    rate = link.rates().get(link.currency)
    if rate is None or not 0 < amount <= MAX_AMOUNT:
        return None, None
    advert_amount, now = convert_back(amount, rate), utcnow()
    params = _facts(link) | {
        "now": now, "advert_amount": advert_amount, "user_id": link.user_id,
        "request_key": request_key, "amount": amount, "rate": rate,
    }  # fmt: skip
    row = db.session.connection().execute(_PG_BID, params).first()
    if row is None or not row.link_ok:  # the advert or the link is gone, or a fact changed
        raise StaleLink
    if row.bid_id is None:
        return row, None
    # Who led until this bid (the locked row as it was): the link of its last bid, which is
    # also its highest (every bid tops all before it), read by the same statement.
    lost = row.lost_link
    placed = BidResult(
        PlacedBid(row.bid_id, amount, link.currency, advert_amount, now),
        duplicate=False,
        next_bid=convert_up(advert_amount + row.bid_step, rate),
        leading=True,
        ends_at=row.new_ends_at,
        extended=row.new_ends_at != row.ends_at,
        outbid_links=(lost,) if lost is not None else (),
        outbid_mails=((lost, row.lost_amount, row.lost_currency),) if row.lost_mailed else (),
    )
    return row, placed


def _open_book(link: BidLink, state, rates: dict, now: datetime) -> tuple[_Book, int]:
    """The advert's book for a bid, and the lowest bid it takes in the bidder's currency; or
    MarketError when bidding is closed or the bidder's currency has no rate."""
    if reason := bidding_closed_message(state, now):
        raise MarketError(reason, "BIDDING_CLOSED")
    if (rate := rates.get(link.currency)) is None:
        raise _no_rate(link)
    book = _Book(link, state, rates, now)
    return book, convert_up(book.next, rate)


def _check_amount(link: BidLink, amount: int, minimum: int) -> None:
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
        raise _too_large()


def _place(link: BidLink, state, rates: dict, amount, request_key: str, maximum) -> BidResult:
    now = utcnow()
    book, minimum = _open_book(link, state, rates, now)
    own_lead = state.highest_group_id == link.group_id
    automatic = False
    if maximum is not None:
        if not state.proxy_bidding:
            raise MarketError(_("This advert takes no maximum bids."), "PROXY_OFF")
        if maximum > MAX_AMOUNT:
            raise _too_large()
        floor = amount if amount is not None else minimum
        if maximum < floor:
            raise MarketError(
                _("Your maximum must be at least %(amount)s %(currency)s.",
                  amount=format_amount(floor), currency=link.currency),
                "MAXIMUM_TOO_LOW", next_bid=floor,
            )  # fmt: skip
        if amount is None and not own_lead:
            # A maximum alone: the system bids the minimum for it now (an automatic bid).
            amount, automatic = minimum, True
    if amount is not None:
        _check_amount(link, amount, minimum)
    maxima = (
        _sql(_MAXIMA, {"advert_id": link.advert_id}).all()
        if state.proxy_bidding and (state.maxima_count or maximum is not None)
        else []
    )
    count = state.maxima_count
    own = next((m for m in maxima if m.link_id == link.link_id), None)
    if maximum is not None:
        maxima, count = _set_maximum(link, maxima, own, maximum, now, count)
    placed = None
    if amount is not None:
        placed = book.write(
            link.group_id, link.user_id, link.link_id, link.currency, amount, request_key,
            automatic=automatic,
        )  # fmt: skip
    if maxima:
        _resolve_proxies(book, maxima)
    ends_at, extended = state.ends_at, False
    window = timedelta(seconds=state.soft_close_seconds or 0)
    if book.placed and window and ends_at - now < window:
        ends_at, extended = now + window, True
    if book.placed or count != state.maxima_count:
        _sql(
            _SAVE_STATE,
            {
                "advert_id": link.advert_id, "highest": book.highest, "leader": book.leader,
                "placed": len(book.placed), "maxima": count, "ends": ends_at, "now": now,
            },
        )  # fmt: skip
    outbid, mails = _outbid(link.advert_id, state, book)
    return BidResult(
        placed,
        duplicate=False,
        next_bid=convert_up(book.next, rates[link.currency]),
        leading=book.leader == link.group_id,
        maximum=maximum if maximum is not None else (own.amount if own else None),
        ends_at=ends_at,
        extended=extended,
        outbid_links=outbid,
        outbid_mails=mails,
    )


def _outbid(advert_id: int, state, book: _Book):
    """The links of the companies that lost the lead in this transaction, and what
    bidder_mail.outbid needs of them when the locked state already read it: the usual case,
    where the one company outbid is the leader at the lock that bid nothing since."""
    wrote = {group for group, *_ in book.placed}
    links = []
    for group, link_id in dict(book.outbid).items():
        if group == book.leader:
            continue
        if link_id is None:
            read = group == state.highest_group_id and group not in wrote
            link_id = state.lost_link if read else _last_link(advert_id, group)
        if link_id is not None:
            links.append(link_id)
    if links != [state.lost_link] or state.highest_group_id in wrote:
        return tuple(links), None
    return tuple(links), (
        ((state.lost_link, state.lost_amount, state.lost_currency),) if state.lost_mailed else ()
    )


def _last_link(advert_id: int, group_id: int) -> int | None:
    return _sql(_LAST_LINK_OF_GROUP, {"advert_id": advert_id, "group": group_id}).scalar()


def _set_maximum(link: BidLink, maxima: list, own, maximum: int, now: datetime, count: int):
    """Store or raise the link's maximum; a lower one is refused. Returns the maxima as they
    are now and their count."""
    if own is not None and maximum < own.amount:
        raise MarketError(
            _(
                "A maximum can only be raised. Yours is %(amount)s %(currency)s.",
                amount=format_amount(own.amount),
                currency=own.currency,
            ),
            "MAXIMUM_LOWER",
        )
    if own is not None and maximum == own.amount:
        return maxima, count
    values = {"amount": maximum, "now": now}
    if own is None:
        _sql(
            _INSERT_MAXIMUM,
            {
                "instance_id": link.instance_id, "advert_id": link.advert_id,
                "link_id": link.link_id, "group_id": link.group_id, "user_id": link.user_id,
                "amount": maximum, "currency": link.currency, "set_at": now,
            },
        )  # fmt: skip
        count += 1
        row_id = None
    else:
        _sql(_RAISE_MAXIMUM, values | {"maximum_id": own.id})
        row_id = own.id
    mine = _MaximumRow(
        row_id, link.link_id, link.group_id, link.user_id, maximum, link.currency, now
    )
    return [m for m in maxima if m.link_id != link.link_id] + [mine], count


@dataclass(frozen=True)
class _MaximumRow:
    id: int | None
    link_id: int
    group_id: int
    user_id: int | None
    amount: int
    currency: str
    set_at: datetime


def _next_in(state, rate: Decimal | None) -> int | None:
    return convert_up(next_bid(state), rate) if rate is not None else None


def own_maximum(link_id: int) -> tuple[int, str] | None:
    """The bidder's own maximum on the advert of their link (amount, currency), or None. Only
    the bidder's own page asks for it; no page or call of the seller's does."""
    row = db.session.execute(
        select(_max_t.c.amount, _max_t.c.currency).where(_max_t.c.link_id == link_id)
    ).first()
    return (row.amount, row.currency) if row else None


# --- buy now -------------------------------------------------------------------------------


def buy_now_open(state) -> bool:
    """Buy now is offered while the advert has a price for it and the next bid has not passed
    it (`state`: an Advert or a row with its bidding columns)."""
    return state.buy_now_price is not None and next_bid(state) <= state.buy_now_price


def buy_now(link: BidLink | int, request_key: str) -> BidResult:
    """Take the advert's buy-now price through a bidder's link: serialised like a bid (the
    advert's row lock), the first taker's bid is stored (marked buy now) and the advert is
    allocated to its company at once; any later taker is refused with BOUGHT_BY_OTHER."""
    link = _bid_link(link) if isinstance(link, int) else link
    if not link.checked:
        raise StaleLink
    rates = link.rates()
    rate = rates.get(link.currency)
    state = locked(_BIDDING_STATE, {"advert_id": link.advert_id}, of=_advert_t).one()
    if earlier := _earlier(link.link_id, request_key):
        return BidResult(earlier, duplicate=True, next_bid=None)
    now = utcnow()
    if state.status in ("allocated", "sold") and state.buy_now_price is not None:
        raise MarketError(
            _("Another buyer bought this vehicle first. Bidding has ended."), "BOUGHT_BY_OTHER"
        )
    if reason := bidding_closed_message(state, now):
        raise MarketError(reason, "BIDDING_CLOSED")
    if rate is None:
        raise _no_rate(link)
    if not buy_now_open(state):
        raise MarketError(
            _("This vehicle can no longer be bought at a fixed price; place a bid instead."),
            "BUY_NOW_CLOSED",
        )
    book = _Book(link, state, rates, now)
    amount = convert_up(state.buy_now_price, rate)
    placed = book.write(
        link.group_id, link.user_id, link.link_id, link.currency, amount, request_key,
        buy_now=True,
    )  # fmt: skip
    db.session.execute(
        update(_advert_t)
        .where(_advert_t.c.id == link.advert_id)
        .values(
            status="allocated", allocated_group_id=link.group_id,
            allocated_price=state.buy_now_price, allocated_at=now, ends_at=now,
            highest_bid=placed.advert_amount, highest_group_id=link.group_id,
            bid_count=_advert_t.c.bid_count + 1, modified_at=now,
        )
    )  # fmt: skip
    audit.record(
        "market_advert_bought",
        instance_id=link.instance_id,
        advert=link.advert_id,
        previous=state.status,
        group=link.group_id,
        price=state.buy_now_price,
    )
    return BidResult(placed, duplicate=False, next_bid=None, ends_at=now)


_AMOUNT = parse_pattern("#,##0")  # parsed once, not at every amount


def format_amount(amount: int) -> str:
    """A whole amount grouped as the reader's language writes numbers (190 000 with no-break
    spaces in Swedish, 190.000 in German, 190,000 in English): the current locale, which a
    mail's rendering sets to the recipient's."""
    return _AMOUNT.apply(amount, get_locale())


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
    if advert.status == "provisional":
        raise MarketError(provisional_message(), "ILLEGAL_STATUS")
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
    if advert.status == "provisional":
        raise MarketError(provisional_message(), "ILLEGAL_STATUS")
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
        from app.market.watch import advert_published  # watch builds on this module

        advert.published_at = now
        advert_published(advert)  # first time on the market: the saved searches are matched
    if status == "sold":
        advert.sold_at = now
    if previous == "allocated" and status == "closed":
        advert.allocated_group_id = advert.allocated_price = advert.allocated_at = None
        advert.allocated_notes = None
    return _recorded("market_advert_status", advert, previous, user_id, status=status)


def provisional_message() -> str:
    """Why a provisional sale's status is not changed or allocated by hand: the seller's
    decision (app.market.reserve) is made on the advert's page."""
    return _(
        "Bidding ended under your reserve: accept, decline or counter the highest bid on the "
        "advert's page in DealerCare. Its status follows your decision."
    )


def allowed_statuses(advert: Advert) -> tuple[str, ...]:
    return TRANSITIONS[advert.status]


def save_bid(
    link: BidLink | int,
    amount: int | None,
    request_key: str,
    maximum: int | None = None,
    notify: Callable[[BidResult], None] | None = None,
) -> BidResult:
    """place_bid and commit; a double tap that raced past the lookup returns the first bid.
    `notify(result)` runs inside the transaction, before the commit: the mails it stores are
    there exactly when the bid is (and on SQLite it writes under the lock the bid holds)."""
    link = _bid_link(link) if isinstance(link, int) else link
    return _committed(link, request_key, notify, place_bid, amount, request_key, maximum)


def save_buy_now(
    link: BidLink | int, request_key: str, notify: Callable[[BidResult], None] | None = None
) -> BidResult:
    """buy_now and commit (a double tap: the first answer again); `notify` as for save_bid."""
    link = _bid_link(link) if isinstance(link, int) else link
    return _committed(link, request_key, notify, buy_now, request_key)


def _committed(link: BidLink, request_key: str, notify, action, *args) -> BidResult:
    try:
        result = action(link, *args)
        if not result.duplicate:  # whoever lost the lead is told, by a mail sent after the commit
            bidder_mail.outbid(link.advert_id, result.outbid_links, result.outbid_mails)
            if notify is not None:
                notify(result)
        db.session.commit()
        return result
    except IntegrityError:
        db.session.rollback()
        earlier = _earlier(link.link_id, request_key)
        if earlier is None:
            raise
        return BidResult(earlier, duplicate=True, next_bid=None)
