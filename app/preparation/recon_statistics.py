"""Reconditioning cost statistics (issue 33): the average actual cost and overrun (actual less
estimate) per vehicle by brand and model, by month, and per task by station, over the vehicles
whose reconditioning ended in the last twelve months. Three grouped queries, whatever the
number of vehicles: one per figure, each over a per-vehicle (or per-task) sum in SQL that
starts from the period's actual cost lines (`_ended_since`)."""

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import case, func, select

from app.core.i18n import current_locale
from app.core.localized import for_reader
from app.core.models import utcnow
from app.extensions import db
from app.preparation.models import ItemStationTask, PreparationItem, Station
from app.preparation.recon import currencies
from app.preparation.recon_models import ACTUAL, ESTIMATE, PENDING, ReconApproval, ReconLine
from app.preparation.statistics import (
    FIGURES,
    _as_date,
    _start_of,
    _utc_day,
    of_item,
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


def _ended_since(key: str, since, module: str, division_ids):
    """Per item (`key` "item") or task ("task") of the module and divisions whose last actual
    cost line was entered since `since`: its estimate and actual (and the item's brand, model
    and when its last actual was entered; the task's station).

    Bounded by the period, not the history (issue 34): the keys come from the period's actual
    lines through ix_recon_line_created (instance, phase, created_at); each key's sums, its
    last actual and its vehicle are looked up by key (ix_recon_line_item / ix_recon_line_task,
    the vehicle's and the task's primary keys), a correlated subquery per key that the database
    cannot turn into a read of every line and every vehicle of the module. A key with an actual
    line since `since` is exactly one whose last actual is since then."""
    line = ReconLine.__table__.alias("line")  # the key's lines, whenever entered
    item = ReconLine.item_id
    key_column = ReconLine.task_id if key == "task" else ReconLine.item_id
    of_key = line.c.task_id if key == "task" else line.c.item_id

    def lines(value, phase):
        return (
            select(value)
            .where(of_key == key_column, line.c.phase == phase)
            .correlate_except(line)
            .scalar_subquery()
        )

    columns = [
        key_column.label("key"),
        func.coalesce(lines(func.sum(line.c.amount), ESTIMATE), 0).label("estimate"),
        func.coalesce(lines(func.sum(line.c.amount), ACTUAL), 0).label("actual"),
    ]
    if key == "task":
        station = select(ItemStationTask.station_id).where(ItemStationTask.id == key_column)
        columns.append(station.scalar_subquery().label("station_id"))
    else:  # the months count a vehicle in the month of its last actual line
        columns.append(lines(func.max(line.c.created_at), ACTUAL).label("ended"))
        columns.append(of_item(PreparationItem.brand, item, module).label("brand"))
        columns.append(of_item(PreparationItem.model, item, module).label("model"))
    # Grouped, so that the database computes each key's look-ups once (a plain subquery would
    # be merged into the query over it, repeating them in every expression that reads them).
    return (
        select(*columns)
        .where(ReconLine.phase == ACTUAL, ReconLine.created_at >= since)
        .group_by(key_column, item)
        .having(of_item(PreparationItem.division_id, item, module).in_(list(division_ids)))
        .subquery()
    )


def _rows(query, named: bool = False) -> list[CostRow]:
    """The rows of (label, count, cost, overrun, over); `named`: (name, its texts per language,
    count, ...), labelled in the reader's language."""
    rows = db.session.execute(query).all()
    if named:
        rows = [(for_reader(texts, name), *rest) for name, texts, *rest in rows]
    return [
        CostRow(
            label,
            count,
            Decimal(cost or 0).quantize(Decimal(1)),
            Decimal(overrun or 0).quantize(Decimal(1)),
            over or 0,
        )  # fmt: skip
        for label, count, cost, overrun, over in rows
    ]


def _aggregates(sums):
    return (
        func.count().label("count"),
        func.avg(sums.c.actual).label("cost"),
        func.avg(sums.c.actual - sums.c.estimate).label("overrun"),
        func.sum(case((sums.c.actual > sums.c.estimate, 1), else_=0)).label("over"),
    )


def recon_figures(module: str, division_ids: list[int]) -> ReconFigures:
    """The figures of the statistics page's reconditioning sections."""
    since = period_start(utcnow().date())
    per_item = _ended_since("item", _start_of(since), module, division_ids)
    model = per_item.c.brand + " " + per_item.c.model
    models = _rows(
        select(model, *_aggregates(per_item))
        .group_by(per_item.c.brand, per_item.c.model)
        .order_by(func.count().desc(), model)
        .limit(TOP_MODELS)
    )
    per_task = _ended_since("task", _start_of(since), module, division_ids)
    stations = _rows(  # name_texts is the grouped station's own (grouped by the primary key)
        select(Station.name, Station.name_texts, *_aggregates(per_task))
        .join(Station, Station.id == per_task.c.station_id)
        .group_by(Station.id, Station.name, Station.ordering)
        .order_by(Station.ordering, Station.name),
        named=True,
    )
    # The day in a subquery of its own, so that PostgreSQL groups by the very column it selects.
    dated = select(
        _utc_day(per_item.c.ended).label("day"), per_item.c.actual, per_item.c.estimate
    ).subquery()
    days = db.session.execute(
        select(
            dated.c.day,
            func.count(),
            func.sum(dated.c.actual),
            func.sum(dated.c.actual - dated.c.estimate),
            func.sum(case((dated.c.actual > dated.c.estimate, 1), else_=0)),
        ).group_by(dated.c.day)
    ).all()
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
        models, stations, months, month_rows, vehicles,
        _average(sum((t[1] for t in totals.values()), Decimal(0)), vehicles) if vehicles else None,
        _average(sum((t[2] for t in totals.values()), Decimal(0)), vehicles) if vehicles else None,
    )  # fmt: skip


def cached_figures(instance, module: str, division_ids: list[int]) -> ReconFigures:
    """recon_figures, kept with the statistics' other figures (statistics.FIGURES, ten minutes)
    until a vehicle is added or moved (the instance's counts version) or a cost line is entered
    (the newest line's id, one look-up on the primary key). Their cost grows with the period's
    cost lines (a group's year), so a page view should not pay it each time."""
    newest = db.session.scalar(select(func.max(ReconLine.id)))
    key = (
        "recon", instance.id, instance.counts_version, module, tuple(sorted(division_ids)),
        utcnow().date(), newest,
        current_locale(),  # the stations' names are the reader's
    )  # fmt: skip
    found = FIGURES.get(key)
    if found is None:
        found = recon_figures(module, division_ids)
        FIGURES.put(key, found)
    return found


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
    per_item = _ended_since("item", since, module, division_ids)
    count, cost, overrun, over = db.session.execute(select(*_aggregates(per_item))).one()
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
