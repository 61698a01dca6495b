"""The module's rules and their interaction (Administration > begcare/newcare): structured
conditions (app/automation/rules.py evaluates them) with operators and values chosen from the
module's states, the instance's tags and the divisions' parking locations; the actions; a "Try"
that counts and lists the vehicles a rule would affect today, before it is switched on; and
the order in which rules act and which wins."""

from flask import abort
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from sqlalchemy import func, select
from wtforms import BooleanField, IntegerField, SelectField, StringField
from wtforms.validators import Length, NumberRange, Optional

from app.admin.crud import (
    Column,
    FormRefused,
    Screen,
    admin_or_division_admin,
    fill_errors,
    render_screen,
)
from app.admin.fields import flag, long_text, text
from app.admin.settings import (
    Extra,
    division_name,
    kind_screen,
    load_named,
    offer_owners,
    save_named,
    setting_screen,
)
from app.auth.viewer import Viewer
from app.automation import rules as engine
from app.core import roles as R
from app.core.division_settings import instance_divisions, may_change
from app.core.localized import EACH_LANGUAGE, TextsField, for_reader
from app.core.messages import KEYS
from app.core.numbers import coerce_id
from app.core.settings import SettingRow, Tag
from app.extensions import db
from app.preparation.models import Location
from app.preparation.states import STATES

OPERATORS = {
    "is": _l("is"),
    "is_not": _l("is not"),
    "gt": _l("more than"),
    "lt": _l("less than"),
    "has": _l("has"),
    "has_not": _l("has not"),
}
FIELD_LABELS = {
    "state": _l("State"),
    "days_in_state": _l("Days in the state"),
    "stock_days": _l("Days in stock"),
    "mileage": _l("Mileage (km)"),
    "price": _l("Sales price"),
    "tag": _l("Tag"),
    "location": _l("Parking location"),
    "tasks_overdue": _l("Station tasks overdue"),
}
NOTIFY_CHOICES = (
    ("", _l("Nobody")),
    (R.ROLE_USER_DIVISION_ADMIN, _l("The division's administrators")),
    (R.ROLE_ADMIN, _l("The administrators who reach the division")),
    ("division", _l("Everyone of the division")),
)


def _value_field(name: str):
    kind = engine.FIELDS[name][1]
    label = _l("Value: %(field)s", field=FIELD_LABELS[name])
    if kind == "int":
        return IntegerField(
            label,
            validators=[Optional(), NumberRange(0, 10_000_000, _l("Enter a whole number from %(min)s to %(max)s."))],
            render_kw={"inputmode": "numeric", "min": 0},
        )  # fmt: skip
    return SelectField(label, validate_choice=False)


def _rule_form() -> type[FlaskForm]:
    fields = {
        "name": text(_l("Name"), 120),
        "name_texts": TextsField(
            _l("Name in each language"), max_length=120, description=EACH_LANGUAGE
        ),
        "description": long_text(_l("Description")),
        "division_id": SelectField(_l("Division"), coerce=coerce_id),
    }
    for name in engine.FIELDS:
        fields[f"c_{name}_op"] = SelectField(
            _l("Operator: %(field)s", field=FIELD_LABELS[name]), validate_choice=False
        )
        fields[f"c_{name}"] = _value_field(name)
    fields.update(
        warning=StringField(
            _l("Warning in the lists"),
            validators=[Optional(), Length(max=120, message=KEYS["FIELD_TOO_LONG"])],
            render_kw={"maxlength": 120},
            description=_l("A label with this text beside the vehicle in the overview and the state lists while the rule applies."),
        ),
        warning_texts=TextsField(
            _l("Warning in each language"), max_length=120, description=EACH_LANGUAGE
        ),
        tag=SelectField(_l("Add the tag"), validate_choice=False),
        move=SelectField(_l("Move to the state"), validate_choice=False),
        notify=SelectField(_l("Notify"), validate_choice=False),
        event=BooleanField(
            _l("Announce the event"),
            description=_l("The event engine's rules and webhooks for “A rule applies to a vehicle” then act."),
        ),
        active=flag(_l("Active"), _l("An inactive rule does nothing; it can still be tried.")),
    )  # fmt: skip
    return type("RuleForm", (FlaskForm,), fields)


