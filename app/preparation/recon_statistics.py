"""Reconditioning cost statistics (issue 33): the average actual cost and overrun (actual less
estimate) per vehicle by brand and model, by month, and per task by station, over the vehicles
whose reconditioning ended in the last twelve months. One statement, whatever the number of
vehicles: the period's vehicles and their cost lines are read once (`_period`), summed per
vehicle and per task, and grouped per model, station and day. The statistics page reads the
same figures from monthly totals (statistics_totals.recon_figures); this computation is their
reference and the dashboard widget's (thirty days)."""

from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import String, case, cast, func, literal, null, select, union_all

from app.core.models import utcnow
from app.extensions import db
from app.preparation.models import ItemStationTask, PreparationItem, Station
from app.preparation.recon import currencies
from app.preparation.recon_models import ACTUAL, ESTIMATE, PENDING, ReconApproval, ReconLine
from app.preparation.statistics import (
    _as_date,
    _start_of,
    _utc_day,
    period_start,
)

TOP_MODELS = 15


@dataclass(frozen=True)
class CostRow:
    """Vehicles (or tasks) counted, and their average actual cost and overrun."""

    label: str
    count: int
    average_cost: Decimal
    average_overrun: Decimal
    over_estimate: int  # how many of them cost more than their estimate


@dataclass(frozen=True)
class ReconFigures:
    models: list[CostRow]
    stations: list[CostRow]
    months: list[date]
    month_rows: list[CostRow]
    vehicles: int
    average_cost: Decimal | None
    average_overrun: Decimal | None


def _period(since, module: str, division_ids):
    """(items, tasks): two CTEs over the vehicles of the module and divisions with an actual
    cost line entered since `since`. Per item: its estimate and actual (all its lines,
    whenever entered), when its last actual was entered (`ended`), its brand and model; per
    task with an actual line since `since`: its estimate, actual and station.

    Bounded by the period, not the history (issue 34): the vehicles' keys come from the
    period's actual lines through ix_recon_line_created (instance, phase, created_at); each
    further table is read by those keys, each row once: the vehicle by its primary key, its
    lines through ix_recon_line_item, its tasks' stations through ix_task_item. The keys are
    MATERIALIZED CTEs read with `IN`, which PostgreSQL plans as index look-ups per key, not as
    a hash of the whole table (as it plans a plain join of the same rows: a read of every
    line, which issue 34's plan test fails). A vehicle with an actual line since `since`
    is exactly one whose last actual is since then. Before: a correlated subquery per sum and
    per key, the vehicles' sums computed twice and the tasks' once more, three statements
    (bench/SCALE.md, "Reconditioning statistics")."""

    def keys(query, name):
        return query.cte(name).prefix_with("MATERIALIZED", dialect="postgresql")

    period = keys(
        select(ReconLine.item_id.label("key"))
        .where(ReconLine.phase == ACTUAL, ReconLine.created_at >= since)
        .group_by(ReconLine.item_id),
        "recon_period",
    )
    vehicles = keys(
        select(PreparationItem.id, PreparationItem.brand, PreparationItem.model).where(
            PreparationItem.id.in_(select(period.c.key)),
            PreparationItem.module == module,
            PreparationItem.division_id.in_(division_ids),
        ),
        "recon_vehicles",
    )
    line = ReconLine.__table__.alias("line")  # the vehicles' lines, whenever entered
    lines = keys(
        select(line.c.item_id, line.c.task_id, line.c.phase, line.c.amount, line.c.created_at)
        .where(line.c.item_id.in_(select(vehicles.c.id))),
        "recon_lines",
    )  # fmt: skip
    actual = lines.c.phase == ACTUAL
    last_actual = func.max(case((actual, lines.c.created_at)))
    sums = (
        func.coalesce(func.sum(case((lines.c.phase == ESTIMATE, lines.c.amount))), 0).label(
            "estimate"
        ),
        func.coalesce(func.sum(case((actual, lines.c.amount))), 0).label("actual"),
    )
    per_item = (
        select(lines.c.item_id.label("key"), *sums, last_actual.label("ended"))
        .group_by(lines.c.item_id)
        .subquery()
    )
    items = (
        select(per_item, vehicles.c.brand, vehicles.c.model)
        .join(vehicles, vehicles.c.id == per_item.c.key)
        .cte("recon_items")
    )
    stations = keys(  # by vehicle (ix_task_item): fewer look-ups than one per task
        select(ItemStationTask.id, ItemStationTask.station_id).where(
            ItemStationTask.item_id.in_(select(vehicles.c.id))
        ),
        "recon_stations",
    )
    per_task = (
        select(lines.c.task_id.label("key"), *sums)
        .group_by(lines.c.task_id)
        .having(last_actual >= since)
        .subquery()
    )
    tasks = (
        select(per_task, stations.c.station_id)
        .join(stations, stations.c.id == per_task.c.key)
        .cte("recon_tasks")
    )
    return items, tasks


def _rows(found) -> list[CostRow]:
    return [
        CostRow(
            label,
            count,
            Decimal(cost or 0).quantize(Decimal(1)),
            Decimal(overrun or 0).quantize(Decimal(1)),
            over or 0,
        )  # fmt: skip
        for label, count, cost, overrun, over in found
    ]


