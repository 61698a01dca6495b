"""The market's statistics page: twelve months of a seller's or a buyer's adverts, bids and
deals, by month and by company, in the group's own currency.

Like the key figures (app.market.figures), each table is one grouped query whatever the size
of the market; a buyer's rows read across the sellers' instances.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_UP, Decimal

from sqlalchemy import and_, case, func, or_, select

from app.core.models import utcnow
from app.extensions import db
from app.market.figures import count_where
from app.market.models import (
    Advert,
    AdvertBid,
    AdvertBidMonth,
    ExchangeRate,
    InstanceGroup,
    MarketPartner,
)

WON = ("allocated", "sold")


def _month(column):
    """The UTC year and month of a timestamp column as 'YYYY-MM'."""
    if db.session.get_bind().dialect.name == "postgresql":
        return func.to_char(func.timezone("UTC", column), "YYYY-MM")
    return func.strftime("%Y-%m", column)


def twelve_months(today: date) -> list[date]:
    """The first days of the last twelve months, oldest first, this month last."""
    months = []
    year, month = today.year, today.month
    for _ in range(12):
        months.append(date(year, month, 1))
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return months[::-1]


@dataclass
class SellerMonth:
    month: date
    published: int = 0
    average_bids: float | None = None
    sold: int = 0
    sold_value: int = 0
    average_price: int | None = None
    average_start: int | None = None

    @property
    def price_change(self) -> float | None:
        """How far the average sale price lies above (or below) the average start price, %."""
        if not self.average_price or not self.average_start:
            return None
        return (self.average_price - self.average_start) / self.average_start * 100


@dataclass
class CompanyRow:
    name: str
    bids: int = 0
    won: int = 0
    value: int = 0
    currency: str = ""


@dataclass
class BuyerMonth:
    month: date
    bids: int = 0
    adverts: int = 0
    won: int = 0
    spent: int = 0


@dataclass
class SellerStatistics:
    months: list[SellerMonth]
    buyers: list[CompanyRow]
    currency: str

    @property
    def totals(self) -> SellerMonth:
        published = sum(m.published for m in self.months)
        sold = sum(m.sold for m in self.months)
        return SellerMonth(
            self.months[0].month, published, None, sold, sum(m.sold_value for m in self.months)
        )


@dataclass
class BuyerStatistics:
    months: list[BuyerMonth]
    sellers: list[CompanyRow]
    currency: str
    # Won amounts in a currency the buyer's own could not be reached from (no seller rate).
    unconverted: dict[str, int] = field(default_factory=dict)

    @property
    def totals(self) -> BuyerMonth:
        return BuyerMonth(
            self.months[0].month,
            sum(m.bids for m in self.months),
            sum(m.adverts for m in self.months),
            sum(m.won for m in self.months),
            sum(m.spent for m in self.months),
        )


def _period(today: date) -> tuple[list[date], datetime, dict[str, int]]:
    months = twelve_months(today)
    start = datetime(months[0].year, months[0].month, 1, tzinfo=UTC)
    return months, start, {m.strftime("%Y-%m"): i for i, m in enumerate(months)}


def _whole(value) -> int | None:
    return None if value is None else int(Decimal(str(value)).to_integral_value(ROUND_HALF_UP))


def seller_statistics(group: InstanceGroup, today: date | None = None) -> SellerStatistics:
    """Per month: adverts published and their bids, adverts sold, their value and prices; per
    buyer company: bids, adverts won and their value (three queries)."""
    months, start, index = _period(today or utcnow().date())
    rows = [SellerMonth(m) for m in months]
    published = _month(Advert.published_at)
    for key, count, bids in db.session.execute(
        select(published, func.count(Advert.id), func.avg(Advert.bid_count))
        .where(Advert.seller_group_id == group.id, Advert.published_at >= start)
        .group_by(published)
    ):
        if key in index:
            row = rows[index[key]]
            row.published, row.average_bids = int(count), float(bids or 0)
    sold = _month(Advert.sold_at)
    for key, count, total, price, start_price in db.session.execute(
        select(
            sold,
            func.count(Advert.id),
            func.sum(Advert.allocated_price),
            func.avg(Advert.allocated_price),
            func.avg(Advert.start_price),
        )
        .where(Advert.seller_group_id == group.id, Advert.status == "sold", Advert.sold_at >= start)
        .group_by(sold)
    ):
        if key in index:
            row = rows[index[key]]
            row.sold, row.sold_value = int(count), int(total or 0)
            row.average_price, row.average_start = _whole(price), _whole(start_price)
    # The bids per buyer and month as they were counted when placed (app.market.bid_totals):
    # a row per company and month, not the year's bids.
    bids = (
        select(
            AdvertBidMonth.buyer_group_id.label("group_id"),
            func.sum(AdvertBidMonth.bids).label("bids"),
        )
        .where(AdvertBidMonth.seller_group_id == group.id, AdvertBidMonth.month >= months[0])
        .group_by(AdvertBidMonth.buyer_group_id)
        .subquery()
    )
    won = (
        select(
            Advert.allocated_group_id.label("group_id"),
            func.count(Advert.id).label("won"),
            func.sum(Advert.allocated_price).label("value"),
        )
        .where(
            Advert.seller_group_id == group.id,
            Advert.status.in_(WON),
            Advert.allocated_at >= start,
        )
        .group_by(Advert.allocated_group_id)
        .subquery()
    )
    partners = select(MarketPartner.buyer_group_id).where(MarketPartner.seller_group_id == group.id)
    buyers = db.session.execute(
        select(InstanceGroup.name, bids.c.bids, won.c.won, won.c.value)
        .outerjoin(bids, bids.c.group_id == InstanceGroup.id)
        .outerjoin(won, won.c.group_id == InstanceGroup.id)
        .where(
            or_(
                InstanceGroup.id.in_(partners),
                bids.c.group_id.is_not(None),
                won.c.group_id.is_not(None),
            )
        )
        .order_by(InstanceGroup.name, InstanceGroup.id)
        .execution_options(all_instances=True)
    ).all()
    return SellerStatistics(
        rows,
        [
            CompanyRow(name, int(b or 0), int(w or 0), int(v or 0), group.currency)
            for name, b, w, v in buyers
        ],
        group.currency,
    )


def buyer_statistics(group: InstanceGroup, today: date | None = None) -> BuyerStatistics:
    """Per month: the buyer's bids, the adverts it bid on, the adverts it won and what they
    cost in its own currency (at the seller's rate); per seller company: bids, won and spent
    in the seller's currency (four queries across the sellers' instances)."""
    months, start, index = _period(today or utcnow().date())
    rows = [BuyerMonth(m) for m in months]
    every = {"all_instances": True}
    placed = _month(AdvertBid.created_at)
    for key, count, adverts in db.session.execute(
        select(placed, func.count(AdvertBid.id), func.count(func.distinct(AdvertBid.advert_id)))
        .where(AdvertBid.group_id == group.id, AdvertBid.created_at >= start)
        .group_by(placed)
        .execution_options(**every)
    ):
        if key in index:
            rows[index[key]].bids, rows[index[key]].adverts = int(count), int(adverts)
    allocated = _month(Advert.allocated_at)
    won_rows = db.session.execute(
        select(
            allocated,
            Advert.instance_id,
            Advert.currency,
            func.count(Advert.id),
            func.sum(Advert.allocated_price),
        )
        .where(
            Advert.allocated_group_id == group.id,
            Advert.status.in_(WON),
            Advert.allocated_at >= start,
        )
        .group_by(allocated, Advert.instance_id, Advert.currency)
        .execution_options(**every)
    ).all()
    rates = _rates_to(group.currency, {(i, c) for _k, i, c, _n, _s in won_rows})
    unconverted: dict[str, int] = defaultdict(int)
    for key, instance_id, currency, count, total in won_rows:
        if key not in index:
            continue
        row = rows[index[key]]
        row.won += int(count)
        rate = rates.get((instance_id, currency))
        if rate is None:
            unconverted[currency] += int(total or 0)
        else:
            row.spent += _whole(Decimal(int(total or 0)) * rate)
    bids = (
        select(AdvertBid.advert_id.label("advert_id"), func.count(AdvertBid.id).label("bids"))
        .where(AdvertBid.group_id == group.id, AdvertBid.created_at >= start)
        .group_by(AdvertBid.advert_id)
        .subquery()
    )
    won = and_(
        Advert.allocated_group_id == group.id,
        Advert.status.in_(WON),
        Advert.allocated_at >= start,
    )
    sellers = db.session.execute(
        select(
            InstanceGroup.name,
            InstanceGroup.currency,
            func.coalesce(func.sum(bids.c.bids), 0),
            count_where(won),
            func.coalesce(func.sum(case((won, Advert.allocated_price), else_=0)), 0),
        )
        .select_from(Advert)
        .join(InstanceGroup, InstanceGroup.id == Advert.seller_group_id)
        .outerjoin(bids, bids.c.advert_id == Advert.id)
        .where(or_(bids.c.advert_id.is_not(None), won))
        .group_by(InstanceGroup.id, InstanceGroup.name, InstanceGroup.currency)
        .order_by(InstanceGroup.name, InstanceGroup.id)
        .execution_options(**every)
    ).all()
    return BuyerStatistics(
        rows,
        [CompanyRow(n, int(b), int(w), int(v), cur) for n, cur, b, w, v in sellers],
        group.currency,
        dict(unconverted),
    )


def _rates_to(currency: str, pairs: set[tuple[int, str]]) -> dict[tuple[int, str], Decimal]:
    """What 1 unit of each (seller instance, currency) is worth in `currency`: 1 for the same
    currency, else the seller's own rate (one query for every seller)."""
    found = {(i, c): Decimal(1) for i, c in pairs if c == currency}
    wanted = {(i, c) for i, c in pairs if c != currency}
    if wanted:
        rows = db.session.execute(
            select(ExchangeRate.instance_id, ExchangeRate.currency, ExchangeRate.rate)
            .where(
                ExchangeRate.instance_id.in_({i for i, _c in wanted}),
                ExchangeRate.to_currency == currency,
                ExchangeRate.rate > 0,
            )
            .execution_options(all_instances=True)
        )
        for instance_id, from_currency, rate in rows:
            if (instance_id, from_currency) in wanted:
                found[(instance_id, from_currency)] = Decimal(rate)
    return found


# --- settings ----------------------------------------------------------------------------------
