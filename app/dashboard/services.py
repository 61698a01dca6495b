"""The dashboard's rules: which data a widget may show, its value from live data, and goals.

A widget's value is computed from the instance's own data over the widget's module, divisions,
item filters and period, with a constant number of queries whatever the number of vehicles:
counts of items in a state come from the maintained counters (ItemStateCount) when the widget
filters on nothing but the state and the divisions; everything else is one grouped query. The
result is kept per instance, counts version (which every added or moved vehicle changes) and
widget definition for a minute, in a cache like the statistics' (app.core.cache.LRUCache).
"""

import json
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import Float, cast, func, literal, or_, select

from app.bookings import services as bookings
from app.core.cache import LRUCache
from app.core.i18n import current_locale, current_time_zone
from app.core.models import Division, Region, UTCDateTime, utcnow
from app.core.modules import MODULE_NAMES
from app.core.tenancy import active_instance_id
from app.core.workdays import day_counter
from app.dashboard.models import DashboardWidget, Goal
from app.extensions import db
from app.preparation import lists as list_svc
from app.preparation.items import buttons_for
from app.preparation.models import ItemStateCount, ItemStateEvent, PreparationItem
from app.preparation.queries import DIVISION_VALUE, ItemFilters, division_scope, item_query
from app.preparation.states import BY_ID, MODULES
from app.preparation.statistics import _days_between, _utc_day, period_start
from app.ranking.services import division_summary

TYPES = ("number", "chart", "numberSummary", "list", "customList", "tier", "bookings")
DASHBOARDS = ("my", *MODULES)
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
CHART_METRICS = ("sold", "entered")
PERIODS = {"week": _l("This week"), "month": _l("This month"), "year": _l("This year")}
LIST_GROUPS = {"state": _l("Per state"), "brand": _l("Per brand")}
SUMMARY_SECTIONS = (
    (_l("Purchase"), (1, 2, 3)),
    (_l("Preparation and stock"), (4, 5, 6)),
    (_l("Sales"), (7, 8)),
)
LIST_LIMIT = 10
VALUES = LRUCache(size=2048, ttl=60.0)
# Averages over thousands of vehicles (stock days, lead time, days in state) barely move when one
# vehicle does, and each costs an index lookup per vehicle: they are kept for five minutes
# whatever moves, so a busy instance's auto-updates do not recompute them on every move.
AVERAGES = LRUCache(size=1024, ttl=300.0)
SLOW_METRICS = frozenset({"stockDays", "leadTime", "avgDaysInState"})


class NotAllowed(Exception):
    """The widget covers data the user may not see: it is shown as the error type."""


@dataclass(frozen=True)
class Scope:
    """What a widget reads: the module, the division ids and the item filters."""

    module: str
    division_ids: tuple[int, ...]
    filters: ItemFilters


# --- access ----------------------------------------------------------------------------------


def scope_of(widget: DashboardWidget, v) -> Scope:
    """The widget's module, divisions and filters within what the viewer may see; raises
    NotAllowed when it names a module or a division the viewer may not see."""
    options = widget.options or {}
    module = options.get("module")
    if module not in MODULES or module not in v.modules:
        raise NotAllowed
    choices = {c.value for c in v.division_choices}
    values = options.get("divisions") or ["all"]
    if any(value not in choices for value in values):
        raise NotAllowed
    ids: set[int] = set()
    for value in values:
        ids.update(division_scope(value, v.visible_divisions, []))
    try:
        filters = ItemFilters.from_args(widget.item_filters or {})
    except ValueError:
        filters = ItemFilters()
    filters.division = None  # the widget's divisions decide, not a filter
    return Scope(module, tuple(sorted(ids)), filters)


# --- values ----------------------------------------------------------------------------------


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
        ItemStateEvent.item_id.in_(_items(scope)),
    ]
    if to_state == FLOW:  # coming back from parked or showroom is not entering the flow
        conditions.append(or_(ItemStateEvent.from_state.is_(None), ItemStateEvent.from_state < 4))
    return int(db.session.scalar(select(func.count()).where(*conditions)) or 0)


