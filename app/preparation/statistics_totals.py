"""The statistics page's figures read from the monthly totals (app/preparation/totals.py): a
year of months per division, whatever the number of vehicles, events, tasks and cost lines.

The same figures as statistics.py and recon_statistics.py compute from the rows themselves
(tests/preparation/test_statistics_totals.py compares them after every kind of write): an
average is the totals' sum over their count. Two figures are still read from rows, bounded by
what they are about: stock days (the vehicles in stock now, not a period) and, when the
instance counts working days, the days per state (each stay's days depend on its division's
calendar)."""

from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import func, select, union_all

from app.core.i18n import current_locale
from app.core.localized import for_reader
from app.core.models import utcnow
from app.core.settings import SettingRow
from app.core.workdays import WorkingDays, calendar_days, day_counter
from app.extensions import db
from app.preparation import statistics as raw
from app.preparation import totals_models as T
from app.preparation.models import Station
from app.preparation.recon_statistics import TOP_MODELS, ReconFigures, _add_months, _average, _rows
from app.preparation.states import STATES
from app.preparation.totals_models import FlowMonthTotal, ReconMonthTotal


def _of(model, module: str, division_ids, figure: str, since: date) -> tuple:
    """A period's rows of one figure: the instance's (tenancy), module's and divisions'."""
    return (
        model.module == module,
        model.figure == figure,
        model.month >= since,
        model.division_id.in_(list(division_ids)),
    )


def throughput(module: str, division_ids, today: date | None = None) -> raw.Throughput:
    """statistics.throughput from the totals: entered and sold per month and ISO week (a week
    across two months is two rows, so the period's first week counts only its own days)."""
    today = today or utcnow().date()
    since = raw.period_start(today)
    total = func.sum(FlowMonthTotal.count)
    # One SELECT per figure (UNION ALL): with both figures and the divisions as lists in one
    # condition PostgreSQL reads the whole table instead of the index's period.
    rows = db.session.execute(
        union_all(
            *(
                select(FlowMonthTotal.figure, FlowMonthTotal.month, FlowMonthTotal.week, total)
                .where(*_of(FlowMonthTotal, module, division_ids, figure, since))
                .group_by(FlowMonthTotal.figure, FlowMonthTotal.month, FlowMonthTotal.week)
                for figure in (T.ENTERED, T.SOLD)
            )
        )
    ).all()
    months, weeks = raw._months(since, today), raw._weeks(since, today)
    per = {(f, unit): {} for f in (T.ENTERED, T.SOLD) for unit in ("month", "week")}
    # The events dated after today (none but imported or generated ones): as the rows count.
    future = raw.flow_days(module, list(division_ids), raw._start_of(today + timedelta(days=1)))
    for figure, day, n in future:
        rows.append((figure, day.replace(day=1), day - timedelta(days=day.weekday()), -n))
    for figure, month, week, n in rows:
        for unit, at in (("month", month), ("week", week)):
            per[(figure, unit)][at] = per[(figure, unit)].get(at, 0) + int(n or 0)
    return raw.Throughput(
        months=months, weeks=weeks,
        entered_month=[per[(T.ENTERED, "month")].get(m, 0) for m in months],
        sold_month=[per[(T.SOLD, "month")].get(m, 0) for m in months],
        entered_week=[per[(T.ENTERED, "week")].get(w, 0) for w in weeks],
        sold_week=[per[(T.SOLD, "week")].get(w, 0) for w in weeks],
    )  # fmt: skip


def days_per_state(
    module: str, division_ids, today: date | None = None, working: bool = False
) -> list[raw.StateDays]:
    """statistics.days_per_state from the totals: the stays that began in the period and
    ended, per state, and their calendar days (or `working` days, app.core.workdays)."""
    since = raw.period_start(today or utcnow().date())
    summed = FlowMonthTotal.working if working else FlowMonthTotal.amount
    found = {
        state: (int(n), days / n)
        for state, n, days in db.session.execute(
            select(FlowMonthTotal.state, func.sum(FlowMonthTotal.count), func.sum(summed))
            .where(*_of(FlowMonthTotal, module, division_ids, T.STAY, since))
            .group_by(FlowMonthTotal.state)
            .having(func.sum(FlowMonthTotal.count) > 0)
        )
    }  # fmt: skip
    return [
        raw.StateDays(
            s.id, str(s.title), found.get(s.id, (0,))[0], raw._round(found.get(s.id, (0, None))[1])
        )
        for s in STATES
        if s.id != STATES[-1].id  # archived is the end: nobody leaves it
    ]


def minutes_per_station(module: str, division_ids, today: date | None = None) -> list:
    """statistics.minutes_per_station from the totals: the tasks finished in the period per
    station, their average minutes beside the station's target."""
    since = raw.period_start(today or utcnow().date())
    n, minutes = func.sum(FlowMonthTotal.count), func.sum(FlowMonthTotal.amount)
    rows = db.session.execute(
        select(Station.id, Station.name, Station.name_texts, Station.target_minutes, n, minutes)
        .join(FlowMonthTotal, FlowMonthTotal.station_id == Station.id)
        .where(Station.module == module, *_of(FlowMonthTotal, module, division_ids, T.WORK, since))
        .group_by(Station.id, Station.name, Station.target_minutes, Station.ordering)
        .having(n > 0)
        .order_by(Station.ordering, Station.name)
    ).all()
    return [
        raw.StationMinutes(i, for_reader(texts, name), int(c), raw._round(m / c, 0), target)
        for i, name, texts, target, c, m in rows
    ]