def _aggregates(sums):
    return (
        func.count().label("count"),
        func.avg(sums.c.actual).label("cost"),
        func.avg(sums.c.actual - sums.c.estimate).label("overrun"),
        func.sum(case((sums.c.actual > sums.c.estimate, 1), else_=0)).label("over"),
    )


def recon_figures(module: str, division_ids: list[int]) -> ReconFigures:
    """The figures of the statistics page's reconditioning sections, in one statement: the
    period's items and tasks (`_period`) are each summed once, in a CTE, and the three
    groupings (models, stations, days) read them, their rows told apart by `kind`; the models'
    and stations' order is the database's (`rank`)."""
    since = period_start(utcnow().date())
    items, tasks = _period(_start_of(since), module, list(division_ids))
    model = items.c.brand + " " + items.c.model
    models = select(
        literal("model").label("kind"),
        model.label("label"),
        *_aggregates(items),
        func.row_number().over(order_by=(func.count().desc(), model)).label("rank"),
    ).group_by(items.c.brand, items.c.model)
    stations = (
        select(
            literal("station"),
            cast(Station.id, String),  # named below, in the reader's language
            *_aggregates(tasks),
            func.row_number().over(order_by=(Station.ordering, Station.name)),
        )
        .join(Station, Station.id == tasks.c.station_id)
        .group_by(Station.id, Station.name, Station.ordering)
    )
    # The day in a subquery of its own, so that PostgreSQL groups by the very column it selects.
    dated = select(
        _utc_day(items.c.ended).label("day"), items.c.actual, items.c.estimate
    ).subquery()
    days = select(
        literal("day"),
        cast(dated.c.day, String),
        func.count(),
        func.sum(dated.c.actual),
        func.sum(dated.c.actual - dated.c.estimate),
        func.sum(case((dated.c.actual > dated.c.estimate, 1), else_=0)),
        null(),
    ).group_by(dated.c.day)
    rows = db.session.execute(union_all(models, stations, days)).all()
    ranked = sorted((r for r in rows if r.kind != "day"), key=lambda r: r.rank)
    models_rows = _rows(r[1:6] for r in ranked if r.kind == "model")[:TOP_MODELS]
    station_rows = _rows(r[1:6] for r in ranked if r.kind == "station")
    if station_rows:
        found = db.session.scalars(
            select(Station).where(Station.id.in_([int(r.label) for r in station_rows]))
        )
        names = {str(station.id): station.shown_name for station in found}
        station_rows = [replace(r, label=names.get(r.label, r.label)) for r in station_rows]
    days = [r[1:6] for r in rows if r.kind == "day"]
    months = [_add_months(since, n) for n in range(12)]
    totals = {m: [0, Decimal(0), Decimal(0), 0] for m in months}
    for day, count, cost, overrun, over in days:
        first = _as_date(day).replace(day=1)
        if first in totals:
            sums = totals[first]
            sums[0] += count
            sums[1] += Decimal(cost or 0)
            sums[2] += Decimal(overrun or 0)
            sums[3] += over or 0
    month_rows = [
        CostRow(m.isoformat(), n, _average(cost, n), _average(overrun, n), over)
        for m, (n, cost, overrun, over) in totals.items()
    ]
    vehicles = sum(r.count for r in month_rows)
    return ReconFigures(
        models_rows, station_rows, months, month_rows, vehicles,
        _average(sum((t[1] for t in totals.values()), Decimal(0)), vehicles) if vehicles else None,
        _average(sum((t[2] for t in totals.values()), Decimal(0)), vehicles) if vehicles else None,
    )  # fmt: skip


def _average(total: Decimal, count: int) -> Decimal:
    return (Decimal(total) / count).quantize(Decimal(1)) if count else Decimal(0)


def _add_months(first: date, n: int) -> date:
    month = first.month - 1 + n
    return date(first.year + month // 12, month % 12 + 1, 1)


def widget_value(module: str, division_ids: list[int], href: str) -> dict:
    """The dashboard's reconditioning widget: over the last thirty days' finished
    reconditioning, vehicles, average actual cost and overrun and how many ran over; and how
    many estimates wait for a manager now (two queries)."""
    since = _start_of(utcnow().date()) - timedelta(days=30)
    items, _tasks = _period(since, module, list(division_ids))
    count, cost, overrun, over = db.session.execute(select(*_aggregates(items))).one()
    waiting = db.session.scalar(
        select(func.count())
        .select_from(ReconApproval)
        .join(PreparationItem, PreparationItem.id == ReconApproval.item_id)
        .where(
            ReconApproval.status == PENDING,
            PreparationItem.module == module,
            PreparationItem.division_id.in_(list(division_ids)),
        )
    )
    return {
        "vehicles": count or 0,
        "average": round(float(cost)) if cost is not None else None,
        "overrun": round(float(overrun)) if overrun is not None else None,
        "over": over or 0,
        "waiting": waiting or 0,
        "currency": " / ".join(sorted(set(currencies(division_ids).values()))),
        "overEstimateHref": f"{href}?advancedFilter[overEstimate]=1",
    }
