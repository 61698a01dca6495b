"""The dashboard's JSON calls: a widget with its value, add, edit, copy, remove, the layout."""

import re

from flask import abort
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from pydantic import Field

from app.auth.viewer import viewer
from app.core.api import ApiError, Schema, api_call
from app.dashboard import api_bp, values
from app.dashboard import services as svc
from app.extensions import db
from app.preparation import lists as list_svc
from app.preparation.queries import ItemFilters

HEX_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
MAX_CONDITIONS = 10
AUTO_UPDATE_MIN, AUTO_UPDATE_MAX = 10, 3600


def _me():
    v = viewer()
    if v.instance is None:
        abort(404)
    return v


# Each field's own message (and key) for a value of the wrong JSON type or outside its range:
# the schema answers with it (refused_keys), and validate_widget for a value the schema takes
# but the widget cannot (one of the user's divisions, a known period ...).
MESSAGES = {
    "dashboard": ("INVALID_VALUE", _l("There is no such dashboard.")),
    "type": ("FIELD_REQUIRED", _l("Choose the kind of widget.")),
    "title": ("INVALID_VALUE", _l("The label must be text.")),
    "module": ("FIELD_REQUIRED", _l("Choose a module you work in.")),
    "divisions": (
        "INVALID_VALUE", _l("Choose divisions from the list: one of them is not yours to see.")
    ),
    "metric": ("FIELD_REQUIRED", _l("Choose the figure the widget shows.")),
    "period": ("INVALID_VALUE", _l("Choose a period: this week, this month or this year.")),
    "chartType": ("INVALID_VALUE", _l("Choose a line or a bar chart.")),
    "tickSpan": ("INVALID_VALUE", _l("Choose weeks or months for the chart.")),
    "colorConditions": (
        "INVALID_VALUE", _l("Give at most %(max)s colour conditions.", max=MAX_CONDITIONS)
    ),
    "colorConditions.*": ("INVALID_VALUE", _l("This colour condition cannot be read.")),
    "colorConditions.*.operator": ("INVALID_VALUE", _l("Choose 'greater than' or 'less than'.")),
    "colorConditions.*.value": ("FIELD_REQUIRED", _l("Enter a number to compare with.")),
    "colorConditions.*.color": ("INVALID_VALUE", _l("Choose a colour.")),
    "gauge": ("INVALID_VALUE", _l("The gauge is either on or off.")),
    "minimum": ("INVALID_VALUE", _l("The minimum must be a number.")),
    "hideGoals": ("INVALID_VALUE", _l("Goals are either shown or hidden.")),
    "autoUpdate": (
        "INVALID_VALUE",
        _l("Auto-update is 0 (off) or between %(low)s and %(high)s seconds.",
           low=AUTO_UPDATE_MIN, high=AUTO_UPDATE_MAX),
    ),
    "h": ("INVALID_VALUE", _l("The height is 1, 2 or 3 rows.")),
    "w": ("INVALID_VALUE", _l("The width is 1 to 4 columns.")),
    "groupBy": ("INVALID_VALUE", _l("Choose how the list groups the vehicles.")),
    "customListId": ("FIELD_REQUIRED", _l("Choose one of your custom lists.")),
    "manage": (
        "INVALID_VALUE", _l("Manage the hub item, the central item or the vehicle itself.")
    ),
    "showStateInteractionButtons": (
        "INVALID_VALUE", _l("State buttons are either shown or hidden.")
    ),
    "itemFilters": ("INVALID_VALUE", _l("The filters cannot be read.")),
}  # fmt: skip


class ColourCondition(Schema):
    refused_keys = {
        name.removeprefix("colorConditions.*."): found
        for name, found in MESSAGES.items()
        if name.startswith("colorConditions.*.")
    }

    operator: str | None = None
    value: float | None = None  # JSON numbers; whole ones stored as integers (_whole)
    color: str | None = None


class WidgetIn(Schema):
    """A widget as the editor sends it: the schema takes each field's JSON type (refusing
    another with the field's own message), validate_widget the values."""

    refused_keys = MESSAGES

    dashboard: str = "my"
    type: str | None = None
    title: str = ""
    module: str | None = None
    divisions: list[str] = Field(default_factory=lambda: ["all"], max_length=50)
    metric: str | None = "count"
    period: str = "month"
    chart_type: str = Field(default="bar", alias="chartType")
    tick_span: str = Field(default="month", alias="tickSpan")
    color_conditions: list[ColourCondition] = Field(
        default_factory=list, alias="colorConditions", max_length=MAX_CONDITIONS
    )
    gauge: bool = False
    minimum: float | None = None
    hide_goals: bool = Field(default=False, alias="hideGoals")
    auto_update: int = Field(default=0, alias="autoUpdate")
    h: int = 1
    w: int = 1
    group_by: str = Field(default="state", alias="groupBy")
    custom_list_id: int | None = Field(default=None, alias="customListId")
    manage: str | None = None
    show_state_buttons: bool = Field(default=False, alias="showStateInteractionButtons")
    item_filters: dict[str, str] = Field(default_factory=dict, alias="itemFilters")


