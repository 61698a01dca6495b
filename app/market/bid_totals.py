"""Bids per seller group, buyer group and UTC month (advert_bid_month), kept as bids are stored.

The market statistics count a year of a seller's bids per buyer company; reading the bids
themselves grows with the market (a year of a large group's adverts holds hundreds of thousands).
Every stored bid adds one to its row here, in the bid's own transaction: `count_bid` from the
bid store's insert (app.market.bid_store), and on PostgreSQL the function market_place_bid
(migration 9d3f5a7c2e14) for a bid without maxima. Bids are never updated or deleted; a deleted
group takes its rows with it (ON DELETE CASCADE), as it takes its bids and adverts.

`recount` builds the rows again from the bids in one statement: for data loaded without the bid
path (the demo, bench/scale_data.py's COPY).
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from sqlalchemy import Date, Integer, bindparam, delete, func, literal_column, select
from sqlalchemy.dialects import postgresql, sqlite

from app.extensions import db
from app.market.models import Advert, AdvertBid, AdvertBidMonth

_t, _advert_t, _bid_t = AdvertBidMonth.__table__, Advert.__table__, AdvertBid.__table__
_KEY = ("seller_group_id", "buyer_group_id", "month")
_COLUMNS = ("instance_id", *_KEY, "bids")
_INSERTS = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


def _add_statement(dialect: str):
    """INSERT ... SELECT from the advert's row (its instance and seller), adding to the row of
    the same key when there is one."""
    stmt = _INSERTS[dialect](_t).from_select(
        _COLUMNS,
        select(
            _advert_t.c.instance_id,
            _advert_t.c.seller_group_id,
            bindparam("group_id", type_=Integer),
            bindparam("month", type_=Date),
            bindparam("n", type_=Integer),
        ).where(_advert_t.c.id == bindparam("advert_id")),  # (a WHERE: SQLite's upsert needs it)
    )
    return stmt.on_conflict_do_update(
        index_elements=[_t.c[name] for name in _KEY],
        set_={"bids": _t.c.bids + stmt.excluded.bids},
    )


_ADD = {name: _add_statement(name) for name in _INSERTS}


def month_of(moment: datetime) -> date:
    """The first day of a timestamp's month in UTC."""
    moment = moment.astimezone(UTC)
    return date(moment.year, moment.month, 1)


def count_bid(advert_id: int, group_id: int, placed_at: datetime, n: int = 1) -> None:
    """Add `n` bids of a buyer group on an advert, placed at `placed_at` (UTC), to the
    seller's month; in the session's transaction."""
    db.session.connection().execute(
        _ADD[db.engine.dialect.name],
        {"advert_id": advert_id, "group_id": group_id, "month": month_of(placed_at), "n": n},
    )


def _bid_month():
    if db.engine.dialect.name == "postgresql":
        return func.date_trunc("month", func.timezone("UTC", _bid_t.c.created_at)).cast(Date)
    return func.date(_bid_t.c.created_at, literal_column("'start of month'"))


def recount(instance_id: int | None = None) -> None:
    """The rows built again from the bids (of one seller instance, or all), set-based."""
    drop, bids = delete(_t), _bid_t.join(_advert_t, _advert_t.c.id == _bid_t.c.advert_id)
    key = (_advert_t.c.instance_id, _advert_t.c.seller_group_id, _bid_t.c.group_id, _bid_month())
    totals = select(*key, func.count()).select_from(bids).group_by(*key)
    if instance_id is not None:
        drop = drop.where(_t.c.instance_id == instance_id)
        totals = totals.where(_advert_t.c.instance_id == instance_id)
    connection = db.session.connection()
    connection.execute(drop)
    connection.execute(_t.insert().from_select(_COLUMNS, totals))
