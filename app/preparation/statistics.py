"""The statistics of a module: throughput, days per state and per station, stock days and
sales per salesperson.

Each figure is one grouped query over the state events, the station tasks or the items of the
chosen divisions (never one query per item); the grouping into weeks and months and the labels
are made here from per-day counts. The figures of a period read that period's rows through
their time index and reach each row's vehicle by its key (`of_item`), so their cost grows with
the period's activity, not with the years of history (issue 34). The page reads the same
figures from monthly totals (statistics_totals.py, issue 33); these count them from the rows:
the reference its tests compare with, and stock days and the future events it still reads.
"""

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import Float, and_, case, cast, func, select, type_coerce

from app.core.cache import LRUCache
from app.core.localized import for_reader
from app.core.models import UTCDateTime, utcnow
from app.core.settings import SettingRow
from app.core.workdays import DayCounter, average_days, calendar_days
from app.extensions import db
from app.preparation.models import ItemStateEvent, ItemStationTask, PreparationItem, Station
from app.preparation.states import STATES

FLOW, SOLD = 4, 7
IN_STOCK = (2, 3, 4, 5, 6)  # from incoming to showroom: bought, not yet sold
MEASURE_TO_DELIVERED = "measureToDelivered"  # the module option (off unless switched on)
UNTIL_DELIVERED = (7, 8)  # sold, not yet delivered: in stock when measureToDelivered is on
# Stock-day buckets: (lowest day, highest day or None for open-ended).
STOCK_BUCKETS = ((0, 30), (31, 60), (61, 90), (91, 120), (121, 180), (181, None))


def stock_states(instance, module: str) -> tuple[int, ...]:
    """The states of the vehicles in stock: bought and not sold, or with measureToDelivered
    not delivered."""
    if instance is not None and instance.module_option(module, MEASURE_TO_DELIVERED, False):
        return IN_STOCK + UNTIL_DELIVERED
    return IN_STOCK


def _dialect() -> str:
    return db.session.get_bind().dialect.name


def _days_between(later, earlier, dialect: str | None = None):
    """Days from `earlier` to `later` as a fraction, in the database's own date arithmetic
    (`dialect`'s: a migration's connection; else the session's)."""
    if (dialect or _dialect()) == "postgresql":
        return func.extract("epoch", later - earlier) / 86400.0
    return func.julianday(later) - func.julianday(earlier)


def _utc_day(column, dialect: str | None = None):
    """The UTC calendar day of a timestamp column."""
    if (dialect or _dialect()) == "postgresql":
        return func.date(func.timezone("UTC", column))
    return func.date(column)


def _as_date(value) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])


def period_start(today: date) -> date:
    """The first day of the month eleven months before `today`'s: twelve months in all."""
    year, month = today.year, today.month - 11
    if month < 1:
        year, month = year - 1, month + 12
    return date(year, month, 1)


def _start_of(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=utcnow().tzinfo)


def of_item(column, item_id, module: str):
    """`column` of the vehicle `item_id` when that vehicle is the (instance's) module's, else
    NULL: a correlated subquery that looks the vehicle up by its key, once per row. The
    statistics start from a period's rows (events, tasks, cost lines) read through their time
    index and reach their vehicles this way. A join (or IN, EXISTS) in its place is planned,
    over a year of rows, as a hash of every vehicle of the module: a whole read of
    preparation_item that grows with the years kept (issue 34, tests/scale/test_plans.py)."""
    return (
        select(column)
        .where(PreparationItem.id == item_id, PreparationItem.module == module)
        .correlate_except(PreparationItem)
        .scalar_subquery()
    )


# --- throughput ------------------------------------------------------------------------------


@dataclass
class Throughput:
    """Vehicles entering the flow and sold, per month and per ISO week."""

    months: list[date]  # first day of each month
    weeks: list[date]  # Monday of each ISO week
    entered_month: list[int]
    sold_month: list[int]
    entered_week: list[int]
    sold_week: list[int]

    @property
    def total_entered(self) -> int:
        return sum(self.entered_month)

    @property
    def total_sold(self) -> int:
        return sum(self.sold_month)


def flow_days(module: str, division_ids: list[int], since: datetime) -> list[tuple]:
    """(kind, day, count) of the items entering the flow ("entered": state 4, not coming back
    from parked or showroom) and sold ("sold": state 7) from `since` on, per UTC day."""
    day = _utc_day(ItemStateEvent.created_at).label("day")
    entering = and_(
        ItemStateEvent.to_state == FLOW,
        func.coalesce(ItemStateEvent.from_state, 0) < FLOW,
    )
    kind = case((entering, "entered"), else_="sold").label("kind")
    rows = db.session.execute(
        select(kind, day, func.count())
        .where(
            of_item(PreparationItem.division_id, ItemStateEvent.item_id, module).in_(division_ids),
            ItemStateEvent.created_at >= since,
            entering | (ItemStateEvent.to_state == SOLD),
        )
        .group_by(kind, day)
    ).all()
    return [(kind_value, _as_date(raw_day), n) for kind_value, raw_day, n in rows]


