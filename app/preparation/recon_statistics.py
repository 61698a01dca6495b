"""Reconditioning cost statistics (issue 33): the average actual cost and overrun (actual less
estimate) per vehicle by brand and model, by month, and per task by station, over the vehicles
whose reconditioning ended in the last twelve months. Three grouped queries, whatever the
number of vehicles: one per figure, each over a per-vehicle (or per-task) sum in SQL."""

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import case, func, select

from app.core.localized import for_reader
from app.core.models import utcnow
from app.extensions import db
from app.preparation.models import ItemStationTask, PreparationItem, Station
from app.preparation.recon import currencies
from app.preparation.recon_models import ACTUAL, ESTIMATE, PENDING, ReconApproval, ReconLine
from app.preparation.statistics import _as_date, _start_of, _utc_day, period_start

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


def _sums(key):
    """Estimate and actual per `key` (an item or a task), with when its last actual was entered."""
    actual = func.sum(case((ReconLine.phase == ACTUAL, ReconLine.amount), else_=0))
    estimate = func.sum(case((ReconLine.phase == ESTIMATE, ReconLine.amount), else_=0))
    ended = func.max(case((ReconLine.phase == ACTUAL, ReconLine.created_at)))
    return (
        select(
            key.label("key"),
            estimate.label("estimate"),
            actual.label("actual"),
            ended.label("ended"),
        )
        .join(PreparationItem, PreparationItem.id == ReconLine.item_id)
        .group_by(key)
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
    scope = (
        PreparationItem.module == module,
        PreparationItem.division_id.in_(list(division_ids)),
    )
    per_item = (
        _sums(ReconLine.item_id)
        .where(*scope)
        .having(
            func.max(case((ReconLine.phase == ACTUAL, ReconLine.created_at))) >= _start_of(since)
        )
        .subquery()
    )
    model = PreparationItem.brand + " " + PreparationItem.model
    models = _rows(
        select(model, *_aggregates(per_item))
        .join(PreparationItem, PreparationItem.id == per_item.c.key)
        .group_by(PreparationItem.brand, PreparationItem.model)
        .order_by(func.count().desc(), model)
        .limit(TOP_MODELS)
    )
    per_task = (
        _sums(ReconLine.task_id)
        .where(*scope)
        .having(
            func.max(case((ReconLine.phase == ACTUAL, ReconLine.created_at))) >= _start_of(since)
        )
        .subquery()
    )
    stations = _rows(  # name_texts is the grouped station's own (grouped by the primary key)
        select(Station.name, Station.name_texts, *_aggregates(per_task))
        .join(ItemStationTask, ItemStationTask.id == per_task.c.key)
        .join(Station, Station.id == ItemStationTask.station_id)
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
    scope = (
        PreparationItem.module == module,
        PreparationItem.division_id.in_(list(division_ids)),
    )
    ended = func.max(case((ReconLine.phase == ACTUAL, ReconLine.created_at)))
    per_item = _sums(ReconLine.item_id).where(*scope).having(ended >= since).subquery()
    count, cost, overrun, over = db.session.execute(select(*_aggregates(per_item))).one()
    waiting = db.session.scalar(
        select(func.count())
        .select_from(ReconApproval)
        .join(PreparationItem, PreparationItem.id == ReconApproval.item_id)
        .where(ReconApproval.status == PENDING, *scope)
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