RuleForm = _rule_form()


def _choices(module: str, v: Viewer) -> dict[str, list[tuple[str, str]]]:
    """The values a condition or action may take: the module's states, the instance's tags,
    the parking locations of the divisions the viewer may change rules of."""
    states = [(s.key, str(s.title)) for s in STATES if s.key != "archived"]
    tags = [
        (str(t.id), t.shown_name)
        for t in db.session.scalars(select(Tag).order_by(func.lower(Tag.name)))
    ]
    divisions = {d.id: d.name for d in instance_divisions()}
    places = db.session.scalars(
        select(Location)
        .where(Location.module == module, Location.kind == "parking")
        .order_by(Location.name)
    ).all()
    locations = [
        (str(p.id), f"{p.shown_name} ({divisions.get(p.division_id, '')})".replace(" ()", ""))
        for p in places
        if may_change(v, p.division_id)
    ]
    return {
        "state": states,
        "tag": tags,
        "location": locations,
        "yes_no": [("yes", _("Yes")), ("no", _("No"))],
    }


def _prepare(module: str):
    def prepare(form, v: Viewer, row) -> None:
        offer_owners(form, v)
        choices = _choices(module, v)
        none = [("", "–")]
        for name, (ops, kind) in engine.FIELDS.items():
            getattr(form, f"c_{name}_op").choices = none + [(o, str(OPERATORS[o])) for o in ops]
            if kind != "int":
                getattr(form, f"c_{name}").choices = none + choices[kind]
        form.tag.choices = none + choices["tag"]
        form.move.choices = none + choices["state"]
        form.notify.choices = [(value, str(label)) for value, label in NOTIFY_CHOICES]
        form._choices, form.condition_labels = choices, FIELD_LABELS
        if row is None and not form.is_submitted():
            form.active.data = False  # tried first, then switched on

    return prepare


def _load(form, row: SettingRow) -> None:
    data = row.data or {}
    load_named(form, row)
    for cond in engine.conditions_of(row):
        if cond.get("field") in engine.FIELDS:
            getattr(form, f"c_{cond['field']}_op").data = cond.get("op")
            getattr(form, f"c_{cond['field']}").data = cond.get("value")
    form.warning.data = data.get("warning") or ""
    form.warning_texts.data = dict(data.get("warning_texts") or {})
    form.name_texts.data = dict(data.get("name_texts") or {})
    form.tag.data = str(data.get("tag") or "")
    form.move.data = data.get("move") or ""
    form.notify.data = data.get("notify") or ""
    form.event.data = data.get("event") == "yes"


def _read(form) -> dict:
    """The form as a rule's data, or FormRefused with a message per field."""
    choices, errors, conditions = form._choices, {}, []
    for name, (ops, kind) in engine.FIELDS.items():
        op = getattr(form, f"c_{name}_op").data or ""
        value = getattr(form, f"c_{name}").data
        if not op:
            continue
        if op not in ops:
            errors[f"c_{name}_op"] = _("Choose among the listed operators.")
            continue
        if value in (None, ""):
            errors[f"c_{name}"] = _("Choose or enter a value for this condition.")
            continue
        if kind != "int" and str(value) not in {c for c, _label in choices[kind]}:
            errors[f"c_{name}"] = _("Choose among the listed values.")
            continue
        if kind == "location" and not _in_division(value, form.division_id.data):
            errors[f"c_{name}"] = _("Choose a parking location of the rule's division.")
            continue
        conditions.append(
            {"field": name, "op": op, "value": value if kind == "int" else str(value)}
        )
    if not conditions and not errors:
        errors["c_state_op"] = _("Give the rule at least one condition.")
    for name, kind in (("tag", "tag"), ("move", "state")):
        value = getattr(form, name).data or ""
        if value and value not in {c for c, _label in choices[kind]}:
            errors[name] = _("Choose among the listed values.")
    if (form.notify.data or "") not in {c for c, _label in NOTIFY_CHOICES}:
        errors["notify"] = _("Choose among the listed values.")
    if errors:
        raise FormRefused(errors)
    return {
        "conditions": conditions,
        "warning": (form.warning.data or "").strip(),
        "warning_texts": form.warning_texts.data or {},
        "name_texts": form.name_texts.data or {},
        "tag": form.tag.data or "",
        "move": form.move.data or "",
        "notify": form.notify.data or "",
        "event": "yes" if form.event.data else "",
    }