def throughput(module: str, division_ids: list[int], today: date | None = None) -> Throughput:
    """Items entering the flow and items sold per month and week over the last twelve
    months (flow_days)."""
    today = today or utcnow().date()
    since = period_start(today)
    rows = flow_days(module, division_ids, _start_of(since))
    months = _months(since, today)
    weeks = _weeks(since, today)
    per = {
        ("entered", "month"): defaultdict(int), ("sold", "month"): defaultdict(int),
        ("entered", "week"): defaultdict(int), ("sold", "week"): defaultdict(int),
    }  # fmt: skip
    for kind_value, d, n in rows:
        if d > today:
            continue
        per[(kind_value, "month")][date(d.year, d.month, 1)] += n
        per[(kind_value, "week")][d - timedelta(days=d.weekday())] += n
    return Throughput(
        months=months, weeks=weeks,
        entered_month=[per[("entered", "month")][m] for m in months],
        sold_month=[per[("sold", "month")][m] for m in months],
        entered_week=[per[("entered", "week")][w] for w in weeks],
        sold_week=[per[("sold", "week")][w] for w in weeks],
    )  # fmt: skip


def _months(since: date, today: date) -> list[date]:
    months, current = [], since
    while current <= today:
        months.append(current)
        current = date(current.year + current.month // 12, current.month % 12 + 1, 1)
    return months


def _weeks(since: date, today: date) -> list[date]:
    first = since - timedelta(days=since.weekday())
    return [first + timedelta(weeks=n) for n in range((today - first).days // 7 + 1)]


# --- days per state --------------------------------------------------------------------------


@dataclass
class StateDays:
    state: int
    title: str
    stays: int
    average_days: float | None


def days_per_state(
    module: str,
    division_ids: list[int],
    today: date | None = None,
    count_days: DayCounter = calendar_days,
) -> list[StateDays]:
    """The average length of the stays in each state that began in the last twelve months and
    have ended, from consecutive state events of the same item; in `count_days`' days (working
    days: one row per stay read, as stock days are)."""
    since = _start_of(period_start(today or utcnow().date()))
    # The period's events of the instance by their time index, each stay ended by the item's
    # next event; the vehicle's division looked up by its key. The window partitions by item,
    # so keeping only the chosen divisions' stays after it gives the stays of their events.
    following = (
        func.lead(ItemStateEvent.created_at)
        .over(
            partition_by=ItemStateEvent.item_id,
            # events of one moment in the order they were written (else the database's)
            order_by=(ItemStateEvent.created_at, ItemStateEvent.id),
        )
        .label("left_at")
    )
    stays = (
        select(
            ItemStateEvent.to_state.label("state"),
            ItemStateEvent.created_at,
            following,
            of_item(PreparationItem.division_id, ItemStateEvent.item_id, module).label(
                "division_id"
            ),
        )
        .where(ItemStateEvent.created_at >= since)
        .subquery()
    )
    ended_in_scope = (stays.c.left_at.is_not(None), stays.c.division_id.in_(division_ids))
    if count_days is calendar_days:
        rows = db.session.execute(
            select(
                stays.c.state,
                func.count(),
                func.avg(cast(_days_between(stays.c.left_at, stays.c.created_at), Float)),
            )
            .where(*ended_in_scope)
            .group_by(stays.c.state)
        ).all()
        found = {state: (n, avg) for state, n, avg in rows}
    else:
        ended: dict[int, list] = defaultdict(list)
        for state, began, left, division_id in db.session.execute(
            select(
                stays.c.state,
                type_coerce(stays.c.created_at, UTCDateTime),
                type_coerce(stays.c.left_at, UTCDateTime),
                stays.c.division_id,
            ).where(*ended_in_scope)
        ):
            ended[state].append((began, left, division_id))
        found = {s: (len(r), average_days(count_days, r)) for s, r in ended.items()}
    return [
        StateDays(
            s.id,
            str(s.title),
            found.get(s.id, (0, None))[0],
            _round(found.get(s.id, (0, None))[1]),
        )  # fmt: skip
        for s in STATES
        if s.id != STATES[-1].id  # archived is the end: nobody leaves it
    ]


def _round(value, digits: int = 1) -> float | None:
    return round(float(value), digits) if value is not None else None


# --- minutes per station ---------------------------------------------------------------------


@dataclass
class StationMinutes:
    station_id: int
    name: str
    tasks: int
    average_minutes: float | None
    target_minutes: int

    @property
    def over_target(self) -> bool:
        return self.average_minutes is not None and self.average_minutes > self.target_minutes


def minutes_per_station(
    module: str, division_ids: list[int], today: date | None = None
) -> list[StationMinutes]:
    """The average working time of the tasks finished in the last twelve months, per station,
    beside the station's target."""
    since = _start_of(period_start(today or utcnow().date()))
    minutes = cast(
        _days_between(ItemStationTask.finished_at, ItemStationTask.started_at) * 1440.0, Float
    )
    rows = db.session.execute(
        # name_texts is the grouped station's own (PostgreSQL: grouped by the primary key)
        select(
            Station.id,
            Station.name,
            Station.name_texts,
            Station.target_minutes,
            func.count(),
            func.avg(minutes),
        )  # fmt: skip
        .join(ItemStationTask, ItemStationTask.station_id == Station.id)
        .where(
            Station.module == module,
            of_item(PreparationItem.division_id, ItemStationTask.item_id, module).in_(division_ids),
            ItemStationTask.status == "done",
            ItemStationTask.started_at.is_not(None),
            ItemStationTask.finished_at >= since,
        )
        .group_by(Station.id, Station.name, Station.target_minutes, Station.ordering)
        .order_by(Station.ordering, Station.name)
    ).all()
    return [
        StationMinutes(i, for_reader(texts, name), n, _round(avg, 0), target)
        for i, name, texts, target, n, avg in rows
    ]


# --- stock days ------------------------------------------------------------------------------


@dataclass
class StockDays:
    buckets: list[tuple[int, int | None]]
    counts: list[int]
    vehicles: int
    average_days: float | None


def stock_days(
    module: str,
    division_ids: list[int],
    now: datetime | None = None,
    *,
    until_delivered: bool = False,
    count_days: DayCounter = calendar_days,
) -> StockDays:
    """Days since each vehicle entered the module (its first state event, else its creation),
    for the vehicles bought and not yet sold (`until_delivered`: not yet delivered, so sold and
    in the delivery flow count too): a distribution in buckets and the average. The days are
    `count_days`' (calendar or working days, app.core.workdays), one row per vehicle read."""
    now = now or utcnow()
    # add_item writes one event without a from-state per item, looked up by item (the plain
    # table, correlated: one index look-up per vehicle in stock; a join was planned as a hash of
    # every event); the item itself is instance-scoped.
    first = ItemStateEvent.__table__.alias("first_event")
    first_at = (
        select(func.min(first.c.created_at))
        .where(first.c.item_id == PreparationItem.id, first.c.from_state.is_(None))
        .correlate_except(first)
        .scalar_subquery()
    )
    entered = func.coalesce(first_at, PreparationItem.created_at)
    rows = db.session.execute(
        select(PreparationItem.division_id, type_coerce(entered, UTCDateTime)).where(
            PreparationItem.module == module,
            PreparationItem.division_id.in_(division_ids),
            PreparationItem.state.in_(IN_STOCK + UNTIL_DELIVERED if until_delivered else IN_STOCK),
        )
    ).all()
    counts = [0] * len(STOCK_BUCKETS)
    total_days = 0
    for division_id, since in rows:
        days = count_days(since, now, division_id)
        total_days += days
        counts[_bucket(days)] += 1
    vehicles = len(rows)
    average = round(total_days / vehicles, 1) if vehicles else None
    return StockDays(list(STOCK_BUCKETS), counts, vehicles, average)


def _bucket(days: int) -> int:
    return next(
        (n for n, (_low, high) in enumerate(STOCK_BUCKETS) if high is not None and days <= high),
        len(STOCK_BUCKETS) - 1,
    )


# --- sales per salesperson ------------------------------------------------------------------


@dataclass
class SalespersonSales:
    seller_id: int | None  # None: sold without a salesperson
    name: str | None
    sold: int


def sales_by_salesperson(
    module: str, division_ids: list[int], today: date | None = None
) -> list[SalespersonSales]:
    """The vehicles sold (moved to state 7) in the last twelve months per salesperson, the
    most first, those without one last: the same sales the throughput counts."""
    since = _start_of(period_start(today or utcnow().date()))
    seller = of_item(PreparationItem.salesperson_id, ItemStateEvent.item_id, module)
    # Grouped before the names are joined: each sale's seller is looked up once.
    sales = (
        select(seller.label("seller"), func.count().label("sold"))
        .where(
            of_item(PreparationItem.division_id, ItemStateEvent.item_id, module).in_(division_ids),
            ItemStateEvent.created_at >= since,
            ItemStateEvent.to_state == SOLD,
        )
        .group_by(seller)
        .subquery()
    )
    rows = db.session.execute(
        select(sales.c.seller, SettingRow.name, sales.c.sold)
        .select_from(sales)
        .outerjoin(SettingRow, SettingRow.id == sales.c.seller)
    ).all()
    found = [SalespersonSales(i, name, n) for i, name, n in rows]
    return sorted(found, key=lambda r: (r.seller_id is None, -r.sold, (r.name or "").lower()))


# --- all figures, cached ---------------------------------------------------------------------


# Recently computed figures, kept for ten minutes.
FIGURES = LRUCache(size=256, ttl=600.0)
