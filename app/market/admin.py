"""The market's own pages for signed-in users: the dashboard's key numbers, the statistics, the
settings (exchange rates, bid step, invitation terms), invites and vehicle requests.

Every figure is one grouped query over the group's adverts and bids, never one per advert or
per company, so a page costs the same number of queries however much the market grows. A
seller's adverts and bids live in the seller's instance; a buyer's figures read across
instances (`all_instances`), always narrowed by the buyer's own group or its partner sellers.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

from sqlalchemy import and_, case, delete, exists, func, literal, or_, select

from app.core.models import utcnow
from app.extensions import db
from app.market.groups import partner_seller_ids
from app.market.models import (
    CURRENCIES,
    Advert,
    AdvertBid,
    ExchangeRate,
    InstanceGroup,
    MarketInvite,
    MarketPartner,
    VehicleRequest,
)

ENDING_SOON = 5
WON = ("allocated", "sold")


def _count(condition):
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


# --- dashboard ---------------------------------------------------------------------------------


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
            _count(_open(now)),
            bids_week,
            _count(or_(and_(ended, Advert.bid_count > 0), deciding)),
            _count(Advert.status == "allocated"),
            _count(sold_month),
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
            _count(and_(partner, _open(now))),
            _count(and_(partner, _open(now), _leads(group.id))),
            _count(and_(mine, Advert.status == "allocated")),
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
    bids = (
        select(AdvertBid.group_id.label("group_id"), func.count(AdvertBid.id).label("bids"))
        .join(Advert, Advert.id == AdvertBid.advert_id)
        .where(Advert.seller_group_id == group.id, AdvertBid.created_at >= start)
        .group_by(AdvertBid.group_id)
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
            _count(won),
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


def other_currencies(group: InstanceGroup) -> list[str]:
    return [c for c in CURRENCIES if c != group.currency]


def exchange_rates(group: InstanceGroup) -> dict[str, ExchangeRate]:
    """The group's rates from its own currency, by the currency they lead to."""
    rows = db.session.scalars(
        select(ExchangeRate).where(
            ExchangeRate.instance_id == group.instance_id,
            ExchangeRate.currency == group.currency,
        )
    )
    return {r.to_currency: r for r in rows}


def save_settings(
    group: InstanceGroup,
    rates: dict[str, Decimal | None],
    bid_step: int,
    invite_terms: str | None,
    **defaults,
) -> None:
    """Store the rates (None removes one), the default bid step and the invitation terms, and
    the advert defaults given by name (proxy_bidding, soft_close_seconds, rate_max_age_days)."""
    existing = exchange_rates(group)
    removed = [c for c, rate in rates.items() if rate is None and c in existing]
    if removed:
        db.session.execute(
            delete(ExchangeRate).where(
                ExchangeRate.instance_id == group.instance_id,
                ExchangeRate.currency == group.currency,
                ExchangeRate.to_currency.in_(removed),
            )
        )
    for to_currency, rate in rates.items():
        if rate is None:
            continue
        row = existing.get(to_currency)
        if row is None:
            db.session.add(
                ExchangeRate(
                    instance_id=group.instance_id,
                    currency=group.currency,
                    to_currency=to_currency,
                    rate=rate,
                )
            )
        elif Decimal(row.rate) != rate:
            row.rate = rate
            row.modified_at = utcnow()
    group.bid_step = bid_step
    group.invite_terms = (invite_terms or "").strip() or None
    for name, value in defaults.items():
        if value is not None:  # a number left empty keeps its value
            setattr(group, name, value)
    db.session.flush()


# --- invites -----------------------------------------------------------------------------------


@dataclass
class Partner:
    name: str
    country_code: str
    currency: str
    since: datetime


def invites(group: InstanceGroup) -> list[MarketInvite]:
    """The seller's invites, newest first."""
    return list(
        db.session.scalars(
            select(MarketInvite)
            .where(MarketInvite.seller_group_id == group.id)
            .order_by(MarketInvite.created_at.desc(), MarketInvite.id.desc())
        )
    )


def partners(group: InstanceGroup) -> list[Partner]:
    """The buyer companies that trade with the seller, by name (across instances)."""
    rows = db.session.execute(
        select(
            InstanceGroup.name,
            InstanceGroup.country_code,
            InstanceGroup.currency,
            MarketPartner.created_at,
        )
        .join(MarketPartner, MarketPartner.buyer_group_id == InstanceGroup.id)
        .where(MarketPartner.seller_group_id == group.id)
        .order_by(InstanceGroup.name, InstanceGroup.id)
        .execution_options(all_instances=True)
    )
    return [Partner(*row) for row in rows]


