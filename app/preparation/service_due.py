"""Service schedules (admin/global/service-schedule, by brand, kilometres and months) and their
check-up tasks: when a vehicle is due, its preparation gets the check-up tasks as station tasks.

- A vehicle is due when, since its last service, it has run at least the schedule's kilometres
  or at least its months have passed (either interval may be empty: not counted).
- The last service is the vehicle's `last_service_on` and `last_service_mileage`, set on the
  vehicle page. Unknown: since the vehicle came into stock (`created_at`) at 0 km.
- The schedule is the active one whose brand is the vehicle's (case and spaces ignored).
- The tasks go to the first station of the vehicle's module that its division uses (its own
  or the whole instance's, by the stations' order: in the usual set-up the workshop comes
  first), with the check-up task's target minutes or the station's. A check-up task the vehicle
  already has open, or finished since its last service, is not given again: an evaluation
  run twice gives nothing twice.
- When every check-up task of the service is done, the service is recorded: the last service
  is the day the last one finished, at the vehicle's mileage, and the vehicle is no longer due.
- Only vehicles in stock can be due: leads (not bought yet) and archived vehicles never are. Evaluated when a vehicle is added or edited, when its last
  service changes, and every night for every instance (app/schedule/table.py).
Services only flush; the caller commits. docs/decisions.md, "Service schedules".
"""

from dataclasses import dataclass, field
from datetime import date

from flask_babel import lazy_gettext as _l
from sqlalchemy import or_, select

from app.core import audit
from app.core.models import utcnow
from app.core.settings import GlobalSettingRow
from app.extensions import db
from app.preparation.models import ItemStationTask, PreparationItem, Station
from app.preparation.specification import localised_name

SCHEDULE, CHECKUP = "service_schedule", "checkup_task"
LEADS, ARCHIVED = 1, 9
SERVICE_DUE = _l("Service due")


@dataclass(frozen=True)
class Schedule:
    id: int
    brand: str
    interval_km: int | None
    interval_months: int | None


def _day(moment) -> date:
    """The (UTC) day of a stored moment: the nightly job and the pages count days alike."""
    return moment.date()


def _brand(text: str | None) -> str:
    return " ".join((text or "").lower().split())


def _positive(raw) -> int | None:
    return raw if isinstance(raw, int) and raw > 0 else None


def schedule_choices() -> list[tuple[str, str]]:
    """The schedules, for a check-up task's schedule (a choice, never free text)."""
    return [(str(r.id), r.name) for r in GlobalSettingRow.of_kind(SCHEDULE, active_only=False)]


def schedules() -> dict[str, Schedule]:
    """The active schedules by brand (lower case); the first by name wins a brand twice."""
    found: dict[str, Schedule] = {}
    for row in GlobalSettingRow.of_kind(SCHEDULE):
        data = row.data or {}
        brand = _brand(data.get("brand") or row.name)
        if brand and brand not in found:
            found[brand] = Schedule(
                row.id,
                brand,
                _positive(data.get("interval_km")),
                _positive(data.get("interval_months")),
            )
    return found


def checkup_tasks(schedule_id: int) -> list[GlobalSettingRow]:
    """The active check-up tasks of a schedule, by name."""
    rows = GlobalSettingRow.of_kind(CHECKUP)
    return [r for r in rows if str((r.data or {}).get("schedule")) == str(schedule_id)]


def checkup_names(task_ids) -> dict[int, str]:
    """Check-up task id -> its name in the reader's language (for the vehicle's station tasks)."""
    ids = [i for i in set(task_ids) if i]
    if not ids:
        return {}
    rows = db.session.scalars(select(GlobalSettingRow).where(GlobalSettingRow.id.in_(ids)))
    return {r.id: localised_name(r) for r in rows}


def _months_between(start: date, end: date) -> int:
    months = (end.year - start.year) * 12 + end.month - start.month
    return months - 1 if end.day < start.day else months


def since_date(item: PreparationItem) -> date:
    """The day the service interval counts from: the last service, else the stock-in day."""
    if item.last_service_on is not None:
        return item.last_service_on
    return _day(item.created_at) if item.created_at else _day(utcnow())


def is_due(item: PreparationItem, schedule: Schedule | None, today: date) -> bool:
    """Whether the vehicle needs its service (see the module's rule)."""
    if schedule is None or item.state in (LEADS, ARCHIVED):
        return False
    run = None if item.mileage is None else item.mileage - (item.last_service_mileage or 0)
    by_km = bool(schedule.interval_km) and run is not None and run >= schedule.interval_km
    by_months = bool(schedule.interval_months) and (
        _months_between(since_date(item), today) >= schedule.interval_months
    )
    return by_km or by_months


@dataclass
class Night:
    """What the nightly run reads once for all vehicles instead of once per vehicle: each
    schedule's check-up tasks, the candidates' check-up task rows and highest task orderings,
    the station per module and division; the tasks and audit rows it gives are flushed once at
    the end. A night's statements do not grow with the vehicles (bench/scale_jobs.py)."""

    tasks: dict[int, list[GlobalSettingRow]]
    given: dict[int, list]
    last: dict[int, int]  # item id -> its highest task ordering
    stations: dict[tuple[str, int], Station | None] = field(default_factory=dict)


