"""The statistics page's monthly totals (app/preparation/totals_models.py), kept in the
transactions that write what they sum.

What a vehicle adds to the totals (its "shares") is defined once, as grouped SELECTs over its
cost lines, state events and tasks (`_share_queries`): the backfill (`rebuild`) inserts them
for every vehicle in one statement per table, and every write adds the difference between a
touched vehicle's shares after and before it (`Recount`). The writes are seen where they all
pass: the session's flush (cost lines, events, tasks, vehicles changed or deleted through the
ORM, stations deleted) and the session's statements (DML on those tables, as tasks.py's
conditional updates and the import's inserted events). Rows written past the session (COPY,
another connection) need `rebuild`, as bench/scale_data.py does.

A vehicle's shares depend on its module, division, brand, model and salesperson; a change of
one of those moves all its shares. The period figures then read a year of months by index
(app/preparation/statistics_totals.py)."""

from collections import defaultdict
from decimal import Decimal

from sqlalchemy import (
    Date,
    Float,
    Integer,
    case,
    cast,
    event,
    func,
    inspect,
    literal,
    select,
    type_coerce,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import ORMExecuteState, Session

from app.core.models import Division, Region
from app.core.settings import Holiday
from app.preparation.models import ItemStateEvent, ItemStationTask, PreparationItem, Station
from app.preparation.recon_models import ACTUAL, ESTIMATE, ReconLine
from app.preparation.statistics import FLOW, SOLD, _days_between, _utc_day
from app.preparation.totals_models import (
    ENTERED,
    SELLER,
    STAY,
    TASK,
    VEHICLE,
    WORK,
    FlowMonthTotal,
    ReconMonthTotal,
)
from app.preparation.totals_models import SOLD as SOLD_FIGURE

ITEMS = PreparationItem.__table__
LINES = ReconLine.__table__
EVENTS = ItemStateEvent.__table__
TASKS = ItemStationTask.__table__
STATIONS = Station.__table__
HOLIDAYS, DIVISIONS, REGIONS = Holiday.__table__, Division.__table__, Region.__table__
RECON, FLOW_TOTALS = ReconMonthTotal.__table__, FlowMonthTotal.__table__

# Which shares a write can change: cost lines the cost figures; events the flow (entered,
# sold, stays); tasks the cost figures per station and the work; a vehicle's own columns all.
RECON_SHARES, FLOW_SHARES, STAY_SHARES, WORK_SHARES = "recon", "flow", "stays", "work"
ALL = (RECON_SHARES, FLOW_SHARES, STAY_SHARES, WORK_SHARES)
BY_TABLE = {
    LINES.name: (RECON_SHARES,),
    EVENTS.name: (FLOW_SHARES, STAY_SHARES),
    TASKS.name: (RECON_SHARES, WORK_SHARES),
    ITEMS.name: ALL,
}
# The columns the shares read of a vehicle and of a task: a change of another column (a
# vehicle's warning, a task's assignee) changes no total and is not recounted.
WATCHED = {
    ITEMS.name: ("module", "division_id", "brand", "model", "salesperson_id"),
    TASKS.name: ("item_id", "station_id", "status", "started_at", "finished_at"),
}


def _month(column, dialect: str):
    """The first day of the UTC month of a timestamp."""
    if dialect == "postgresql":
        return func.date(func.date_trunc("month", func.timezone("UTC", column)))
    return type_coerce(func.date(column, "start of month"), Date)


def _monday(column, dialect: str):
    """The Monday of the ISO week of a timestamp (UTC)."""
    if dialect == "postgresql":
        return func.date(func.date_trunc("week", func.timezone("UTC", column)))
    return type_coerce(func.date(column, "-6 days", "weekday 1"), Date)


def _of(column, ids):
    return column.in_(ids) if ids is not None else literal(True)


def _recon_rows(ids, dialect: str):
    """Per vehicle, and per task, with an actual line: its sums and the month of its last
    actual line, with the vehicle's key columns."""
    sums = (
        func.coalesce(func.sum(case((LINES.c.phase == ESTIMATE, LINES.c.amount))), 0),
        func.coalesce(func.sum(case((LINES.c.phase == ACTUAL, LINES.c.amount))), 0),
        func.max(case((LINES.c.phase == ACTUAL, LINES.c.created_at))),
    )
    names = ("estimate", "actual", "ended")
    per_item = (
        select(LINES.c.item_id, *(s.label(n) for s, n in zip(sums, names, strict=True)))
        .where(_of(LINES.c.item_id, ids))
        .group_by(LINES.c.item_id)
        .subquery()
    )
    per_task = (
        select(LINES.c.task_id, LINES.c.item_id, *(s.label(n) for s, n in zip(sums, names, strict=True)))
        .where(_of(LINES.c.item_id, ids))
        .group_by(LINES.c.task_id, LINES.c.item_id)
        .subquery()
    )  # fmt: skip
    vehicles = select(
        ITEMS.c.instance_id, ITEMS.c.module, literal(VEHICLE).label("figure"),
        _month(per_item.c.ended, dialect).label("month"), ITEMS.c.division_id, ITEMS.c.brand,
        ITEMS.c.model, literal(0).label("station_id"), per_item.c.estimate, per_item.c.actual,
    ).join(ITEMS, ITEMS.c.id == per_item.c.item_id).where(per_item.c.ended.is_not(None))  # fmt: skip
    tasks = (
        select(
            ITEMS.c.instance_id,
            ITEMS.c.module,
            literal(TASK),
            _month(per_task.c.ended, dialect),
            ITEMS.c.division_id,
            literal(""),
            literal(""),
            TASKS.c.station_id,
            per_task.c.estimate,
            per_task.c.actual,
        )  # fmt: skip
        .join(TASKS, TASKS.c.id == per_task.c.task_id)
        .join(ITEMS, ITEMS.c.id == per_task.c.item_id)
        .where(per_task.c.ended.is_not(None))
    )
    return vehicles.union_all(tasks).subquery()


def _recon_share(ids, dialect: str):
    rows = _recon_rows(ids, dialect)
    key = [rows.c[name] for name in ReconMonthTotal.KEY]
    return select(
        *key, func.count().label("count"), func.sum(rows.c.estimate).label("estimate"),
        func.sum(rows.c.actual).label("actual"),
        func.sum(case((rows.c.actual > rows.c.estimate, 1), else_=0)).label("over"),
    ).group_by(*key)  # fmt: skip


def _flow_columns(instance, module, figure, month, division, week, state, station, seller,
                  amount=None, working=None):  # fmt: skip
    return (
        instance.label("instance_id"), module.label("module"), figure.label("figure"),
        month.label("month"), division.label("division_id"), week.label("week"),
        state.label("state"), station.label("station_id"), seller.label("seller_id"),
        cast(literal(0.0) if amount is None else amount, Float).label("amount"),
        type_coerce(literal(0) if working is None else working, Integer).label("working"),
    )  # fmt: skip


def _weekdays_through(day, dialect: str):
    """Mondays to Fridays from 0001-01-01 through `day` (app.core.workdays, in SQL)."""
    if dialect == "postgresql":
        n = type_coerce(day - cast(literal("0001-01-01"), Date), Integer) + 1
    else:
        n = cast(func.julianday(day) - func.julianday("0001-01-01"), Integer) + 1
    return n // 7 * 5 + case((n % 7 > 5, 5), else_=n % 7)


def _working_days(began, left, dialect: str):
    """app.core.workdays.WorkingDays from `began` to `left`: the weekdays after the first UTC
    date and up to the second, less the instance's holidays on those weekdays (of every
    country or of the vehicle's division's)."""
    first, last = _utc_day(began, dialect), _utc_day(left, dialect)
    if dialect == "postgresql":
        weekday = func.extract("isodow", HOLIDAYS.c.day) < 6
    else:
        weekday = func.strftime("%w", HOLIDAYS.c.day).not_in(("0", "6"))
    holidays = (
        select(func.count(func.distinct(HOLIDAYS.c.day)))
        .where(
            HOLIDAYS.c.instance_id == ITEMS.c.instance_id,
            HOLIDAYS.c.country_id.is_(None) | (HOLIDAYS.c.country_id == REGIONS.c.country_id),
            weekday,
            HOLIDAYS.c.day > first,
            HOLIDAYS.c.day <= last,
        )  # fmt: skip
        .correlate_except(HOLIDAYS)
        .scalar_subquery()
    )
    return _weekdays_through(last, dialect) - _weekdays_through(first, dialect) - holidays


def _flow_rows(ids, dialect: str, kinds, instance_id=None):
    """Per event entering the flow or selling the vehicle; per sale; per stay that ended; per
    task finished: the vehicle's key columns, the month (and week) and the days or minutes."""
    parts = []
    none = literal(0)
    if FLOW_SHARES in kinds:
        entering = (EVENTS.c.to_state == FLOW) & (func.coalesce(EVENTS.c.from_state, 0) < FLOW)
        month = _month(EVENTS.c.created_at, dialect)
        kind = case((entering, literal(ENTERED)), else_=literal(SOLD_FIGURE))
        week = _monday(EVENTS.c.created_at, dialect)
        vehicle = (ITEMS.c.instance_id, ITEMS.c.module)
        parts.append(
            select(*_flow_columns(*vehicle, kind, month, ITEMS.c.division_id, week, none, none, none))
            .join(ITEMS, ITEMS.c.id == EVENTS.c.item_id)
            .where(entering | (EVENTS.c.to_state == SOLD), _of(EVENTS.c.item_id, ids))
        )  # fmt: skip
        seller = func.coalesce(ITEMS.c.salesperson_id, 0)
        parts.append(  # the sales again, per salesperson (not per week: fewer rows)
            select(
                *_flow_columns(
                    *vehicle, literal(SELLER), month, ITEMS.c.division_id, month, none, none, seller
                )
            )
            .join(ITEMS, ITEMS.c.id == EVENTS.c.item_id)
            .where(EVENTS.c.to_state == SOLD, _of(EVENTS.c.item_id, ids))
        )
    if STAY_SHARES in kinds:
        left = func.lead(EVENTS.c.created_at).over(
            partition_by=EVENTS.c.item_id, order_by=(EVENTS.c.created_at, EVENTS.c.id)
        )
        stays = (
            select(EVENTS.c.item_id, EVENTS.c.to_state, EVENTS.c.created_at, left.label("left_at"))
            .where(
                _of(EVENTS.c.item_id, ids),
                literal(True) if instance_id is None else EVENTS.c.instance_id == instance_id,
            )
            .subquery()
        )
        month = _month(stays.c.created_at, dialect)
        parts.append(
            select(
                *_flow_columns(
                    ITEMS.c.instance_id,
                    ITEMS.c.module,
                    literal(STAY),
                    month,
                    ITEMS.c.division_id,
                    month,
                    stays.c.to_state,
                    none,
                    none,
                    _days_between(stays.c.left_at, stays.c.created_at, dialect),
                    _working_days(stays.c.created_at, stays.c.left_at, dialect),
                )  # fmt: skip
            )
            .join(ITEMS, ITEMS.c.id == stays.c.item_id)
            .join(DIVISIONS, DIVISIONS.c.id == ITEMS.c.division_id)  # its country's holidays
            .join(REGIONS, REGIONS.c.id == DIVISIONS.c.region_id)
            .where(stays.c.left_at.is_not(None))
        )
    if WORK_SHARES in kinds:
        month = _month(TASKS.c.finished_at, dialect)
        parts.append(
            select(
                *_flow_columns(
                    ITEMS.c.instance_id,
                    ITEMS.c.module,
                    literal(WORK),
                    month,
                    ITEMS.c.division_id,
                    month,
                    none,
                    TASKS.c.station_id,
                    none,
                    _days_between(TASKS.c.finished_at, TASKS.c.started_at, dialect) * 1440.0,
                )  # fmt: skip
            )
            .join(ITEMS, ITEMS.c.id == TASKS.c.item_id)
            .join(STATIONS, STATIONS.c.id == TASKS.c.station_id)
            .where(
                STATIONS.c.module == ITEMS.c.module,
                TASKS.c.status == "done",
                TASKS.c.started_at.is_not(None),
                TASKS.c.finished_at.is_not(None),
                _of(TASKS.c.item_id, ids),
            )
        )
    return parts[0].union_all(*parts[1:]).subquery() if len(parts) > 1 else parts[0].subquery()


def _flow_share(ids, dialect: str, kinds=ALL, instance_id=None):
    rows = _flow_rows(ids, dialect, kinds, instance_id)
    key = [rows.c[name] for name in FlowMonthTotal.KEY]
    return select(
        *key, func.count().label("count"), func.sum(rows.c.amount).label("amount"),
        func.sum(rows.c.working).label("working"),
    ).group_by(*key)  # fmt: skip


def _share_queries(ids, dialect: str, kinds=ALL):
    """(table, SELECT of its totals' rows) over the vehicles `ids` (None: every vehicle)."""
    queries = []
    if RECON_SHARES in kinds:
        queries.append((RECON, _recon_share(ids, dialect)))
    if {FLOW_SHARES, STAY_SHARES, WORK_SHARES} & set(kinds):
        queries.append((FLOW_TOTALS, _flow_share(ids, dialect, kinds)))
    return queries


def recount_stays(connection, instance_id: int) -> None:
    """An instance's stays afresh (one DELETE, one INSERT ... SELECT): their working days
    follow its holidays and its divisions' countries, which an admin has changed."""
    query = _flow_share(None, connection.dialect.name, (STAY_SHARES,), instance_id)
    table = FLOW_TOTALS
    connection.execute(
        table.delete().where(table.c.instance_id == instance_id, table.c.figure == STAY)
    )
    connection.execute(table.insert().from_select(list(query.selected_columns.keys()), query))


def rebuild(connection) -> None:
    """Every instance's totals afresh from the rows they sum: one INSERT ... SELECT a table."""
    dialect = connection.dialect.name
    for table, query in _share_queries(None, dialect):
        connection.execute(table.delete())
        connection.execute(table.insert().from_select(list(query.selected_columns.keys()), query))


# --- keeping them: the shares of the touched vehicles, before and after a write ----------------


ZERO = {
    "count": 0, "estimate": Decimal(0), "actual": Decimal(0), "over": 0, "amount": 0.0,
    "working": 0,
}  # fmt: skip
MODELS = {RECON.name: ReconMonthTotal, FLOW_TOTALS.name: FlowMonthTotal}


def _values(model, row) -> tuple:
    """The row's values, as Python adds them (Decimal sums, float days and minutes)."""
    return tuple(type(ZERO[name])(row[name] or 0) for name in model.VALUES)


def shares(connection, ids, kinds=ALL) -> dict:
    """{(table name, key): values} of the vehicles `ids`, as the database has them now."""
    found = {}
    ids = sorted(ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        for table, query in _share_queries(chunk, connection.dialect.name, kinds):
            model = MODELS[table.name]
            for row in connection.execute(query).mappings():
                found[(table.name, tuple(row[k] for k in model.KEY))] = _values(model, row)
    return found


def apply(connection, before: dict, after: dict) -> None:
    """Add `after` less `before` to the totals (a row per key, created when missing)."""
    rows = defaultdict(list)
    for name, key in set(before) | set(after):
        model = MODELS[name]
        zero = tuple(ZERO[v] for v in model.VALUES)
        old, new = before.get((name, key), zero), after.get((name, key), zero)
        delta = tuple(n - o for n, o in zip(new, old, strict=True))
        if any(delta):
            rows[model].append(
                dict(zip(model.KEY, key, strict=True)) | dict(zip(model.VALUES, delta, strict=True))
            )
    for model, values in rows.items():
        # in the keys' order: two transactions adding to the same rows lock them in one order
        values.sort(key=lambda row: tuple(row[k] for k in model.KEY))
        table = model.__table__
        dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
        insert = dialect.insert(table)
        added = {name: table.c[name] + insert.excluded[name] for name in model.VALUES}
        connection.execute(
            insert.on_conflict_do_update(index_elements=list(model.KEY), set_=added), values
        )


# --- the hooks: every write of a summed row passes the session's flush or its statements ---------

BEFORE = "statistics_totals_before"  # session.info: the touched vehicles' shares before a flush


def _changed(obj) -> bool:
    """Whether a pending change of a vehicle or task touches a column the shares read."""
    attrs = inspect(obj).attrs
    return any(attrs[name].history.has_changes() for name in WATCHED[obj.__table__.name])


def _touched_by_flush(session: Session) -> dict[str, set[int]]:
    """{kind of shares: vehicle ids} that the session's pending changes touch."""
    touched: dict[str, set[int]] = defaultdict(set)
    # Each of session.new, .dirty and .deleted builds a new set from the whole session: taken
    # once here, not per object (a night's service-due flush holds 36,681 new tasks at 1M).
    new, modified, deleted = session.new, session.dirty, session.deleted
    for obj in (*new, *modified, *deleted):
        if isinstance(obj, ReconLine | ItemStateEvent | ItemStationTask):
            dirty = obj in modified and obj not in deleted
            if obj.item_id is None or (dirty and not session.is_modified(obj)):
                continue
            if dirty and isinstance(obj, ItemStationTask) and not _changed(obj):
                continue
            kinds = BY_TABLE[obj.__table__.name]
            if isinstance(obj, ItemStationTask) and obj in new:
                # a new task has no cost lines yet; it counts as work only if done
                kinds = (WORK_SHARES,) if obj.status == "done" else ()
            for kind in kinds:
                touched[kind].add(obj.item_id)
        elif isinstance(obj, PreparationItem) and obj.id is not None:
            if obj in deleted or _changed(obj):
                for kind in ALL:
                    touched[kind].add(obj.id)
        elif isinstance(obj, Station) and obj in deleted and obj.id is not None:
            # its tasks and their cost lines go with it (ON DELETE CASCADE)
            found = session.connection().execute(
                select(TASKS.c.item_id).where(TASKS.c.station_id == obj.id)
            )
            for item_id in found.scalars():
                for kind in ALL:
                    touched[kind].add(item_id)
    return touched


def _shares_of(connection, touched: dict[str, set[int]]) -> dict:
    found = {}
    for kind, ids in touched.items():
        found |= shares(connection, ids, (kind,))
    return found


def _calendars_changed(session: Session) -> list:
    """The holidays, divisions and regions whose change moves working days: their instance's
    stays are recounted after the flush."""
    changed = [
        o for o in (*session.new, *session.dirty, *session.deleted) if isinstance(o, Holiday)
    ]
    for obj in session.dirty:
        column = {Division: "region_id", Region: "country_id"}.get(type(obj))
        if column and inspect(obj).attrs[column].history.has_changes():
            changed.append(obj)
    return changed


@event.listens_for(Session, "before_flush")
def _before_flush(session: Session, _context, _instances) -> None:
    touched = _touched_by_flush(session)
    before = _shares_of(session.connection(), touched) if touched else {}
    session.info[BEFORE] = (touched, before, _calendars_changed(session))


@event.listens_for(Session, "after_flush")
def _after_flush(session: Session, _context) -> None:
    touched, before, calendars = session.info.pop(BEFORE, ({}, {}, []))
    if touched:
        connection = session.connection()
        apply(connection, before, _shares_of(connection, touched))
    for instance_id in sorted({o.instance_id for o in calendars} - {None}):
        recount_stays(session.connection(), instance_id)


@event.listens_for(Session, "do_orm_execute")
def _recount_statement(state: ORMExecuteState):
    """An INSERT, UPDATE or DELETE of summed rows run through the session (tasks.py's
    conditional updates, the import's events): the shares of its vehicles before and after."""
    if not (state.is_insert or state.is_update or state.is_delete):
        return None
    table = getattr(state.statement, "table", None)
    kinds = BY_TABLE.get(getattr(table, "name", None))
    if not kinds or state.execution_options.get("totals_kept"):
        return None
    if table.name == ITEMS.name and state.is_insert:
        return None  # a new vehicle has no shares until its events and lines
    watched = set(WATCHED.get(table.name, ()))
    if watched and state.is_update and not set(state.statement.compile().params) & watched:
        return None
    connection = state.session.connection()
    if state.is_insert:
        params = state.parameters if isinstance(state.parameters, list) else [state.parameters]
        ids = {p.get("item_id") for p in params if p} - {None}
    else:
        key = table.c.id if table.name == ITEMS.name else table.c.item_id
        ids = set(connection.execute(select(key).where(state.statement.whereclause)).scalars())
    if not ids:
        return None
    touched = {kind: ids for kind in kinds}
    before = _shares_of(connection, touched)
    result = state.invoke_statement()
    apply(connection, before, _shares_of(connection, touched))
    return result