def _average_days(scope: Scope, column, *, stock: bool = False) -> float | None:
    now = literal(utcnow(), UTCDateTime)
    stmt = item_query(scope.module, list(scope.division_ids), filters=scope.filters)
    if stock:
        stmt = stmt.where(PreparationItem.state.in_(IN_STOCK))
    value = db.session.scalar(
        stmt.order_by(None).with_only_columns(func.avg(cast(_days_between(now, column), Float)))
    )
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
    now = literal(utcnow(), UTCDateTime)
    stmt = item_query(scope.module, list(scope.division_ids), filters=scope.filters)
    value = db.session.scalar(
        stmt.where(PreparationItem.state.in_(IN_STOCK))
        .order_by(None)
        .with_only_columns(func.avg(cast(_days_between(now, entered), Float)))
    )
    return None if value is None else round(float(value), 1)


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
    stmt = (
        select(func.avg(cast(_days_between(sold.c.created_at, entered), Float)))
        .select_from(sold)
        .where(
            sold.c.to_state == SOLD,
            sold.c.created_at >= since,
            sold.c.item_id.in_(_items(scope)),
        )
    )
    if (instance_id := active_instance_id()) is not None:  # the index leads with the instance
        stmt = stmt.where(sold.c.instance_id == instance_id)
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
    """Vehicles sold or entering the flow per month (twelve) or per ISO week (twelve): one
    grouped query of per-day counts, bucketed here."""
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
    since = datetime(starts[0].year, starts[0].month, starts[0].day, tzinfo=utcnow().tzinfo)
    day = _utc_day(ItemStateEvent.created_at)
    conditions = [
        ItemStateEvent.to_state == to_state,
        ItemStateEvent.created_at >= since,
        ItemStateEvent.item_id.in_(_items(scope)),
    ]
    if to_state == FLOW:
        conditions.append(or_(ItemStateEvent.from_state.is_(None), ItemStateEvent.from_state < 4))
    rows = db.session.execute(select(day, func.count()).where(*conditions).group_by(day)).all()
    data = [0] * len(starts)
    for raw_day, n in rows:
        d = raw_day if isinstance(raw_day, date) else date.fromisoformat(str(raw_day)[:10])
        index = max(i for i, s in enumerate(starts) if s <= d)
        data[index] += int(n)
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


# --- goals -----------------------------------------------------------------------------------


def goal_site(values: list[str], hide_goals: bool) -> tuple[str, int] | None:
    """The site a goal is looked up for (spec 02 section 5): exactly one division value, not
    'all', of type division, region or country, and goals not hidden; else None."""
    if hide_goals or len(values) != 1:
        return None
    match = DIVISION_VALUE.match(values[0] or "")
    if not match or values[0] == "all":
        return None
    return match.group(2), int(match.group(3))


def find_goal(name: str, module: str, site: tuple[str, int] | None) -> dict | None:
    """The most recently defined goal for this figure, module and site, or a placeholder goal
    without value; None when no goal is looked up at all."""
    if site is None:
        return None
    kind, ident = site
    column = {"division": Goal.division_id, "region": Goal.region_id, "country": Goal.country_id}
    goal = db.session.scalars(
        select(Goal)
        .where(Goal.name == name, Goal.module == module, column[kind] == ident)
        .order_by(Goal.created_at.desc(), Goal.id.desc())
        .limit(1)
    ).first()
    if goal is None:
        return {"name": name, "goalName": None, "goalValue": None, "acceptance": None,
                "module": module, "timePeriod": None, "translate": False}  # fmt: skip
    return {
        "name": goal.name,
        "goalName": goal.goal_name,
        "goalValue": goal.goal_value,
        "acceptance": goal.acceptance,
        "divisionID": goal.division_id,
        "regionID": goal.region_id,
        "countryID": goal.country_id,
        "module": goal.module,
        "timePeriod": goal.time_period,
        "translate": goal.translate,
    }


# --- the widget as the island reads it --------------------------------------------------------


def label_of(widget: DashboardWidget, v) -> dict:
    """The label's parts (spec 02): custom label, the division (or how many), the module."""
    options = widget.options or {}
    values = options.get("divisions") or ["all"]
    names = {c.value: c.label for c in v.division_choices}
    module = options.get("module")
    return {
        "custom": widget.title or "",
        "division": names.get(values[0]) if len(values) == 1 else None,
        "divisionCount": len(values),
        "module": str(MODULE_NAMES[module]) if module in MODULE_NAMES else None,
        "moduleKey": module,
    }