def _station_for(item: PreparationItem, night: Night | None = None) -> Station | None:
    if night is not None:
        key = (item.module, item.division_id)
        if key not in night.stations:
            night.stations[key] = _station_for(item)
        return night.stations[key]
    return db.session.scalars(
        select(Station)
        .where(
            Station.module == item.module,
            or_(Station.division_id.is_(None), Station.division_id == item.division_id),
        )
        .order_by(Station.ordering, Station.id)
        .limit(1)
    ).first()


def _checkup_rows(items):
    """The check-up task rows (item id first) of `items`: a vehicle's id, or a subquery of ids."""
    return db.session.execute(
        select(
            ItemStationTask.item_id,
            ItemStationTask.checkup_task_id,
            ItemStationTask.status,
            ItemStationTask.finished_at,
        ).where(ItemStationTask.item_id.in_(items), ItemStationTask.checkup_task_id.is_not(None))
    ).all()


def _given(item: PreparationItem, night: Night | None = None) -> set[int]:
    """The check-up tasks the vehicle has for this service: open, or done since it."""
    since = since_date(item)
    rows = night.given.get(item.id, ()) if night is not None else _checkup_rows([item.id])
    return {
        r.checkup_task_id
        for r in rows
        if r.status != "done" or (r.finished_at is not None and _day(r.finished_at) >= since)
    }


def evaluate(
    item: PreparationItem,
    today: date | None = None,
    known: dict[str, Schedule] | None = None,
    night: Night | None = None,
) -> int:
    """Set the vehicle's `service_due` and give a due vehicle the check-up tasks it lacks;
    how many tasks were added. `night`: what evaluate_instance read once for all."""
    today = today or _day(utcnow())
    schedule = (schedules() if known is None else known).get(_brand(item.brand))
    due = is_due(item, schedule, today)
    if item.service_due != due:
        item.service_due = due
    if not due:
        return 0
    offered = night.tasks[schedule.id] if night is not None else checkup_tasks(schedule.id)
    wanted = [t for t in offered if t.id not in _given(item, night)] if offered else []
    station = _station_for(item, night) if wanted else None
    if station is None:
        return 0
    last = (
        night.last.get(item.id)
        if night is not None
        else db.session.scalar(
            select(db.func.max(ItemStationTask.ordering)).where(ItemStationTask.item_id == item.id)
        )
    )
    for n, task in enumerate(wanted, start=(last or 0) + 1):
        db.session.add(
            ItemStationTask(
                instance_id=item.instance_id, item_id=item.id, station_id=station.id,
                ordering=n, checkup_task_id=task.id,
                target_minutes=_positive((task.data or {}).get("minutes")) or station.target_minutes,
            )
        )  # fmt: skip
    audit.record(
        "preparation.item.service_due", division_id=item.division_id, item_id=item.id,
        schedule_id=schedule.id, tasks=[t.id for t in wanted],
    )  # fmt: skip
    if night is None:  # the nightly run flushes once at its end
        db.session.flush()
    return len(wanted)


def record_if_serviced(item: PreparationItem) -> bool:
    """After a station task is finished: when the vehicle was due and every check-up task of
    this service is done, record the service and evaluate again. Whether it was recorded."""
    if not item.service_due:
        return False
    rows = db.session.execute(
        select(ItemStationTask.status, ItemStationTask.finished_at).where(
            ItemStationTask.item_id == item.id, ItemStationTask.checkup_task_id.is_not(None)
        )
    ).all()
    since = since_date(item)
    current = [r for r in rows if r.status != "done" or _day(r.finished_at) >= since]
    if not current or any(r.status != "done" for r in current):
        return False
    item.last_service_on = max(_day(r.finished_at) for r in current)
    item.last_service_mileage = item.mileage
    evaluate(item)
    return True


def set_last_service(item: PreparationItem, on: date | None, mileage: int | None, user) -> None:
    """The vehicle page's last service: stored, audited, and the vehicle evaluated again."""
    audit.record(
        "preparation.item.last_service", user=user, division_id=item.division_id, item_id=item.id,
        on=[str(item.last_service_on or ""), str(on or "")],
        mileage=[item.last_service_mileage, mileage],
    )  # fmt: skip
    item.last_service_on, item.last_service_mileage = on, mileage
    evaluate(item)


def evaluate_instance(today: date | None = None) -> tuple[int, int]:
    """Evaluate every vehicle of the active instance whose brand has a schedule, and clear
    the mark of the others; (due vehicles, tasks added)."""
    known = schedules()
    due = added = 0
    brands = list(known)
    stale = select(PreparationItem).where(PreparationItem.service_due.is_(True))
    for item in db.session.scalars(stale):
        if _brand(item.brand) not in known:
            item.service_due = False
    if brands:
        in_stock = (
            PreparationItem.state.not_in((LEADS, ARCHIVED)),
            db.func.lower(PreparationItem.brand).in_(brands),
        )
        ids = select(PreparationItem.id).where(*in_stock)
        given: dict[int, list] = {}
        for row in _checkup_rows(ids):
            given.setdefault(row.item_id, []).append(row)
        last = db.session.execute(
            select(ItemStationTask.item_id, db.func.max(ItemStationTask.ordering))
            .where(ItemStationTask.item_id.in_(ids))
            .group_by(ItemStationTask.item_id)
        ).all()
        night = Night({s.id: checkup_tasks(s.id) for s in known.values()}, given, dict(last))
        for item in db.session.scalars(select(PreparationItem).where(*in_stock)):
            added += evaluate(item, today, known, night)
            due += item.service_due
    db.session.flush()
    return due, added