class Layout(Schema):
    ids: list[int] = Field(max_length=200)


def _whole(number: float | None) -> int | float | None:
    """A whole number as an integer, as the editor sent it (the schema reads numbers as floats)."""
    return int(number) if number is not None and number.is_integer() else number


def validate_widget(body: WidgetIn, v, dashboard: str) -> dict:
    """The widget's stored fields, or ApiError 422 with a translated message per field."""
    errors: dict[str, str] = {}
    keys: dict[str, str] = {}

    def refuse(field: str, text: str | None = None, key: str = "INVALID_VALUE") -> None:
        """Refuse `field` with `text`, or with its own message (MESSAGES) when none is given."""
        if text is None:
            key, text = MESSAGES[re.sub(r"\.\d+\.", ".*.", field)]
        errors.setdefault(field, str(text))
        keys.setdefault(field, key)

    kind = body.type
    if kind not in svc.TYPES:
        refuse("type")
    title = " ".join(body.title.split())
    if len(title) > 100:
        refuse("title", _("The label can be at most %(max)s characters long.", max=100), "FIELD_TOO_LONG")  # fmt: skip
    module = dashboard if dashboard != "my" else body.module
    if module not in svc.MODULES or module not in v.modules:
        refuse("module")
    choices = {c.value for c in v.division_choices}
    divisions = body.divisions
    if not divisions:
        refuse("divisions", _("Choose at least one division."), "FIELD_REQUIRED")
        divisions = ["all"]
    elif any(d not in choices for d in divisions):
        refuse("divisions")
    elif "all" in divisions and len(divisions) > 1:
        refuse("divisions", _("'All divisions' cannot be combined with other divisions."))
    if kind == "number" and body.metric not in values.METRICS:
        refuse("metric")
    if kind == "chart" and body.metric not in svc.CHART_METRICS:
        refuse("metric", _("Choose the figure the chart shows."), "FIELD_REQUIRED")
    if body.period not in svc.PERIODS:
        refuse("period")
    if body.chart_type not in ("line", "bar"):
        refuse("chartType")
    if body.tick_span not in ("week", "month"):
        refuse("tickSpan")
    for n, condition in enumerate(body.color_conditions):
        field = f"colorConditions.{n}"
        if condition.operator not in ("gt", "lt"):
            refuse(f"{field}.operator")
        if condition.value is None:
            refuse(f"{field}.value")
        if condition.color is None or not HEX_COLOUR.match(condition.color):
            refuse(f"{field}.color")
    conditions = [
        {"operator": c.operator, "value": _whole(c.value), "color": c.color}
        for c in body.color_conditions
    ]
    auto = body.auto_update
    if auto != 0 and not AUTO_UPDATE_MIN <= auto <= AUTO_UPDATE_MAX:
        refuse("autoUpdate")
    if not 1 <= body.h <= 3:
        refuse("h")
    if not 1 <= body.w <= 4:
        refuse("w")
    if kind == "list" and body.group_by not in svc.LIST_GROUPS:
        refuse("groupBy")
    list_id = body.custom_list_id
    if kind == "customList":
        if list_id is None:
            refuse("customListId")
        elif list_svc.get_list(list_id, v.user.id) is None:
            refuse("customListId", str(MESSAGES["customListId"][1]))
    if body.manage not in (None, "", "hub", "central"):
        refuse("manage")
    filters = {k: val.strip() for k, val in body.item_filters.items() if val.strip()}
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
        "minimum": _whole(body.minimum),
        "groupBy": body.group_by,
        "customListId": list_id if kind == "customList" else None,
    }
    config = {
        "hideGoals": body.hide_goals,
        "manage": body.manage or None,
        "showStateInteractionButtons": body.show_state_buttons,
    }
    return {
        "type": kind, "title": title, "h": body.h, "w": body.w,
        "auto_update": auto, "options": options, "config": config, "item_filters": filters,
    }  # fmt: skip


def _own(widget_id: int, v):
    widget = svc.get_widget(widget_id, v.user.id)
    if widget is None:
        abort(404)
    return widget


def _dashboard_key(value) -> str:
    if value not in svc.DASHBOARDS:
        key, text = MESSAGES["dashboard"]
        raise ApiError(422, str(text), errors={"dashboard": str(text)}, keys={"dashboard": key})
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