def _in_division(location_id, division_id: int | None) -> bool:
    """A rule of one division looks at its own parking locations (the instance's: any)."""
    place = db.session.get(Location, int(location_id))
    return division_id is None or (place is not None and place.division_id == division_id)


def _save(row: SettingRow, form, v: Viewer) -> None:
    row.data = _read(form)
    save_named(row, form)


def _summary(row: SettingRow) -> str:
    parts = []
    for cond in engine.conditions_of(row):
        if cond.get("field") in FIELD_LABELS and cond.get("op") in OPERATORS:
            parts.append(
                f"{FIELD_LABELS[cond['field']]} {OPERATORS[cond['op']]} {_value_text(cond)}"
            )
    return _(" and ").join(parts) if parts else "–"


def _value_text(cond: dict) -> str:
    value = cond.get("value")
    if cond["field"] == "state":
        return next((str(s.title) for s in STATES if s.key == value), str(value))
    if cond["field"] == "tag":
        tag = db.session.get(Tag, int(value)) if str(value).isdigit() else None
        return tag.shown_name if tag else "–"
    if cond["field"] == "location":
        place = db.session.get(Location, int(value)) if str(value).isdigit() else None
        return place.shown_name if place else "–"
    if cond["field"] == "tasks_overdue":
        return _("Yes") if value == "yes" else _("No")
    return str(value)


def _actions(row: SettingRow) -> str:
    data, parts = row.data or {}, []
    if data.get("warning"):
        text = for_reader(data.get("warning_texts"), data["warning"])
        parts.append(_("warning “%(text)s”", text=text))
    if data.get("tag"):
        tag = db.session.get(Tag, int(data["tag"])) if str(data["tag"]).isdigit() else None
        parts.append(_("tag %(name)s", name=tag.shown_name if tag else "–"))
    if data.get("move"):
        state = next((s.title for s in STATES if s.key == data["move"]), data["move"])
        parts.append(_("move to %(state)s", state=state))
    if data.get("notify"):
        label = dict(NOTIFY_CHOICES).get(data["notify"], data["notify"])
        parts.append(_("notify: %(who)s", who=label))
    if data.get("event"):
        parts.append(_("event"))
    return ", ".join(str(p) for p in parts) or "–"


def rule_screen(module: str) -> Screen:
    return kind_screen(
        f"{module}/rules", f"{module}.rule", _l("rule"),
        _l("Rules act on vehicles by themselves: when all of a rule's conditions hold for a vehicle, it gets the rule's warning, tag, move, notification and event, once, and its history names the rule. Rules are checked when a vehicle changes and every quarter of an hour. Try a rule before you switch it on."),
        RuleForm,
        (Column(_l("Name"), lambda r: for_reader((r.data or {}).get("name_texts"), r.name)),
         Column(_l("When"), _summary), Column(_l("Then"), _actions),
         Column(_l("Division"), division_name), Column(_l("Active"), "active")),
        divisional=True, write=admin_or_division_admin,
        prepare=_prepare(module),
        load=_load,
        save=_save,
        after_save=lambda row, created, v: engine.rules_changed(row.instance_id, row),
        after_delete=lambda row, v: engine.rules_changed(row.instance_id),
        row_links=((_l("Try"), lambda row: f"/admin/{module}/rules/{row.id}/try"),),
        form_template="admin/rule_form.html",
    )  # fmt: skip