def sales_by_salesperson(module: str, division_ids, today: date | None = None) -> list:
    """statistics.sales_by_salesperson from the totals: the period's sales per salesperson."""
    since = raw.period_start(today or utcnow().date())
    sales = (
        select(FlowMonthTotal.seller_id.label("seller"), func.sum(FlowMonthTotal.count).label("sold"))
        .where(*_of(FlowMonthTotal, module, division_ids, T.SELLER, since))
        .group_by(FlowMonthTotal.seller_id)
        .having(func.sum(FlowMonthTotal.count) > 0)
        .subquery()
    )  # fmt: skip
    rows = db.session.execute(
        select(sales.c.seller, SettingRow.name, sales.c.sold)
        .select_from(sales)
        .outerjoin(SettingRow, SettingRow.id == sales.c.seller)
    ).all()
    found = [raw.SalespersonSales(i or None, name, int(n)) for i, name, n in rows]
    return sorted(found, key=lambda r: (r.seller_id is None, -r.sold, (r.name or "").lower()))


def recon_figures(module: str, division_ids) -> ReconFigures:
    """recon_statistics.recon_figures from the totals: per model, station and month."""
    since = raw.period_start(utcnow().date())
    r = ReconMonthTotal
    n, estimate, actual, over = (func.sum(c) for c in (r.count, r.estimate, r.actual, r.over))

    def averaged(rows):
        return _rows(
            (label, int(c), Decimal(a) / c, (Decimal(a) - Decimal(e)) / c, int(o or 0))
            for label, c, e, a, o in rows
        )

    label = r.brand + " " + r.model
    models = averaged(
        db.session.execute(
            select(label, n, estimate, actual, over)
            .where(*_of(r, module, division_ids, T.VEHICLE, since))
            .group_by(r.brand, r.model)
            .having(n > 0)
            .order_by(n.desc(), label)
            .limit(TOP_MODELS)
        )
    )
    at_stations = db.session.execute(
        select(Station, n, estimate, actual, over)
        .join(r, r.station_id == Station.id)
        .where(*_of(r, module, division_ids, T.TASK, since))
        .group_by(Station.id)
        .having(n > 0)
        .order_by(Station.ordering, Station.name)
    ).all()
    stations = averaged((str(row[0].id), *row[1:]) for row in at_stations)
    names = [row[0].shown_name for row in at_stations]
    stations = [replace(row, label=name) for row, name in zip(stations, names, strict=True)]
    per_month = {
        m: (int(c), Decimal(a), Decimal(a) - Decimal(e), int(o or 0))
        for m, c, e, a, o in db.session.execute(
            select(r.month, n, estimate, actual, over)
            .where(*_of(r, module, division_ids, T.VEHICLE, since))
            .group_by(r.month)
        )
    }
    months = [_add_months(since, k) for k in range(12)]
    zero = (0, Decimal(0), Decimal(0), 0)
    month_rows = _rows(
        (m.isoformat(), c, _average(cost, c), _average(overrun, c), o)
        for m in months
        for c, cost, overrun, o in [per_month.get(m, zero)]
    )
    vehicles = sum(row.count for row in month_rows)
    cost = sum((per_month.get(m, zero)[1] for m in months), Decimal(0))
    overrun = sum((per_month.get(m, zero)[2] for m in months), Decimal(0))
    return ReconFigures(
        models, stations, months, month_rows, vehicles,
        _average(cost, vehicles) if vehicles else None,
        _average(overrun, vehicles) if vehicles else None,
    )  # fmt: skip


# --- the page's figures, kept ------------------------------------------------------------------


@dataclass(frozen=True)
class Figures:
    flow: raw.Throughput
    states: list[raw.StateDays]
    stations: list[raw.StationMinutes]
    stock: raw.StockDays
    salespeople: list[raw.SalespersonSales]


def figures(instance, module: str, division_ids: list[int]) -> Figures:
    """Every figure of the statistics page but the cost ones, as the instance's configuration
    counts them, kept (statistics.FIGURES, ten minutes) until the instance's vehicles change
    (its counts version: a move shows on the next view) or the configuration does."""
    until_delivered = instance.module_option(module, raw.MEASURE_TO_DELIVERED, False)
    count_days = day_counter(instance)
    key = (
        instance.id, instance.counts_version, module, tuple(sorted(division_ids)),
        utcnow().date(), until_delivered, getattr(count_days, "version", None),
        current_locale(),  # the stations' names are the reader's
    )  # fmt: skip
    found = raw.FIGURES.get(key)
    if found is None:
        if count_days is calendar_days or isinstance(count_days, WorkingDays):
            working = count_days is not calendar_days
            states = days_per_state(module, division_ids, working=working)
        else:
            states = raw.days_per_state(module, division_ids, count_days=count_days)
        found = Figures(
            throughput(module, division_ids),
            states,
            minutes_per_station(module, division_ids),
            raw.stock_days(
                module, division_ids, until_delivered=until_delivered, count_days=count_days
            ),
            sales_by_salesperson(module, division_ids),
        )
        raw.FIGURES.put(key, found)
    return found