def widget_meta(widget: DashboardWidget, v) -> dict:
    """The widget without its value: what the page and the editor need."""
    options = dict(widget.options or {})
    return {
        "id": widget.id,
        "type": widget.type,
        "title": widget.title or "",
        "h": widget.h,
        "w": widget.w,
        "canEdit": widget.user_id == v.user.id,
        "autoUpdate": widget.auto_update,
        "label": label_of(widget, v),
        "options": {
            "customTitle": widget.title or "",
            "module": options.get("module"),
            "divisions": options.get("divisions") or ["all"],
            "metric": options.get("metric", "count"),
            "period": options.get("period", "month"),
            "chartType": options.get("chartType", "bar"),
            "tickSpan": options.get("tickSpan", "month"),
            "colorConditions": options.get("colorConditions") or [],
            "gauge": bool(options.get("gauge")),
            "minimum": options.get("minimum"),
            "groupBy": options.get("groupBy", "state"),
            "customListId": options.get("customListId"),
        },
        "config": widget.config or {},
        "itemFilters": widget.item_filters or {},
    }


def _cache_key(widget: DashboardWidget, v, scope: Scope | None) -> tuple:
    definition = json.dumps(
        [widget.type, widget.options, widget.item_filters, widget.config, widget.h],
        sort_keys=True, default=str,
    )  # fmt: skip
    instance = v.instance
    slow = widget.type == "number" and (widget.options or {}).get("metric") in SLOW_METRICS
    # The values hold translated titles (states, sections, months): one entry per language.
    return (
        instance.id, None if slow else instance.counts_version, definition,
        scope.division_ids if scope else None, utcnow().date(), current_locale(),
    )  # fmt: skip


def _cache_for(widget: DashboardWidget) -> LRUCache:
    slow = widget.type == "number" and (widget.options or {}).get("metric") in SLOW_METRICS
    return AVERAGES if slow else VALUES


def widget_payload(widget: DashboardWidget, v) -> dict:
    """The widget with its value computed from live data, or as type error when it covers
    data the user may not see (spec 02 section 6)."""
    meta = widget_meta(widget, v)
    options = widget.options or {}
    try:
        if widget.type == "customList":
            meta["value"] = custom_list_value(widget, v, 3 if widget.h == 1 else 9)
        elif widget.type == "tier":
            scope_of(widget, v)
            meta["value"] = tier_value(widget, v)
        elif widget.type == "bookings":
            scope = scope_of(widget, v)
            meta["value"] = bookings.widget_value(list(scope.division_ids), current_time_zone())
        else:
            scope = scope_of(widget, v)
            key = _cache_key(widget, v, scope)
            cache = _cache_for(widget)
            value = cache.get(key)
            if value is None:
                value = _compute(widget, scope)
                cache.put(key, value)
            meta["value"] = value
            if widget.type in ("number", "chart"):
                site = goal_site(options.get("divisions") or ["all"], bool(widget.config.get("hideGoals")))  # fmt: skip
                meta["goal"] = find_goal(options.get("metric", "count"), scope.module, site)
    except NotAllowed:
        meta["type"] = "error"
        meta["value"] = {"message": _("insufficient permissions to view data")}
    return meta


def _compute(widget: DashboardWidget, scope: Scope) -> dict:
    options = widget.options or {}
    if widget.type == "number":
        return number_value(scope, options.get("metric", "count"), options.get("period", "month"))
    if widget.type == "chart":
        value = chart_value(scope, options.get("metric", "sold"), options.get("tickSpan", "month"))
        value["chart"]["type"] = options.get("chartType", "bar")
        return value
    if widget.type == "numberSummary":
        return summary_value(scope)
    return list_value(scope, options.get("groupBy", "state"))


# --- the dashboards --------------------------------------------------------------------------


def widgets_of(user_id: int, dashboard: str) -> list[DashboardWidget]:
    return list(
        db.session.scalars(
            select(DashboardWidget)
            .where(DashboardWidget.user_id == user_id, DashboardWidget.dashboard == dashboard)
            .order_by(DashboardWidget.position, DashboardWidget.id)
        )
    )


