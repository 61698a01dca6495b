"""A dashboard widget's value from live data: counts, averages, charts, lists and tiers.

A widget's value is computed from the instance's own data over the widget's module, divisions,
item filters and period, with a constant number of queries whatever the number of vehicles:
counts of items in a state come from the maintained counters (ItemStateCount) when the widget
filters on nothing but the state and the divisions; everything else is one grouped query.
"""

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from flask_babel import lazy_gettext as _l
from sqlalchemy import Float, cast, func, literal, or_, select, type_coerce

from app.core.models import Instance, UTCDateTime, utcnow
from app.core.tenancy import active_instance_id
from app.core.workdays import active_counter, average_days, calendar_days, day_counter
from app.dashboard.models import DashboardWidget
from app.extensions import db
from app.preparation import lists as list_svc
from app.preparation.items import buttons_for
from app.preparation.models import ItemStateCount, ItemStateEvent, PreparationItem
from app.preparation.queries import DIVISION_VALUE, ItemFilters, item_query
from app.preparation.states import BY_ID
from app.preparation.statistics import _days_between, _utc_day, period_start, stock_states
from app.preparation.statistics_totals import throughput
from app.ranking.services import division_summary

FLOW, SOLD = 4, 7
IN_STOCK = (2, 3, 4, 5, 6)
# Figures a number widget can show: name -> (title, unit). A unit of "ratio" is shown as 'x'.
METRICS = {
    "count": (_l("Vehicles"), "vehicles"),
    "avgDaysInState": (_l("Average days in state"), "days"),
    "stockDays": (_l("Average stock days"), "days"),
    "leadTime": (_l("Average lead time, flow to sold"), "days"),
    "sold": (_l("Sold in the period"), "vehicles"),
    "entered": (_l("Entered the flow in the period"), "vehicles"),
    "salesSum": (_l("Sum of sales prices"), "currency"),
    "turnover": (_l("Stock turnover (sold in the period per vehicle in stock)"), "ratio"),
}
SUMMARY_SECTIONS = (
    (_l("Purchase"), (1, 2, 3)),
    (_l("Preparation and stock"), (4, 5, 6)),
    (_l("Sales"), (7, 8)),
)
LIST_LIMIT = 10


class NotAllowed(Exception):
    """The widget covers data the user may not see: it is shown as the error type."""


@dataclass(frozen=True)
class Scope:
    """What a widget reads: the module, the division ids and the item filters."""

    module: str
    division_ids: tuple[int, ...]
    filters: ItemFilters


def period_since(period: str, today: date | None = None) -> datetime:
    """The start (UTC) of the current week (Monday), month or year."""
    today = today or utcnow().date()
    if period == "week":
        day = today - timedelta(days=today.weekday())
    elif period == "year":
        day = date(today.year, 1, 1)
    else:
        day = date(today.year, today.month, 1)
    return datetime(day.year, day.month, day.day, tzinfo=utcnow().tzinfo)


def _items(scope: Scope, *, state: int | None = None, stock: bool = False):
    """The ids of the scope's items (one subquery, for IN)."""
    stmt = item_query(scope.module, list(scope.division_ids), state=state, filters=scope.filters)
    if stock:
        stmt = stmt.where(PreparationItem.state.in_(IN_STOCK))
    return stmt.order_by(None).with_only_columns(PreparationItem.id)


def _in_scope(scope: Scope, item_id_column):
    """The row's vehicle is one of the scope's, looked up by its key once per row (a correlated
    subquery): widgets over a period start from its events through their (instance, to_state,
    created_at) index. `IN (the scope's items)` was planned, over a year of events, as a hash
    of every vehicle of the module (statistics.of_item, issue 34)."""
    vehicle = (
        _items(scope)
        .where(PreparationItem.id == item_id_column)
        .correlate_except(PreparationItem)
        .limit(1)
    )
    return item_id_column == vehicle.scalar_subquery()


def _counter_states(scope: Scope) -> dict[int, int]:
    """Items per state from the maintained counters: one grouped query over a few dozen rows."""
    rows = db.session.execute(
        select(ItemStateCount.state, func.coalesce(func.sum(ItemStateCount.count), 0))
        .where(
            ItemStateCount.module == scope.module,
            ItemStateCount.division_id.in_(scope.division_ids),
        )
        .group_by(ItemStateCount.state)
    ).all()
    return {int(s): int(n) for s, n in rows}