def _rule_choices(module: str):
    def choices() -> list[tuple[str, str]]:
        rows = db.session.scalars(
            select(SettingRow).where(SettingRow.kind == f"{module}.rule").order_by(SettingRow.name)
        )
        return [("", "–"), *((str(r.id), r.name) for r in rows)]

    return choices


STOP_CHOICES = (
    ("", _l("No: later rules act too")),
    ("yes", _l("Yes: later rules skip the vehicle")),
)


def interaction_screen(module: str) -> Screen:
    return setting_screen(
        f"{module}/rule-interaction", f"{module}.interaction", _l("rule interaction"),
        _l("The order in which the rules act, and which wins. Rules act by priority, lowest number first (a rule without a line here has priority 100), then by name. Warnings, tags, notifications and events of every rule that applies are all given. When two rules would move the same vehicle, the first one moves it and the later one's move is left out (its history says so). A rule that stops keeps every later rule off the vehicles it applies to."),
        (Extra("rule", _l("Rule"), "choice", _rule_choices(module)),
         Extra("priority", _l("Priority"), "int", high=1000, hint=_l("Lower numbers act first.")),
         Extra("stop", _l("Stops later rules"), "choice", STOP_CHOICES)),
        write=admin_or_division_admin, divisional=True,
    )  # fmt: skip


RULE_SCREENS = {m: rule_screen(m) for m in ("begcare", "newcare")}
INTERACTION_SCREENS = [interaction_screen(m) for m in ("begcare", "newcare")]


# --- try -------------------------------------------------------------------------------------


def _render_try(screen: Screen, module: str, form, row, outcome, status=200, refusal=None):
    return render_screen(
        screen, screen.form_template, status, form=form, row=row, trial=outcome, module=module,
        refusal=refusal,
        subpage=_("Try %(name)s", name=row.name if row else (form.name.data or _("rule"))),
    )  # fmt: skip


def try_form(module: str):
    """Try the rule as filled in on its form (saved or not): nothing is saved."""
    screen = RULE_SCREENS[module]
    v = screen.guard(write=True)
    form = screen.form()
    screen.prepare(form, v, None)
    if not form.validate_on_submit():
        return _render_try(screen, module, form, None, None, 422)
    if form.division_id.data not in {c for c, _label in form.division_id.choices}:
        abort(403)
    try:
        data = _read(form)
    except FormRefused as refused:
        return _render_try(screen, module, form, None, None, 422, fill_errors(form, refused))
    probe = SettingRow(
        kind=f"{module}.rule", data=data, division_id=form.division_id.data,
        instance_id=v.instance.id, name=form.name.data or "",
    )  # fmt: skip
    return _render_try(screen, module, form, None, engine.trial(probe, module))


def try_row(module: str, row_id: int):
    """Try a saved rule: the vehicles it would affect today (the rule's own divisions only)."""
    screen = RULE_SCREENS[module]
    v = screen.guard(write=True)
    row = screen.get(v, row_id)
    if not may_change(v, row.division_id):
        abort(403)
    form = screen.form()
    screen.prepare(form, v, row)
    _load(form, row)
    return _render_try(screen, module, form, row, engine.trial(row, module))


def register_try(bp) -> None:
    for module in RULE_SCREENS:

        def trying(module=module):
            return try_form(module)

        def trying_row(row_id: int, module=module):
            return try_row(module, row_id)

        base = f"/admin/{module}/rules"
        bp.add_url_rule(f"{base}/try", f"{module}_rules_try", trying, methods=["POST"])
        bp.add_url_rule(f"{base}/<int:row_id>/try", f"{module}_rules_try_row", trying_row)