def get_widget(widget_id: int, user_id: int) -> DashboardWidget | None:
    """The user's own widget (another user's or another instance's is not found)."""
    return db.session.scalars(
        select(DashboardWidget).where(
            DashboardWidget.id == widget_id, DashboardWidget.user_id == user_id
        )
    ).first()


def add_widget(user_id: int, dashboard: str, fields: dict) -> DashboardWidget:
    """A new widget at the end of the dashboard."""
    last = db.session.scalar(
        select(func.max(DashboardWidget.position)).where(
            DashboardWidget.user_id == user_id, DashboardWidget.dashboard == dashboard
        )
    )
    widget = DashboardWidget(user_id=user_id, dashboard=dashboard, position=(last or 0) + 1)
    apply_fields(widget, fields)
    db.session.add(widget)
    db.session.flush()
    return widget


def apply_fields(widget: DashboardWidget, fields: dict) -> None:
    for name in ("type", "title", "h", "w", "auto_update", "options", "config", "item_filters"):
        if name in fields:
            setattr(widget, name, fields[name])


def copy_widget(widget: DashboardWidget) -> DashboardWidget:
    """A copy of a widget right after it."""
    later = [
        w for w in widgets_of(widget.user_id, widget.dashboard) if w.position > widget.position
    ]
    for other in later:
        other.position += 1
    copy = DashboardWidget(
        user_id=widget.user_id, dashboard=widget.dashboard, position=widget.position + 1,
        type=widget.type, title=widget.title, h=widget.h, w=widget.w,
        auto_update=widget.auto_update, options=dict(widget.options or {}),
        config=dict(widget.config or {}), item_filters=dict(widget.item_filters or {}),
    )  # fmt: skip
    db.session.add(copy)
    db.session.flush()
    return copy


def save_layout(user_id: int, dashboard: str, ids: list[int]) -> bool:
    """Put the dashboard's widgets in this order; False when the ids are not exactly its own."""
    widgets = {w.id: w for w in widgets_of(user_id, dashboard)}
    if sorted(ids) != sorted(widgets) or len(set(ids)) != len(ids):
        return False
    for position, widget_id in enumerate(ids, start=1):
        widgets[widget_id].position = position
    db.session.flush()
    return True


def default_widgets(module: str) -> list[dict]:
    """The widgets a module dashboard starts with: the module's own figures."""
    base = {"module": module, "divisions": ["all"]}
    return [
        {"type": "number", "title": _("In the flow"), "options": {**base, "metric": "count"},
         "item_filters": {"enum[state]": "4"}},
        {"type": "number", "title": _("Sold this month"), "options": {**base, "metric": "sold", "period": "month"}},
        {"type": "number", "title": _("Stock days"), "options": {**base, "metric": "stockDays",
         "gauge": True, "minimum": 0, "colorConditions": [
             {"operator": "lt", "value": 30, "color": "#067647"},
             {"operator": "lt", "value": 60, "color": "#b54708"},
             {"operator": "gt", "value": 60, "color": "#b42318"}]}},
        {"type": "chart", "title": _("Sold per month"), "h": 2, "w": 2,
         "options": {**base, "metric": "sold", "chartType": "bar", "tickSpan": "month"}},
        {"type": "numberSummary", "title": _("Vehicles per state"), "w": 2, "options": base},
        {"type": "list", "title": _("Per state"), "h": 2, "options": {**base, "groupBy": "state"}},
    ]  # fmt: skip


def ensure_module_dashboard(user_id: int, module: str) -> None:
    """A module dashboard opened for the first time gets the module's own widgets."""
    if widgets_of(user_id, module):
        return
    for fields in default_widgets(module):
        add_widget(user_id, module, fields)


def division_sites() -> list[tuple[str, int, str]]:
    """Every division, region and country of the instance as (kind, id, name), for goals."""
    divisions = db.session.execute(select(Division.id, Division.name).order_by(Division.name)).all()
    regions = db.session.execute(select(Region.id, Region.name).order_by(Region.name)).all()
    from app.core.models import Country

    countries = db.session.execute(select(Country.id, Country.name).order_by(Country.name)).all()
    return (
        [("country", i, n) for i, n in countries]
        + [("region", i, n) for i, n in regions]
        + [("division", i, n) for i, n in divisions]
    )
