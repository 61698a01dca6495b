"""Where bids are stored: every statement of the bid path behind one interface, BidStore.

A bid, a maximum and buy now read the advert's state under its row lock, write bids and maxima
and save the advert's new state. The store does each with a Core statement built once on the
tables (no ORM objects: building and loading them per request cost more CPU than the database
work, bench/market_bid_profile.py), on the session's connection, in its transaction; the ORM's
execute (whose tenancy criteria reach ORM entities only) would add nothing to them. They name
their tables and ids.

On PostgreSQL the store also takes a bid without maxima in one round trip (`place_in_one_call`:
the function market_place_bid locks, checks, inserts and updates; migration c95894507d20 has its
statement and the reasons for a function, 9d3f5a7c2e14 the bid's count in its month). What it
refuses, the caller explains from the state it returns, under the lock it still holds. Elsewhere
the store has no such call (None). Every stored bid is counted in its seller's month
(app.market.bid_totals) in the bid's transaction: by that function, else by `Book.count`."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from sqlalchemy import and_, bindparam, exists, insert, select, text, update

from app.core.locking import locked
from app.extensions import db
from app.market.bid_totals import count_bid
from app.market.links import BidLink, StaleLink
from app.market.models import (
    Advert,
    AdvertBid,
    AdvertMaximum,
    ExchangeRate,
    InstanceGroup,
    MarketLink,
)
from app.market.rates import convert_back

_rate_t, _advert_t, _link_t, _group_t, _bid_t = (
    m.__table__ for m in (ExchangeRate, Advert, MarketLink, InstanceGroup, AdvertBid)
)
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
# The locked state, with whether a remembered link's facts still hold (as market_place_bid's
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


_OWN_MAXIMUM = select(_max_t.c.amount, _max_t.c.currency).where(
    _max_t.c.link_id == bindparam("link_id")
)


@dataclass(frozen=True)
class PlacedBid:
    id: int
    amount: int
    currency: str
    advert_amount: int
    created_at: datetime


def facts(link: BidLink) -> dict:
    """The parameters that check a remembered link's facts (_LINK_OK, market_place_bid's `facts`)."""
    return {
        "advert_id": link.advert_id, "link_id": link.link_id, "group_id": link.group_id,
        "instance_id": link.instance_id, "advert_currency": link.advert_currency,
        "currency": link.currency, "link_rate": link.rate,
    }  # fmt: skip


class BidStore:
    """The bid path's reads and writes of one advert, in the session's transaction."""

    @staticmethod
    def _run(statement, params: dict | None = None):
        return db.session.connection().execute(statement, params)

    def locked_state(self, link: BidLink):
        """The advert's state (_BIDDING_STATE's columns), its row locked until the transaction
        ends. A link remembered from an earlier request (`checked` False) is checked under the
        lock: StaleLink when a fact changed or the link is gone."""
        if link.checked:
            return locked(_BIDDING_STATE, {"advert_id": link.advert_id}, of=_advert_t).one()
        state = locked(_CHECKED_STATE, facts(link), of=_advert_t).first()
        if state is None or not state.link_ok:
            raise StaleLink
        return state

    def place_in_one_call(self, link: BidLink, values: dict):
        """A bid without maxima locked, checked, stored and the advert updated in one round
        trip: the state the call read under the lock, with `bid_id` None when it took no bid
        (the lock is still held). None: this store has no such call."""
        return None

    def earlier(self, link_id: int, request_key: str) -> PlacedBid | None:
        """The bid the link stored with this request key, if any."""
        row = self._run(_EARLIER, {"link_id": link_id, "key": request_key}).first()
        return PlacedBid(*row) if row else None

    def insert_bid(self, values: dict) -> int:
        return self._run(_INSERT_BID, values).scalar_one()

    def maxima(self, advert_id: int) -> list:
        """The advert's maxima, the earliest set first."""
        return self._run(_MAXIMA, {"advert_id": advert_id}).all()

    def insert_maximum(self, values: dict) -> None:
        self._run(_INSERT_MAXIMUM, values)

    def raise_maximum(self, maximum_id: int, amount: int, now: datetime) -> None:
        self._run(_RAISE_MAXIMUM, {"maximum_id": maximum_id, "amount": amount, "now": now})

    def own_maximum(self, link_id: int):
        """The link's maximum (amount, currency), or None."""
        return self._run(_OWN_MAXIMUM, {"link_id": link_id}).first()

    def save_state(self, values: dict) -> None:
        """The advert's highest bid, leader, counts and end after a bid (_SAVE_STATE)."""
        self._run(_SAVE_STATE, values)

    def last_link(self, advert_id: int, group_id: int) -> int | None:
        """The link of a group's last bid on the advert (its highest)."""
        return self._run(_LAST_LINK_OF_GROUP, {"advert_id": advert_id, "group": group_id}).scalar()

    def mark_bought(self, link: BidLink, price: int, placed: PlacedBid, now: datetime) -> None:
        """Buy now: the advert allocated to the buyer's company at its price, bidding ended."""
        self._run(
            update(_advert_t)
            .where(_advert_t.c.id == link.advert_id)
            .values(
                status="allocated", allocated_group_id=link.group_id, allocated_price=price,
                allocated_at=now, ends_at=now, highest_bid=placed.advert_amount,
                highest_group_id=link.group_id, bid_count=_advert_t.c.bid_count + 1,
                modified_at=now,
            )
        )  # fmt: skip


class PostgresStore(BidStore):
    def place_in_one_call(self, link: BidLink, values: dict):
        row = self._run(_PG_BID, facts(link) | values).first()
        if row is None or not row.link_ok:  # the advert or the link is gone, or a fact changed
            raise StaleLink
        return row


_STORES = {"postgresql": PostgresStore()}
_GENERAL = BidStore()


def store() -> BidStore:
    """The store for the session's database."""
    return _STORES.get(db.engine.dialect.name, _GENERAL)


class Book:
    """The bid transaction's view of one advert under its lock: the highest bid and its group,
    and the bids written so far (each its own row, never changed afterwards)."""

    def __init__(
        self, store: BidStore, link: BidLink, state, rates: dict[str, Decimal], now: datetime
    ) -> None:
        self.store, self.link, self.rates, self.now = store, link, rates, now
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
        bid_id = self.store.insert_bid(values)
        if self.leader is not None and self.leader != group_id:
            self.outbid.append((self.leader, self.leader_link))
        self.highest, self.leader, self.leader_link = advert_amount, group_id, link_id
        self.placed.append((group_id, link_id, automatic))
        return PlacedBid(bid_id, amount, currency, advert_amount, self.now)

    def count(self) -> None:
        """The bids written, counted in the seller's month (app.market.bid_totals): one row
        per company, in the order of their ids, so that two transactions that count for the
        same companies never wait for each other's rows the other way round."""
        for group_id, n in sorted(Counter(group for group, *_ in self.placed).items()):
            count_bid(self.link.advert_id, group_id, self.now, n)
