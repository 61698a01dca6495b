"""The dashboard's JSON calls: a widget with its value, add, edit, copy, remove, the layout."""

import re
from typing import Any

from flask import abort
from flask_babel import gettext as _
from pydantic import Field

from app.core.api import ApiError, Schema, api_call
from app.dashboard import api_bp
from app.dashboard import services as svc
from app.extensions import db
from app.preparation import lists as list_svc
from app.preparation.queries import ItemFilters
from app.shell.viewer import viewer

HEX_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
MAX_CONDITIONS = 10
AUTO_UPDATE_MIN, AUTO_UPDATE_MAX = 10, 3600


def _me():
    v = viewer()
    if v.instance is None:
        abort(404)
    return v


class ColourCondition(Schema):
    operator: Any = None
    value: Any = None
    color: Any = None


class WidgetIn(Schema):
    """A widget as the editor sends it; every field is checked with its own message."""

    dashboard: Any = "my"
    type: Any = None
    title: Any = ""
    module: Any = None
    divisions: Any = Field(default_factory=lambda: ["all"])
    metric: Any = "count"
    period: Any = "month"
    chart_type: Any = Field(default="bar", alias="chartType")
    tick_span: Any = Field(default="month", alias="tickSpan")
    color_conditions: Any = Field(default_factory=list, alias="colorConditions")
    gauge: Any = False
    minimum: Any = None
    hide_goals: Any = Field(default=False, alias="hideGoals")
    auto_update: Any = Field(default=0, alias="autoUpdate")
    h: Any = 1
    w: Any = 1
    group_by: Any = Field(default="state", alias="groupBy")
    custom_list_id: Any = Field(default=None, alias="customListId")
    manage: Any = None
    show_state_buttons: Any = Field(default=False, alias="showStateInteractionButtons")
    item_filters: Any = Field(default_factory=dict, alias="itemFilters")


class Layout(Schema):
    ids: list[int] = Field(max_length=200)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def validate_widget(body: WidgetIn, v, dashboard: str) -> dict:
    """The widget's stored fields, or ApiError 422 with a translated message per field."""
    errors: dict[str, str] = {}
    keys: dict[str, str] = {}

    def refuse(field: str, text: str, key: str = "INVALID_VALUE") -> None:
        errors.setdefault(field, text)
        keys.setdefault(field, key)

    kind = body.type
    if kind not in svc.TYPES:
        refuse("type", _("Choose the kind of widget."), "FIELD_REQUIRED")
    title = body.title if isinstance(body.title, str) else ""
    if not isinstance(body.title, str):
        refuse("title", _("The label must be text."))
    elif len(title) > 100:
        refuse("title", _("The label can be at most %(max)s characters long.", max=100), "FIELD_TOO_LONG")  # fmt: skip
    module = dashboard if dashboard != "my" else body.module
    if module not in svc.MODULES or module not in v.modules:
        refuse("module", _("Choose a module you work in."), "FIELD_REQUIRED")
    choices = {c.value for c in v.division_choices}
    divisions = body.divisions
    if not isinstance(divisions, list) or not divisions:
        refuse("divisions", _("Choose at least one division."), "FIELD_REQUIRED")
        divisions = ["all"]
    elif len(divisions) > 50 or any(d not in choices for d in divisions):
        refuse("divisions", _("Choose divisions from the list: one of them is not yours to see."))
    elif "all" in divisions and len(divisions) > 1:
        refuse("divisions", _("'All divisions' cannot be combined with other divisions."))
    if kind == "number" and body.metric not in svc.METRICS:
        refuse("metric", _("Choose the figure the widget shows."), "FIELD_REQUIRED")
    if kind == "chart" and body.metric not in svc.CHART_METRICS:
        refuse("metric", _("Choose the figure the chart shows."), "FIELD_REQUIRED")
    if body.period not in svc.PERIODS:
        refuse("period", _("Choose a period: this week, this month or this year."))
    if body.chart_type not in ("line", "bar"):
        refuse("chartType", _("Choose a line or a bar chart."))
    if body.tick_span not in ("week", "month"):
        refuse("tickSpan", _("Choose weeks or months for the chart."))
    conditions = []
    raw_conditions = body.color_conditions
    if not isinstance(raw_conditions, list) or len(raw_conditions) > MAX_CONDITIONS:
        refuse("colorConditions", _("Give at most %(max)s colour conditions.", max=MAX_CONDITIONS))
    else:
        for n, raw in enumerate(raw_conditions):
            field = f"colorConditions.{n}"
            if not isinstance(raw, dict):
                refuse(field, _("This colour condition cannot be read."))
                continue
            if raw.get("operator") not in ("gt", "lt"):
                refuse(f"{field}.operator", _("Choose 'greater than' or 'less than'."))
            if not _is_number(raw.get("value")):
                refuse(f"{field}.value", _("Enter a number to compare with."), "FIELD_REQUIRED")
            if not isinstance(raw.get("color"), str) or not HEX_COLOUR.match(raw["color"]):
                refuse(f"{field}.color", _("Choose a colour."))
            conditions.append(
                {
                    "operator": raw.get("operator"),
                    "value": raw.get("value"),
                    "color": raw.get("color"),
                }
            )
    if not isinstance(body.gauge, bool):
        refuse("gauge", _("The gauge is either on or off."))
    if body.minimum is not None and not _is_number(body.minimum):
        refuse("minimum", _("The minimum must be a number."))
    if not isinstance(body.hide_goals, bool):
        refuse("hideGoals", _("Goals are either shown or hidden."))
    auto = body.auto_update
    if not _is_int(auto) or (auto != 0 and not AUTO_UPDATE_MIN <= auto <= AUTO_UPDATE_MAX):
        refuse(
            "autoUpdate",
            _("Auto-update is 0 (off) or between %(low)s and %(high)s seconds.",
              low=AUTO_UPDATE_MIN, high=AUTO_UPDATE_MAX),
        )  # fmt: skip
    if not _is_int(body.h) or not 1 <= body.h <= 3:
        refuse("h", _("The height is 1, 2 or 3 rows."))
    if not _is_int(body.w) or not 1 <= body.w <= 4:
        refuse("w", _("The width is 1 to 4 columns."))
    if kind == "list" and body.group_by not in svc.LIST_GROUPS:
        refuse("groupBy", _("Choose how the list groups the vehicles."))
    list_id = body.custom_list_id
    if kind == "customList":
        if not _is_int(list_id):
            refuse("customListId", _("Choose one of your custom lists."), "FIELD_REQUIRED")
        elif list_svc.get_list(list_id, v.user.id) is None:
            refuse("customListId", _("Choose one of your custom lists."))
    if body.manage not in (None, "", "hub", "central"):
        refuse("manage", _("Manage the hub item, the central item or the vehicle itself."))
    if not isinstance(body.show_state_buttons, bool):
        refuse("showStateInteractionButtons", _("State buttons are either shown or hidden."))
    filters = body.item_filters
    if not isinstance(filters, dict) or not all(
        isinstance(k, str) and isinstance(val, str) for k, val in filters.items()
    ):
        refuse("itemFilters", _("The filters cannot be read."))
        filters = {}
    else:
        filters = {k: val.strip() for k, val in filters.items() if val.strip()}
        try:
            filters = ItemFilters.from_args(filters).to_args()
        except ValueError as exc:
            refuse(f"itemFilters.{getattr(exc, 'field', 'filter')}", str(exc))
    if errors:
        raise ApiError(422, next(iter(errors.values())), errors=errors, keys=keys)
    options = {
        "module": module,
        "divisions": divisions,
        "metric": body.metric if kind in ("number", "chart") else None,
        "period": body.period,
        "chartType": body.chart_type,
        "tickSpan": body.tick_span,
        "colorConditions": conditions,
        "gauge": body.gauge,
        "minimum": body.minimum,
        "groupBy": body.group_by,
        "customListId": list_id if kind == "customList" else None,
    }
    config = {
        "hideGoals": body.hide_goals,
        "manage": body.manage or None,
        "showStateInteractionButtons": body.show_state_buttons,
    }
    return {
        "type": kind, "title": " ".join(title.split()), "h": body.h, "w": body.w,
        "auto_update": auto, "options": options, "config": config, "item_filters": filters,
    }  # fmt: skip


