"""Station tasks: start, finish, assign and reopen; target times and the overdue warning.

A task is pending, active or done. Each change is one conditional UPDATE on the task's status,
so two people pressing the same button at once change it once; each is written to the audit
log with who and when. An item's `warning` is set while one of its active tasks is past its
target time and cleared when none is.
"""

from dataclasses import dataclass
from datetime import datetime, time, timedelta

from flask_babel import get_timezone
from flask_babel import gettext as _
from sqlalchemy import and_, case, false, func, or_, select, update
from sqlalchemy.orm import joinedload
from sqlalchemy.orm.attributes import set_committed_value

from app.core import audit
from app.core.happenings import announce_all
from app.core.models import Division, utcnow
from app.core.roles import ROLE_STATION_USER
from app.extensions import db
from app.preparation import recon, service_due
from app.preparation.models import ItemStationTask, PreparationItem, Station, user_stations

PENDING, ACTIVE, DONE = "pending", "active", "done"
# Items in these states are being prepared; their tasks are what the stations work on.
STATION_STATES = (2, 3, 4)
QUEUE_LIMIT = 200


class TaskError(ValueError):
    """A refused task change, with a message for the user."""


def is_overdue(task, now: datetime | None = None) -> bool:
    """Whether an active task has run past its target time."""
    if task.status != ACTIVE or task.started_at is None:
        return False
    return (now or utcnow()) - task.started_at > timedelta(minutes=task.target_minutes)