def per_state(scope: Scope) -> dict[int, int]:
    """Items per state in the scope: the counters when only state and divisions filter."""
    if scope.filters.only_scope:
        counts = _counter_states(scope)
        if scope.filters.state is not None:
            return {scope.filters.state: counts.get(scope.filters.state, 0)}
        return counts
    stmt = item_query(scope.module, list(scope.division_ids), filters=scope.filters)
    rows = db.session.execute(
        stmt.order_by(None)
        .with_only_columns(PreparationItem.state, func.count())
        .group_by(PreparationItem.state)
    ).all()
    return {int(s): int(n) for s, n in rows}


def _events_count(scope: Scope, to_state: int, since: datetime) -> int:
    conditions = [
        ItemStateEvent.to_state == to_state,
        ItemStateEvent.created_at >= since,
        _in_scope(scope, ItemStateEvent.item_id),
    ]
    if to_state == FLOW:  # coming back from parked or showroom is not entering the flow
        conditions.append(or_(ItemStateEvent.from_state.is_(None), ItemStateEvent.from_state < 4))
    return int(db.session.scalar(select(func.count()).where(*conditions)) or 0)


def _average_days(scope: Scope, column, *, stock: bool = False) -> float | None:
    """The average days since `column` over the scope's items, as the instance counts days: by
    the database in calendar days, else one row per item through the working-day counter."""
    now = utcnow()
    stmt = item_query(scope.module, list(scope.division_ids), filters=scope.filters)
    if stock:  # as the statistics count stock (measureToDelivered: until delivery)
        instance = db.session.get(Instance, active_instance_id())
        stmt = stmt.where(PreparationItem.state.in_(stock_states(instance, scope.module)))
    stmt = stmt.order_by(None)
    if (count_days := active_counter()) is not calendar_days:
        rows = db.session.execute(
            stmt.with_only_columns(type_coerce(column, UTCDateTime), PreparationItem.division_id)
        )
        return average_days(count_days, ((start, now, d) for start, d in rows))
    days = _days_between(literal(now, UTCDateTime), column)
    value = db.session.scalar(stmt.with_only_columns(func.avg(cast(days, Float))))
    return None if value is None else round(float(value), 1)


def _first_event_at(item_id_column):
    """When an item entered the module: its first state event (a correlated lookup on the
    (item_id, created_at) index, one per item), else None."""
    first = ItemStateEvent.__table__.alias("first_event")
    return (
        select(func.min(first.c.created_at))
        .where(first.c.item_id == item_id_column)
        .correlate_except(first)
        .scalar_subquery()
    )


def _stock_days(scope: Scope) -> float | None:
    """Average days since the vehicles in stock entered the module (their first state event,
    else their creation), as the statistics count stock days."""
    entered = func.coalesce(_first_event_at(PreparationItem.id), PreparationItem.created_at)
    return _average_days(scope, entered, stock=True)


def _lead_time(scope: Scope, since: datetime) -> float | None:
    """Average days from entering the flow to being sold, for the items sold in the period:
    the sold events come from the (to_state, created_at) index, each one's flow entry from the
    (item_id, created_at) index."""
    sold = ItemStateEvent.__table__.alias("sold_event")
    flow = ItemStateEvent.__table__.alias("flow_event")
    entered = (
        select(func.min(flow.c.created_at))
        .where(flow.c.item_id == sold.c.item_id, flow.c.to_state == FLOW)
        .correlate_except(flow)
        .scalar_subquery()
    )
    conditions = [
        sold.c.to_state == SOLD,
        sold.c.created_at >= since,
        _in_scope(scope, sold.c.item_id),
    ]
    if (instance_id := active_instance_id()) is not None:  # the index leads with the instance
        conditions.append(sold.c.instance_id == instance_id)
    if (count_days := active_counter()) is not calendar_days:
        rows = db.session.execute(
            select(
                type_coerce(entered, UTCDateTime),
                type_coerce(sold.c.created_at, UTCDateTime),
                PreparationItem.division_id,
            )
            .select_from(sold)
            .join(PreparationItem, PreparationItem.id == sold.c.item_id)
            .where(*conditions, entered.is_not(None))
        )
        return average_days(count_days, rows)
    stmt = (
        select(func.avg(cast(_days_between(sold.c.created_at, entered), Float)))
        .select_from(sold)
        .where(*conditions)
    )
    value = db.session.scalar(stmt)
    return None if value is None else round(float(value), 1)