def _own(widget_id: int, v):
    widget = svc.get_widget(widget_id, v.user.id)
    if widget is None:
        abort(404)
    return widget


def _dashboard_key(value) -> str:
    if value not in svc.DASHBOARDS:
        text = _("There is no such dashboard.")
        raise ApiError(422, text, errors={"dashboard": text}, keys={"dashboard": "INVALID_VALUE"})
    return value


@api_call(api_bp, "/dashboard-widgets/<int:widget_id>")
def get_widget(widget_id: int):
    """Load a widget with its value computed from live data (type error when the widget covers
    data you may not see)."""
    v = _me()
    return svc.widget_payload(_own(widget_id, v), v)


@api_call(api_bp, "/dashboard-widgets", "POST", body=WidgetIn, success=(201,))
def create_widget(body: WidgetIn):
    """Add a widget at the end of one of your dashboards."""
    v = _me()
    dashboard = _dashboard_key(body.dashboard)
    if dashboard == "my" and v.is_global:  # a global user has no dashboard of their own
        abort(404)
    widget = svc.add_widget(v.user.id, dashboard, validate_widget(body, v, dashboard))
    db.session.commit()
    return svc.widget_meta(widget, v), 201


@api_call(api_bp, "/dashboard-widgets/<int:widget_id>", "PUT", body=WidgetIn)
def update_widget(widget_id: int, body: WidgetIn):
    """Change one of your widgets."""
    v = _me()
    widget = _own(widget_id, v)
    svc.apply_fields(widget, validate_widget(body, v, widget.dashboard))
    db.session.commit()
    return svc.widget_meta(widget, v)


@api_call(api_bp, "/dashboard-widgets/<int:widget_id>/copy", "POST", success=(201,))
def copy_widget(widget_id: int):
    """Copy one of your widgets; the copy comes right after it."""
    v = _me()
    copy = svc.copy_widget(_own(widget_id, v))
    db.session.commit()
    return svc.widget_meta(copy, v), 201


@api_call(api_bp, "/dashboard-widgets/<int:widget_id>", "DELETE", success=(204,))
def delete_widget(widget_id: int):
    """Remove one of your widgets."""
    v = _me()
    db.session.delete(_own(widget_id, v))
    db.session.commit()
    return "", 204


@api_call(api_bp, "/dashboards/<dashboard>/layout", "PUT", body=Layout, success=(204,))
def save_layout(dashboard: str, body: Layout):
    """Save the order of a dashboard's widgets: every one of its widget ids, in order."""
    v = _me()
    if dashboard not in svc.DASHBOARDS:
        abort(404)
    if not svc.save_layout(v.user.id, dashboard, body.ids):
        db.session.rollback()
        text = _("The layout must list each widget of the dashboard once.")
        raise ApiError(422, text, errors={"ids": text}, keys={"ids": "INVALID_VALUE"})
    db.session.commit()
    return "", 204
