"""The dashboard's rules: which data a widget may show, goals, the widget as the island reads it
and the dashboards' widgets. A widget's value is computed in app.dashboard.values.

A widget's value is computed from the instance's own data over the widget's module, divisions,
item filters and period, with a constant number of queries whatever the number of vehicles:
counts of items in a state come from the maintained counters (ItemStateCount) when the widget
filters on nothing but the state and the divisions; everything else is one grouped query. The
result is kept per instance, counts version (which every added or moved vehicle changes) and
widget definition for a minute, in a cache like the statistics' (app.core.cache.LRUCache).
"""

import json

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import func, select

from app.bookings import services as bookings
from app.core.cache import LRUCache
from app.core.i18n import current_locale, current_time_zone
from app.core.models import Country, Division, Region, utcnow
from app.core.modules import MODULE_NAMES
from app.core.workdays import FLAG as WORKING_DAYS
from app.dashboard.models import DashboardWidget, Goal
from app.dashboard.values import (
    METRICS,
    NotAllowed,
    Scope,
    chart_value,
    custom_list_value,
    list_value,
    number_value,
    summary_value,
    tier_value,
)
from app.extensions import db
from app.preparation import recon_statistics
from app.preparation.queries import DIVISION_VALUE, ItemFilters, division_scope
from app.preparation.states import MODULES
from app.preparation.statistics import MEASURE_TO_DELIVERED

TYPES = ("number", "chart", "numberSummary", "list", "customList", "tier", "bookings", "reconCost")
DASHBOARDS = ("my", *MODULES)
CHART_METRICS = ("sold", "entered")
PERIODS = {"week": _l("This week"), "month": _l("This month"), "year": _l("This year")}
LIST_GROUPS = {"state": _l("Per state"), "brand": _l("Per brand")}
# A widget whose title its user never typed reads the catalogue's title in the reader's language
# (issue 37), never a string stored in its creator's: a preset's (the module dashboards' and the
# demo's, options["preset"]), else its figure's, its grouping's or its type's.
PRESETS = {
    "inFlow": _l("In the flow"),
    "soldThisMonth": _l("Sold this month"),
    "stockDays": _l("Stock days"),
    "soldPerMonth": _l("Sold per month"),
    "vehiclesPerState": _l("Vehicles per state"),
}
TYPE_TITLES = {
    "numberSummary": _l("Vehicles per state"),
    "customList": _l("Custom list"),
    "tier": _l("Tier"),
    "bookings": _l("Bookings"),
    "reconCost": _l("Reconditioning cost"),
}
VALUES = LRUCache(size=2048, ttl=60.0)
# Averages over thousands of vehicles (stock days, lead time, days in state) barely move when one
# vehicle does, and each costs an index lookup per vehicle: they are kept for five minutes
# whatever moves, so a busy instance's auto-updates do not recompute them on every move.
AVERAGES = LRUCache(size=1024, ttl=300.0)
SLOW_METRICS = frozenset({"stockDays", "leadTime", "avgDaysInState"})


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


def default_title(widget: DashboardWidget) -> str:
    """The title of a widget whose user typed none, in the reader's language."""
    options = widget.options or {}
    if options.get("preset") in PRESETS:
        return str(PRESETS[options["preset"]])
    if widget.type in ("number", "chart") and options.get("metric") in METRICS:
        return str(METRICS[options["metric"]][0])
    if widget.type == "list":
        return str(LIST_GROUPS.get(options.get("groupBy"), LIST_GROUPS["state"]))
    return str(TYPE_TITLES.get(widget.type, ""))


def label_of(widget: DashboardWidget, v) -> dict:
    """The label's parts (spec 02): custom label, the division (or how many), the module."""
    options = widget.options or {}
    values = options.get("divisions") or ["all"]
    names = {c.value: c.label for c in v.division_choices}
    module = options.get("module")
    return {
        "custom": widget.title or default_title(widget),
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
        "title": widget.title or "",  # as its user typed it (the editor's)
        "defaultTitle": default_title(widget),  # shown while the user typed none
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
    # The values hold translated titles (states, sections, months): one entry per language; the
    # averages count working days when the configuration says so.
    return (
        instance.id, None if slow else instance.counts_version, definition,
        scope.division_ids if scope else None, utcnow().date(), current_locale(),
        instance.configuration(WORKING_DAYS),
        instance.module_option(scope.module, MEASURE_TO_DELIVERED, False) if scope else None,
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
        elif widget.type == "reconCost":
            scope = scope_of(widget, v)
            meta["value"] = recon_statistics.widget_value(
                scope.module, list(scope.division_ids), f"/{scope.module}/overview"
            )
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
    """Set the widget's fields; a preset title stays while no title is typed over it."""
    kind, preset = widget.type, (widget.options or {}).get("preset")
    for name in ("type", "title", "h", "w", "auto_update", "options", "config", "item_filters"):
        if name in fields:
            setattr(widget, name, fields[name])
    if preset and not widget.title and widget.type == kind:
        widget.options = {**(widget.options or {}), "preset": preset}


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
        {"type": "number", "options": {**base, "metric": "count", "preset": "inFlow"},
         "item_filters": {"enum[state]": "4"}},
        {"type": "number", "options": {**base, "metric": "sold", "period": "month", "preset": "soldThisMonth"}},
        {"type": "number", "options": {**base, "metric": "stockDays", "preset": "stockDays",
         "gauge": True, "minimum": 0, "colorConditions": [
             {"operator": "lt", "value": 30, "color": "#067647"},
             {"operator": "lt", "value": 60, "color": "#b54708"},
             {"operator": "gt", "value": 60, "color": "#b42318"}]}},
        {"type": "chart", "h": 2, "w": 2, "options": {
            **base, "metric": "sold", "chartType": "bar", "tickSpan": "month", "preset": "soldPerMonth"}},
        {"type": "numberSummary", "w": 2, "options": base},
        {"type": "list", "h": 2, "options": {**base, "groupBy": "state"}},
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

    countries = db.session.execute(select(Country.id, Country.name).order_by(Country.name)).all()
    return (
        [("country", i, n) for i, n in countries]
        + [("region", i, n) for i, n in regions]
        + [("division", i, n) for i, n in divisions]
    )