def invitable_companies(group: InstanceGroup, user) -> list[tuple[int, str]]:
    """Companies on the platform the seller may invite as such: the buyer companies the signed-in
    user works for besides the seller (what the user already knows), that are not partners yet;
    id and name only. Any other company is invited through the e-mail address of one of its
    people, whose administrator then answers signed in."""
    partners_ = select(MarketPartner.buyer_group_id).where(
        MarketPartner.seller_group_id == group.id
    )
    own = [i.id for i in user.instances if i.id != group.instance_id]
    if not own:
        return []
    rows = db.session.execute(
        select(InstanceGroup.id, InstanceGroup.name)
        .where(
            InstanceGroup.instance_id.in_(own),
            InstanceGroup.buyer.is_(True),
            InstanceGroup.id != group.id,
            InstanceGroup.id.not_in(partners_),
        )
        .order_by(InstanceGroup.name, InstanceGroup.id)
        .execution_options(all_instances=True)
    )
    return [(gid, name) for gid, name in rows]


def invitable_group(group: InstanceGroup, user, group_id: int) -> InstanceGroup | None:
    """The buyer group a seller may invite by its id, or None."""
    if not any(gid == group_id for gid, _name in invitable_companies(group, user)):
        return None
    return db.session.scalar(
        select(InstanceGroup)
        .where(InstanceGroup.id == group_id)
        .execution_options(all_instances=True)
    )


def open_invite_exists(group: InstanceGroup, email: str) -> bool:
    """Whether the seller already has an open invite to this e-mail address."""
    found = db.session.scalar(
        select(literal(1)).where(
            exists().where(
                MarketInvite.seller_group_id == group.id,
                func.lower(MarketInvite.email) == email.strip().lower(),
                MarketInvite.accepted_at.is_(None),
                MarketInvite.denied_at.is_(None),
            )
        )
    )
    return found is not None


# --- vehicle requests --------------------------------------------------------------------------


@dataclass
class PartnerRequest:
    request: VehicleRequest
    company: str
    matching: int


def own_requests(group: InstanceGroup) -> list[VehicleRequest]:
    """The buyer's own requests, active ones first, newest first."""
    return list(
        db.session.scalars(
            select(VehicleRequest)
            .where(VehicleRequest.group_id == group.id)
            .order_by(
                VehicleRequest.active.desc(),
                VehicleRequest.created_at.desc(),
                VehicleRequest.id.desc(),
            )
        )
    )


def partner_requests(group: InstanceGroup) -> list[PartnerRequest]:
    """The active requests of the seller's partner buyers, with the number of the seller's own
    published or draft adverts of that brand (and model, when the request names one)."""
    same_model = or_(
        VehicleRequest.model.is_(None),
        VehicleRequest.model == "",
        func.lower(Advert.model) == func.lower(VehicleRequest.model),
    )
    matching = (
        select(func.count(Advert.id))
        .where(
            Advert.seller_group_id == group.id,
            Advert.status.in_(("published", "draft")),
            func.lower(Advert.brand) == func.lower(VehicleRequest.brand),
            same_model,
        )
        .correlate(VehicleRequest)
        .scalar_subquery()
    )
    buyers = select(MarketPartner.buyer_group_id).where(MarketPartner.seller_group_id == group.id)
    rows = db.session.execute(
        select(VehicleRequest, InstanceGroup.name, matching)
        .join(InstanceGroup, InstanceGroup.id == VehicleRequest.group_id)
        .where(VehicleRequest.group_id.in_(buyers), VehicleRequest.active.is_(True))
        .order_by(VehicleRequest.created_at.desc(), VehicleRequest.id.desc())
        .execution_options(all_instances=True)
    ).all()
    return [PartnerRequest(r, name, int(n or 0)) for r, name, n in rows]


def known_brands(group: InstanceGroup) -> list[str]:
    """The brands the buyer's sellers have advertised, as suggestions for a request."""
    brands = db.session.scalars(
        select(Advert.brand)
        .where(Advert.seller_group_id.in_(partner_seller_ids(group.id)))
        .group_by(Advert.brand)
        .order_by(Advert.brand)
        .limit(200)
        .execution_options(all_instances=True)
    )
    return [b for b in brands if b]


def own_request(group: InstanceGroup, request_id: int) -> VehicleRequest | None:
    """One of the buyer's own requests (None for any other, in any instance)."""
    return db.session.scalar(
        select(VehicleRequest).where(
            VehicleRequest.id == request_id, VehicleRequest.group_id == group.id
        )
    )


def add_request(group: InstanceGroup, user_id: int, **values) -> VehicleRequest:
    """A new active request in the buyer's currency."""
    text = {k: (v.strip() or None) if isinstance(v, str) else v for k, v in values.items()}
    request = VehicleRequest(
        group_id=group.id,
        currency=group.currency,
        created_by_id=user_id,
        active=True,
        **text,
    )
    db.session.add(request)
    db.session.flush()
    return request


def set_request_active(request: VehicleRequest, active: bool) -> None:
    request.active = active
    db.session.flush()