def number_value(scope: Scope, metric: str, period: str) -> dict:
    """performanceValue and performanceUnit of a number widget."""
    since = period_since(period)
    unit = METRICS.get(metric, METRICS["count"])[1]
    if metric == "avgDaysInState":
        value = _average_days(scope, PreparationItem.state_changed_at)
    elif metric == "stockDays":
        value = _stock_days(scope)
    elif metric == "leadTime":
        value = _lead_time(scope, since)
    elif metric == "sold":
        value = _events_count(scope, SOLD, since)
    elif metric == "entered":
        value = _events_count(scope, FLOW, since)
    elif metric == "salesSum":
        stmt = item_query(scope.module, list(scope.division_ids), filters=scope.filters)
        total = db.session.scalar(
            stmt.order_by(None).with_only_columns(func.sum(PreparationItem.sales_price))
        )
        value = round(float(total or 0))
    elif metric == "turnover":
        sold = _events_count(scope, SOLD, since)
        stock = sum(n for s, n in per_state(scope).items() if s in IN_STOCK)
        value = round(sold / stock, 2) if stock else 0
    else:
        value = sum(per_state(scope).values())
    return {"performanceValue": value, "performanceUnit": unit}


def chart_value(scope: Scope, metric: str, tick_span: str, today: date | None = None) -> dict:
    """Vehicles sold or entering the flow per month (twelve) or per ISO week (twelve). A
    widget over whole divisions reads the statistics' monthly totals (a year of months,
    whatever the number of vehicles); one with item filters counts the period's events."""
    today = today or utcnow().date()
    to_state = SOLD if metric == "sold" else FLOW
    if tick_span == "week":
        monday = today - timedelta(days=today.weekday())
        starts = [monday - timedelta(weeks=n) for n in range(11, -1, -1)]
    else:
        first = period_start(today)
        starts = []
        year, month = first.year, first.month
        for _n in range(12):
            starts.append(date(year, month, 1))
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    if scope.filters.only_scope and scope.filters.state is None:
        data = _counts_from_totals(scope, to_state, tick_span == "week", starts, today)
    else:
        data = _counts_from_events(scope, to_state, starts)
    if tick_span == "week":
        labels = [f"{s.isocalendar()[0]}-W{s.isocalendar()[1]:02d}" for s in starts]
    else:
        labels = [f"{s.year}-{s.month:02d}" for s in starts]
    return {
        "chart": {
            "type": None,
            "unit": "vehicles",
            "timePeriod": tick_span,
            "tickSpan": tick_span if tick_span in ("week", "month") else "other",
            "labels": labels,
            "data": data,
        }
    }


def _counts_from_totals(scope: Scope, to_state: int, weekly: bool, starts, today) -> list[int]:
    """Per start: the scope's divisions' vehicles entering the flow or sold, from the totals
    the statistics page reads (app.preparation.statistics_totals.throughput)."""
    flow = throughput(scope.module, scope.division_ids, today)
    sold = to_state == SOLD
    if weekly:
        found = dict(zip(flow.weeks, flow.sold_week if sold else flow.entered_week, strict=True))
    else:
        found = dict(zip(flow.months, flow.sold_month if sold else flow.entered_month, strict=True))
    return [found.get(start, 0) for start in starts]


def _counts_from_events(scope: Scope, to_state: int, starts) -> list[int]:
    """Per start: the scope's vehicles entering the flow or sold, from the period's events
    (one grouped query of per-day counts, bucketed here)."""
    since = datetime(starts[0].year, starts[0].month, starts[0].day, tzinfo=utcnow().tzinfo)
    day = _utc_day(ItemStateEvent.created_at)
    conditions = [
        ItemStateEvent.to_state == to_state,
        ItemStateEvent.created_at >= since,
        _in_scope(scope, ItemStateEvent.item_id),
    ]
    if to_state == FLOW:
        conditions.append(or_(ItemStateEvent.from_state.is_(None), ItemStateEvent.from_state < 4))
    rows = db.session.execute(select(day, func.count()).where(*conditions).group_by(day)).all()
    data = [0] * len(starts)
    for raw_day, n in rows:
        d = raw_day if isinstance(raw_day, date) else date.fromisoformat(str(raw_day)[:10])
        index = max(i for i, s in enumerate(starts) if s <= d)
        data[index] += int(n)
    return data