def minutes_taken(task, now: datetime | None = None) -> int | None:
    """Whole minutes a task took (done) or has taken so far (active)."""
    if task.started_at is None:
        return None
    end = task.finished_at if task.status == DONE and task.finished_at else (now or utcnow())
    return max(0, int((end - task.started_at).total_seconds() // 60))


def station_ids_of(user_id: int) -> list[int]:
    """The stations a user works at (user_station), in the active instance."""
    return list(
        db.session.scalars(
            select(Station.id)
            .join(user_stations, user_stations.c.station_id == Station.id)
            .where(user_stations.c.user_id == user_id)
            .order_by(Station.ordering, Station.name)
        )
    )


@dataclass(frozen=True)
class Worker:
    """Who works a task: the user, and the stations a station user is limited to."""

    user: object
    station_ids: frozenset[int] | None  # None: every station

    @classmethod
    def of(cls, user, roles) -> "Worker":
        if ROLE_STATION_USER in roles:
            return cls(user, frozenset(station_ids_of(user.id)))
        return cls(user, None)

    def may_work(self, task) -> bool:
        return self.station_ids is None or task.station_id in self.station_ids


def _change(task: ItemStationTask, expected: str, **values) -> bool:
    """Set `values` on the task only if its status is still `expected`; tell whether it did."""
    result = db.session.execute(
        update(ItemStationTask)
        .where(ItemStationTask.id == task.id, ItemStationTask.status == expected)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:
        return False
    for name, value in values.items():
        set_committed_value(task, name, value)  # the row has it already: nothing to flush
    return True


def _stale() -> TaskError:
    return TaskError(_("Someone else changed this task just now. Check it and try again."))


def start_task(task: ItemStationTask, worker: Worker, now: datetime | None = None) -> None:
    """Start a pending task; the starter takes it unless someone is assigned already."""
    now = now or utcnow()
    if task.status != PENDING:
        raise TaskError(_("Only a task that has not started can be started."))
    item = db.session.get(PreparationItem, task.item_id)
    if (refusal := recon.start_refusal(item, task)) is not None:
        raise TaskError(refusal)
    values = {"status": ACTIVE, "started_at": now, "finished_at": None}
    if task.assigned_user_id is None:
        values["assigned_user_id"] = worker.user.id
    if not _change(task, PENDING, **values):
        raise _stale()


def finish_task(task: ItemStationTask, worker: Worker, now: datetime | None = None) -> None:
    """Finish an active task; whoever finishes it is recorded as the one who did it."""
    now = now or utcnow()
    if task.status != ACTIVE:
        raise TaskError(_("Only a started task can be finished."))
    if not _change(task, ACTIVE, status=DONE, finished_at=now, assigned_user_id=worker.user.id):
        raise _stale()


def assign_task(task: ItemStationTask, worker: Worker, now: datetime | None = None) -> None:
    """Assign an unfinished task to the worker."""
    if task.status == DONE:
        raise TaskError(_("A finished task cannot be assigned."))
    if task.assigned_user_id == worker.user.id:
        raise TaskError(_("The task is assigned to you already."))
    if not _change(task, task.status, assigned_user_id=worker.user.id):
        raise _stale()


def reopen_task(task: ItemStationTask, worker: Worker, now: datetime | None = None) -> None:
    """Put a finished task back to pending, to be done again (its old times are audited)."""
    if task.status != DONE:
        raise TaskError(_("Only a finished task can be reopened."))
    if not _change(task, DONE, status=PENDING, started_at=None, finished_at=None):
        raise _stale()


def day_start(now: datetime | None = None) -> datetime:
    """Midnight of today in the viewer's zone: where "today" begins for a station user."""
    zone = get_timezone()
    return zone.localize(datetime.combine((now or utcnow()).astimezone(zone).date(), time(0)))


def undo_finish(task: ItemStationTask, worker: Worker, now: datetime | None = None) -> None:
    """Take back one's own finish of today: the task is active again, started as before."""
    if task.status != DONE or task.finished_at is None:
        raise TaskError(_("Only a finished task can be taken back."))
    if task.assigned_user_id != worker.user.id or task.finished_at < day_start(now):
        raise TaskError(_("Only a task you finished today can be taken back."))
    if not _change(task, DONE, status=ACTIVE, finished_at=None):
        raise _stale()


_SERVICES = {
    "start": start_task,
    "finish": finish_task,
    "assign": assign_task,
    "reopen": reopen_task,
    "undo": undo_finish,
}


def work_task(
    item: PreparationItem, task: ItemStationTask, action: str, worker: Worker, now=None
) -> None:
    """Do one action on one of an item's tasks, audit it and bring the warning up to date."""
    now = now or utcnow()
    if action not in _SERVICES:
        raise TaskError(_("This action is not allowed here."))
    if not worker.may_work(task):
        raise TaskError(_("This task belongs to a station you do not work at."))
    before = {
        "status": task.status,
        "started_at": task.started_at.isoformat() if task.started_at else None,
        "finished_at": task.finished_at.isoformat() if task.finished_at else None,
    }
    _SERVICES[action](task, worker, now)
    audit.record(
        f"preparation.task.{action}",
        user=worker.user,
        division_id=item.division_id,
        item_id=item.id,
        task_id=task.id,
        station_id=task.station_id,
        station=task.station.name,
        station_texts=task.station.name_texts,
        before=before,
    )
    sync_warning(item, now)
    if action == "finish" and task.checkup_task_id is not None:
        service_due.record_if_serviced(item)  # the last check-up task done: serviced


def sync_warning(item: PreparationItem, now: datetime | None = None) -> bool:
    """Set the item's warning while an active task is overdue, clear it when none is."""
    now = now or utcnow()
    active = db.session.execute(
        select(
            ItemStationTask.status, ItemStationTask.started_at, ItemStationTask.target_minutes
        ).where(ItemStationTask.item_id == item.id, ItemStationTask.status == ACTIVE)
    ).all()
    overdue = any(is_overdue(row, now) for row in active)
    if item.warning != overdue:
        item.warning = overdue
    return overdue


def sync_overdue_warnings(now: datetime | None = None) -> tuple[int, int]:
    """Bring every item's warning of the active instance up to date; (set, cleared) counts.

    A bounded number of statements, however many vehicles change: the target times of the
    active tasks (a few: the stations'), then one UPDATE that sets the warnings and one that
    clears them, each choosing its vehicles by the overdue tasks' subquery; the vehicles newly
    overdue are announced together."""
    now = now or utcnow()
    targets = db.session.scalars(
        select(ItemStationTask.target_minutes).where(ItemStationTask.status == ACTIVE).distinct()
    ).all()
    # An active task is overdue when it started more than its target time ago (is_overdue):
    # per target time one bound, so the database compares each start with a plain value.
    overdue = select(ItemStationTask.item_id).where(
        ItemStationTask.status == ACTIVE,
        or_(
            false(),
            *(
                and_(
                    ItemStationTask.target_minutes == minutes,
                    ItemStationTask.started_at < now - timedelta(minutes=minutes),
                )
                for minutes in targets
            ),
        ),
    )
    newly = db.session.execute(
        update(PreparationItem)
        .where(PreparationItem.warning.is_(False), PreparationItem.id.in_(overdue))
        .values(warning=True)
        .returning(
            PreparationItem.id, PreparationItem.instance_id, PreparationItem.module,
            PreparationItem.regno, PreparationItem.division_id,
        )
        .execution_options(synchronize_session="fetch")
    ).all()  # fmt: skip
    cleared = db.session.execute(
        update(PreparationItem)
        .where(PreparationItem.warning.is_(True), PreparationItem.id.not_in(overdue))
        .values(warning=False)
        .execution_options(synchronize_session="fetch")
    ).rowcount
    _announce_overdue(sorted(newly))
    return len(newly), cleared


def _announce_overdue(rows) -> None:
    """Tell the event engine about the vehicles whose station task has just gone overdue (rows
    of id, instance_id, module, regno, division_id), one announcement per instance."""
    by_instance: dict[int, list[dict]] = {}
    for row in rows:
        by_instance.setdefault(row.instance_id, []).append(
            {"itemId": row.id, "module": row.module, "regno": row.regno,
             "divisionId": row.division_id}
        )  # fmt: skip
    for instance_id, many in by_instance.items():
        announce_all("task.overdue", instance_id, many)


# --- the station user's screens ----------------------------------------------------------------


@dataclass(frozen=True)
class QueueRow:
    """A vehicle waiting at (or being worked at) one of the user's stations."""

    task: ItemStationTask
    item: PreparationItem
    station: str
    division: str
    tasks_done: int
    tasks_total: int


def station_queue(station_ids, division_ids, module: str = "begcare") -> list[QueueRow]:
    """The vehicles whose active task, or next pending task, is at one of these stations.

    Active ones first (longest running first), then the waiting ones (longest waiting first).
    One query, whatever the number of vehicles."""
    station_ids, division_ids = list(station_ids), list(division_ids)
    if not station_ids or not division_ids:
        return []
    progress = (
        select(
            ItemStationTask.item_id.label("item_id"),
            func.min(case((ItemStationTask.status != DONE, ItemStationTask.ordering))).label(
                "next_ordering"
            ),
            func.count().label("total"),
            func.count(case((ItemStationTask.status == DONE, 1))).label("done"),
        )
        .group_by(ItemStationTask.item_id)
        .subquery()
    )
    rows = db.session.execute(
        select(ItemStationTask, PreparationItem, Station, Division.name)
        .add_columns(progress.c.done, progress.c.total)
        .join(PreparationItem, PreparationItem.id == ItemStationTask.item_id)
        .join(Station, Station.id == ItemStationTask.station_id)
        .join(Division, Division.id == PreparationItem.division_id)
        .join(progress, progress.c.item_id == ItemStationTask.item_id)
        .where(
            ItemStationTask.station_id.in_(station_ids),
            PreparationItem.division_id.in_(division_ids),
            PreparationItem.module == module,
            PreparationItem.state.in_(STATION_STATES),
            or_(
                ItemStationTask.status == ACTIVE,
                and_(
                    ItemStationTask.status == PENDING,
                    ItemStationTask.ordering == progress.c.next_ordering,
                ),
            ),
        )
        .order_by(
            case((ItemStationTask.status == ACTIVE, 0), else_=1),
            ItemStationTask.started_at,
            PreparationItem.state_changed_at,
            PreparationItem.id,
        )
        .limit(QUEUE_LIMIT)
    ).all()
    return [QueueRow(t, i, s.shown_name, d, done, total) for t, i, s, d, done, total in rows]


def flag_overdue(rows: list[QueueRow], now: datetime | None = None) -> int:
    """Set the warning of the queue's vehicles whose task here is overdue (one UPDATE)."""
    now = now or utcnow()
    items = [r.item for r in rows if is_overdue(r.task, now) and not r.item.warning]
    if items:
        db.session.execute(
            update(PreparationItem)
            .where(PreparationItem.id.in_([i.id for i in items]))
            .values(warning=True)
            .execution_options(synchronize_session=False)
        )
        for item in items:
            set_committed_value(item, "warning", True)
    return len(items)


@dataclass(frozen=True)
class FinishedRow:
    task: ItemStationTask
    item: PreparationItem
    station: str


def finished_since(user_id: int, since: datetime) -> list[FinishedRow]:
    """The tasks a user finished since a moment (e.g. the start of today), newest first."""
    rows = db.session.execute(
        select(ItemStationTask, PreparationItem, Station)
        .join(PreparationItem, PreparationItem.id == ItemStationTask.item_id)
        .join(Station, Station.id == ItemStationTask.station_id)
        .where(
            ItemStationTask.assigned_user_id == user_id,
            ItemStationTask.status == DONE,
            ItemStationTask.finished_at >= since,
        )
        .order_by(ItemStationTask.finished_at.desc())
        .limit(QUEUE_LIMIT)
    ).all()
    return [FinishedRow(t, i, s.shown_name) for t, i, s in rows]


def stations_of(user_id: int) -> list[Station]:
    """The stations a user works at, with their groups."""
    return list(
        db.session.scalars(
            select(Station)
            .join(user_stations, user_stations.c.station_id == Station.id)
            .where(user_stations.c.user_id == user_id)
            .options(joinedload(Station.group))
            .order_by(Station.module, Station.ordering, Station.name)
        )
    )
