"""The reconditioning statistics' figures (issue 33) against the cost lines counted here one by
one: per model, per station, per month, and the dashboard widget's thirty days. The queries
start from the period's actual cost lines (issue 34); these pin what they must still give."""

from datetime import timedelta
from decimal import Decimal

from sqlalchemy import select

from app.core.models import Division, utcnow
from app.extensions import db
from app.preparation.models import ItemStationTask, PreparationItem, Station
from app.preparation.recon_models import ReconLine
from app.preparation.recon_statistics import TOP_MODELS, recon_figures, widget_value
from app.preparation.statistics import _start_of, period_start
from tests.preparation.manage_helpers import in_seller_instance


def sums_by(key: str, since):
    """{key: [estimate, actual, last actual, item]} over the begcare cost lines, kept only
    where the last actual was entered since `since`."""
    rows = db.session.execute(
        select(
            ReconLine.item_id, ReconLine.task_id, ReconLine.phase, ReconLine.amount,
            ReconLine.created_at,
        ).join(PreparationItem, PreparationItem.id == ReconLine.item_id)
        .where(PreparationItem.module == "begcare")
    ).all()  # fmt: skip
    sums: dict[int, list] = {}
    for item_id, task_id, phase, amount, created in rows:
        s = sums.setdefault(item_id if key == "item" else task_id, [0, 0, None, item_id])
        s[0 if phase == "estimate" else 1] += amount
        if phase == "actual":
            s[2] = max(s[2] or created, created)
    return {k: s for k, s in sums.items() if s[2] is not None and s[2] >= since}


def average(values) -> Decimal:
    values = list(values)
    return (Decimal(sum(values)) / len(values)).quantize(Decimal(1)) if values else Decimal(0)


def test_figures_per_model_station_and_month_are_the_cost_lines_counted_one_by_one(as_demo):
    in_seller_instance()
    divisions = list(db.session.scalars(select(Division.id)))
    figures = recon_figures("begcare", divisions)
    since = _start_of(period_start(utcnow().date()))

    per_item = sums_by("item", since)
    assert per_item, "the demo has a year of cost lines"
    assert figures.vehicles == len(per_item)
    assert figures.average_cost == average(s[1] for s in per_item.values())
    assert figures.average_overrun == average(s[1] - s[0] for s in per_item.values())

    items = {i.id: i for i in db.session.scalars(select(PreparationItem))}
    by_model: dict[str, list] = {}
    for item_id, s in per_item.items():
        by_model.setdefault(f"{items[item_id].brand} {items[item_id].model}", []).append(s)
    expected = sorted(by_model.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:TOP_MODELS]
    assert [(r.label, r.count, r.average_cost, r.average_overrun, r.over_estimate)
            for r in figures.models] == [
        (label, len(rows), average(s[1] for s in rows), average(s[1] - s[0] for s in rows),
         sum(1 for s in rows if s[1] > s[0]))
        for label, rows in expected
    ]  # fmt: skip

    stations = {s.id: s for s in db.session.scalars(select(Station))}
    tasks = {t.id: t for t in db.session.scalars(select(ItemStationTask))}
    by_station: dict[int, list] = {}
    for task_id, s in sums_by("task", since).items():
        by_station.setdefault(tasks[task_id].station_id, []).append(s)
    ordered = sorted(by_station, key=lambda i: (stations[i].ordering, stations[i].name))
    assert [(r.label, r.count, r.average_cost, r.over_estimate) for r in figures.stations] == [
        (stations[i].shown_name, len(by_station[i]), average(s[1] for s in by_station[i]),
         sum(1 for s in by_station[i] if s[1] > s[0]))
        for i in ordered
    ]  # fmt: skip

    by_month: dict[str, list] = {}
    for s in per_item.values():
        by_month.setdefault(s[2].date().replace(day=1).isoformat(), []).append(s)
    assert {r.label: (r.count, r.average_cost) for r in figures.month_rows if r.count} == {
        month: (len(rows), average(s[1] for s in rows)) for month, rows in by_month.items()
    }


def test_the_widget_counts_the_last_thirty_days(as_demo):
    in_seller_instance()
    divisions = list(db.session.scalars(select(Division.id)))
    since = _start_of(utcnow().date()) - timedelta(days=30)
    recent = sums_by("item", since)
    value = widget_value("begcare", divisions, "/begcare/overview")
    assert value["vehicles"] == len(recent)
    assert value["over"] == sum(1 for s in recent.values() if s[1] > s[0])
    if recent:
        assert value["average"] == round(sum(s[1] for s in recent.values()) / len(recent))
    assert value["waiting"] == 1  # the demo's estimate at the station user's wash