def summary_value(scope: Scope) -> dict:
    """Sections of states with their counts; sections without vehicles are left out."""
    counts = per_state(scope)
    total = sum(counts.get(s, 0) for s in range(1, 9))
    sections = []
    for title, states in SUMMARY_SECTIONS:
        section_total = sum(counts.get(s, 0) for s in states)
        if not section_total:
            continue
        sections.append(
            {
                "title": str(title),
                "percentage": round(100 * section_total / total) if total else 0,
                "items": [
                    {
                        "id": s,
                        "title": str(BY_ID[s].title),
                        "value": counts.get(s, 0),
                        "extraValue": round(100 * counts.get(s, 0) / section_total),
                    }
                    for s in states
                ],
            }
        )
    columns = max((len(s["items"]) for s in sections), default=0)
    return {"sections": sections, "columnsCount": columns, "totalItemsCount": total}


def list_value(scope: Scope, group_by: str) -> dict:
    """Values with the filter each adds to the overview link: per state or per brand."""
    if group_by == "brand":
        stmt = item_query(scope.module, list(scope.division_ids), filters=scope.filters)
        n = func.count().label("n")
        rows = db.session.execute(
            stmt.order_by(None)
            .with_only_columns(PreparationItem.brand, n)
            .group_by(PreparationItem.brand)
            .order_by(n.desc(), PreparationItem.brand)
            .limit(LIST_LIMIT)
        ).all()
        values = [{"title": b, "value": int(c), "filters": {"brand": b}} for b, c in rows]
    else:
        counts = per_state(scope)
        values = [
            {
                "title": str(s.title),
                "value": counts.get(s.id, 0),
                "filters": {"enum[state]": str(s.id)},
            }
            for s in BY_ID.values()
            if s.id != 9 and (scope.filters.state is None or s.id == scope.filters.state)
        ]
    return {"values": values}


def custom_list_value(widget: DashboardWidget, v, rows_limit: int) -> dict:
    """The user's own custom list: its first rows with seen markers; raises NotAllowed for a
    list that is not the user's."""
    list_id = (widget.options or {}).get("customListId")
    custom_list = list_svc.get_list(list_id, v.user.id) if isinstance(list_id, int) else None
    if custom_list is None:
        raise NotAllowed
    visible = [d.id for d in v.visible_divisions]
    rows = list_svc.list_rows(custom_list, v.user.id, visible, day_counter(v.instance))
    shown = rows[:rows_limit]
    objects = (
        list(db.session.scalars(select(PreparationItem).where(PreparationItem.id.in_([r.id for r in shown]))))
        if shown else []
    )  # fmt: skip
    links = {i.id: (i.hub_item_id, i.central_item_id) for i in objects}
    config = widget.config or {}
    buttons = buttons_for(objects) if config.get("showStateInteractionButtons") else {}
    items = [
        {
            "id": r.id,
            "module": r.module,
            "state": r.state,
            "stateTitle": r.state_title,
            "stateSegment": BY_ID[r.state].segment,
            "regno": r.regno,
            "fullModelName": r.model,
            "division": r.division,
            "daysInState": r.days_in_state,
            "stations": {
                "done": r.stations_done,
                "total": r.stations_total,
                "active": r.active_station,
            },
            "warning": r.warning,
            "activeAdvert": r.active_advert,
            "hubItemId": links.get(r.id, (None, None))[0],
            "centralItem": bool(links.get(r.id, (None, None))[1]),
            "centralItemId": links.get(r.id, (None, None))[1],
            "customListSeenId": r.seen_id,
            "stateButtons": [
                {"toState": b.to_state, "title": b.title} for b in buttons.get(r.id, [])
            ],
        }  # fmt: skip
        for r in shown
    ]
    return {
        "listId": custom_list.id,
        "title": custom_list.name,
        "itemsCount": len(items),
        "totalItemsCount": len(rows),
        "items": items,
        "config": widget.config or {},
    }


def tier_value(widget: DashboardWidget, v) -> dict:
    """The tier widget's value: the ranking division summary of the widget's one division
    ({divisionData, seasonData, globalStatistics}, spec 01 section 3), or {"summary": None}
    (the empty state) when the widget names no single division or it is not ranked."""
    values = (widget.options or {}).get("divisions") or []
    match = DIVISION_VALUE.match(values[0] or "") if len(values) == 1 else None
    if not match or match.group(2) != "division":
        return {"summary": None}
    summary = division_summary(int(match.group(3)))
    return {"summary": summary if summary and summary["divisionData"] else None}
