"""The simpler admin screens, declared as data on the shared mechanism: each is a SettingRow
(or GlobalSettingRow) kind with a name, a description, an active flag and a few fields of its
own stored in `data`. docs/decisions.md says what each screen is for."""

from collections.abc import Callable
from dataclasses import dataclass

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import IntegerField, SelectField, StringField
from wtforms.validators import Length, NumberRange, Optional, ValidationError

from app.admin.crud import Column, Screen, admin_only
from app.admin.fields import flag, long_text, text
from app.bookings import calendars
from app.core import roles as R
from app.core.division_settings import (
    division_label,
    instance_divisions,
    may_change,
    own_division_ids,
    owner_choices,
)
from app.core.localized import NAME_TEXTS_HINT, TextsField, for_reader
from app.core.messages import KEYS
from app.core.numbers import coerce_id
from app.core.settings import GlobalSettingRow, SettingRow
from app.preparation import actions, salespeople, service_due, specification


@dataclass(frozen=True)
class Extra:
    """A field of one kind, stored in the row's `data`."""

    key: str
    label: object
    kind: str = "text"  # text, int, choice, texts
    choices: tuple | Callable[[], list] = ()  # (value, label) for choice, or what lists them
    low: int = 0
    high: int = 100_000
    check: Callable[[str | None], str | None] | None = None  # a text's refusal, translated
    hint: object = None

    def shown(self, row) -> object:
        """The row's value as the list shows it: a choice by its label."""
        value = (row.data or {}).get(self.key)
        if self.kind != "choice" or value in (None, ""):
            return value
        listed = self.choices() if callable(self.choices) else self.choices
        return next((label for v, label in listed if str(v) == str(value)), value)

    def field(self):
        if self.kind == "int":
            return IntegerField(
                self.label,
                validators=[
                    Optional(),
                    NumberRange(
                        self.low, self.high, _l("Enter a whole number from %(min)s to %(max)s.")
                    ),
                ],
                render_kw={"inputmode": "numeric", "min": self.low, "max": self.high},
                description=self.hint or "",
            )
        if self.kind == "choice":
            return SelectField(self.label)  # choices: set by _prepare
        if self.kind == "texts":  # one text per language (app.core.localized)
            return TextsField(self.label, max_length=300, description=self.hint or "")
        validators = [Optional(), Length(max=300, message=KEYS["FIELD_TOO_LONG"])]
        if self.check is not None:
            validators.append(_refused_by(self.check))
        return StringField(
            self.label,
            validators=validators,
            render_kw={"maxlength": 300},
            description=self.hint or "",
        )


def _refused_by(check):
    def validate(form, field) -> None:
        message = check(field.data)
        if message:
            raise ValidationError(message)

    return validate


def _form(extras: tuple[Extra, ...], divisional: bool = False) -> type[FlaskForm]:
    fields = {
        "name": text(_l("Name"), 120),
        "description": long_text(_l("Description")),
        **{f"x_{e.key}": e.field() for e in extras},
        "active": flag(_l("Active")),
    }
    if divisional:
        fields["division_id"] = SelectField(_l("Division"), coerce=coerce_id)
    return type("SettingForm", (FlaskForm,), fields)


# --- what every setting kind's row has: a name, a description, an active flag, an owner -------


def load_named(form, row) -> None:
    """Fill the fields every setting row has (and its division, when the form asks whose)."""
    form.name.data, form.description.data = row.name, row.description
    form.active.data = row.active
    if "division_id" in form:
        form.division_id.data = row.division_id


def save_named(row, form) -> None:
    """Store the fields every setting row has (and its division, when the form asks whose)."""
    row.name, row.description = form.name.data, form.description.data or ""
    row.active = bool(form.active.data)
    if "division_id" in form:
        row.division_id = form.division_id.data


def offer_owners(form, v, own_divisions: bool = False) -> None:
    """Whose the row may be: the whole instance (ROLE_ADMIN) and the divisions the viewer may
    change (with `own_divisions`: only those they see, even for ROLE_ADMIN)."""
    divisions = instance_divisions()
    if own_divisions:
        divisions = [d for d in divisions if d.id in own_division_ids(v)]
    form.division_id.choices = owner_choices(v, divisions)


def division_name(row) -> str:
    return division_label(instance_divisions(), row.division_id)


def kind_screen(
    path: str,
    kind: str,
    noun,
    intro,
    form,
    columns,
    *,
    global_rows=False,
    divisional=False,
    search=("name", "description"),
    **more,
) -> Screen:
    """The screen of one setting kind's rows, listed by name and searched by `search`;
    `divisional`: each row is one division's or the instance's, and a division administrator
    changes only their divisions' rows. `more`: the Screen's other fields (form hooks, write
    rule, templates)."""
    model = GlobalSettingRow if global_rows else SettingRow
    return Screen(
        path=path,
        model=model,
        where=(model.kind == kind,),
        new=lambda v: model(kind=kind, data={}),
        order_by=(model.name,),
        noun=noun,
        form=form,
        columns=tuple(columns),
        intro=intro,
        search=search,
        write_row=(lambda v, row: may_change(v, row.division_id)) if divisional else None,
        **more,
    )


def _load(extras):
    def load(form, row) -> None:
        load_named(form, row)
        for e in extras:
            getattr(form, f"x_{e.key}").data = (row.data or {}).get(e.key)

    return load


def _prepare(extras, own_divisions: bool = False):
    def prepare(form, v, row) -> None:
        if "division_id" in form:
            offer_owners(form, v, own_divisions)
        for e in extras:
            if e.kind == "choice":
                listed = e.choices() if callable(e.choices) else e.choices
                getattr(form, f"x_{e.key}").choices = [(v, str(label)) for v, label in listed]
        if row is None and not form.is_submitted():
            form.active.data = True

    return prepare


def _save(extras):
    def save(row, form, v) -> None:
        save_named(row, form)
        row.data = {**(row.data or {}), **{e.key: getattr(form, f"x_{e.key}").data for e in extras}}

    return save


def setting_screen(
    path: str,
    kind: str,
    noun,
    intro,
    extras: tuple[Extra, ...] = (),
    write=admin_only,
    global_rows: bool = False,
    divisional: bool = False,
    own_divisions: bool = False,
    delete_blocked=None,
    more: dict | None = None,
) -> Screen:
    """A screen of one setting kind; `divisional`: each row is one division's or the whole
    instance's, and a division administrator changes only their divisions' rows (with
    `own_divisions`: every writer only of the divisions they see). `delete_blocked`: (row) ->
    why the row stays (it is in use), or None; `more`: further Screen fields (columns added)."""
    more = dict(more or {})
    # a kind whose rows have a name per language (an Extra "name_texts") lists the reader's
    columns = [Column(_l("Name"), lambda r: for_reader((r.data or {}).get("name_texts"), r.name))]
    columns += [Column(e.label, e.shown) for e in extras[:2]]
    if divisional:
        columns.append(Column(_l("Division"), division_name))
    columns += list(more.pop("columns", ()))
    columns.append(Column(_l("Active"), "active"))
    return kind_screen(
        path, kind, noun, intro, _form(extras, divisional), columns,
        global_rows=global_rows, divisional=divisional, write=write,
        prepare=_prepare(extras, own_divisions), load=_load(extras), save=_save(extras),
        delete_blocked=delete_blocked, **more,
    )  # fmt: skip


def _global_write(subject: str):
    return lambda v: v.has(R.global_read(subject)) and v.has(R.ROLE_ADMIN)


EVENTS = (
    ("vehicle_added", _l("A vehicle is added")),
    ("state_changed", _l("A vehicle changes state")),
    ("vehicle_sold", _l("A vehicle is sold")),
    ("advert_published", _l("An advert is published")),
    ("advert_allocated", _l("An advert is allocated")),
    ("task_overdue", _l("A task is overdue")),
    ("bid_placed", _l("A bid is placed")),
    ("rule_matched", _l("A rule applies to a vehicle")),
    ("task_approval_requested", _l("A task's estimate waits for approval")),
)
EVENT_ACTIONS = (
    ("email", _l("Send an e-mail")),
    ("notify", _l("Notify the users holding a role (in the application)")),
    ("webhook", _l("Call a web address")),
)
WEEKDAYS = tuple((str(n), str(n)) for n in range(1, 8))
HOURS_HINT = _l("Opening hours, such as 08:00-17:00 or 08:00-12:00, 13:00-17:00. Empty: closed.")

SETTING_SCREENS = [
    setting_screen(
        "general/event-engine", "event", _l("event rule"),
        _l("Event rules: when something happens to a vehicle, what the system does."),
        (Extra("event", _l("When"), "choice", EVENTS), Extra("action", _l("Then"), "choice", EVENT_ACTIONS),
         Extra("target", _l("Recipient or address"),
               hint=_l("An e-mail address, a role's code (such as ROLE_ADMIN) for everyone holding it, or for a webhook the endpoint's name.")),
         Extra("threshold", _l("Bids from"), "int", high=100_000_000,
               hint=_l("For “A bid is placed”: only bids of at least this amount, in the advert's currency. Empty: every bid."))),
    ),
    setting_screen(
        "general/seller-users", "seller", _l("seller"),
        _l("Salespeople who sell vehicles but do not sign in. When a vehicle of their division is sold, the sale asks who sold it; the statistics count each salesperson's sales. A salesperson of the whole instance is offered in every division."),
        (Extra("email", _l("E-mail")), Extra("phone", _l("Phone number"))),
        divisional=True, own_divisions=True, delete_blocked=salespeople.in_use_text,
        more={
            "columns": (Column(_l("Vehicles sold"), lambda r, e: e["sold"].get(r.id, 0), "num", with_extra=True),),
            "list_extra": lambda rows, v: {"sold": salespeople.sold_counts(r.id for r in rows)},
            "delete_note": lambda r, e: _("In use") if e["sold"].get(r.id) else None,
        },
    ),
    setting_screen(
        "general/booking-calendars", "booking_calendar", _l("booking calendar"),
        _l("Calendars in which customers and staff book times, such as deliveries and test drives."),
        (Extra("slot_minutes", _l("Minutes per booking"), "int", low=5, high=480),
         Extra("buffer_minutes", _l("Minutes between bookings"), "int", high=240),
         Extra("days_ahead", _l("Days ahead that can be booked"), "int", low=1, high=366),
         *(Extra(f"hours_{n}", day, check=calendars.hours_error, hint=HOURS_HINT)
           for n, day in enumerate(calendars.WEEKDAYS, 1)),
         Extra("name_texts", _l("Name in each language"), "texts", hint=NAME_TEXTS_HINT)),
        divisional=True,
    ),
    setting_screen(
        "general/booking-calendar-locations", "booking_location", _l("booking calendar location"),
        _l("The places a booking calendar books: a delivery bay, a workshop, a showroom."),
        (Extra("calendar", _l("Booking calendar"), "choice", calendars.calendar_choices),
         Extra("address", _l("Address")),
         Extra("name_texts", _l("Name in each language"), "texts", hint=NAME_TEXTS_HINT)),
    ),
    setting_screen(
        "general/actions", "action", _l("action"),
        _l("Actions are buttons on the vehicle page that open a partner's page for the vehicle, such as a valuation or a transport order, in a new tab."),
        (Extra("label", _l("Button text")),
         Extra("label_texts", _l("Button text in each language"), "texts",
               hint=_l("Each user reads the button in their language; where that is empty, in the company's language, else as written above.")),
         Extra("url", _l("Web address"), check=actions.template_error,
               hint=_l("http:// or https:// with the site's name, then placeholders for the vehicle's fields: %(placeholders)s.",
                       placeholders=", ".join(f"{{{p}}}" for p in actions.PLACEHOLDERS)))),
    ),
    setting_screen(
        "global/properties", "property", _l("property"),
        _l("Vehicle properties shared by every instance (equipment and specification fields)."),
        (Extra("category", _l("Category"), "choice", specification.category_choices),
         Extra("type", _l("Type"), "choice", specification.TYPES),
         Extra("unit", _l("Unit"), hint=_l("Shown after the value, such as kW, kg or mm. Empty: none.")),
         *(Extra(key, _l("Name in %(language)s", language=language),
                 hint=_l("Empty: the name above.")) for key, language in specification.name_keys())),
        write=_global_write("ENHANCED_PROPERTY"), global_rows=True,
    ),
    setting_screen(
        "global/categories", "category", _l("category"),
        _l("Categories that group the shared vehicle properties."),
        tuple(Extra(key, _l("Name in %(language)s", language=language), hint=_l("Empty: the name above."))
              for key, language in specification.name_keys()),
        write=_global_write("ENHANCED_CATEGORIES"), global_rows=True,
    ),
    setting_screen(
        "global/service-schedule", "service_schedule", _l("service interval"),
        _l("Service intervals by brand: after how many kilometres or months a vehicle needs a service."),
        (Extra("brand", _l("Brand")), Extra("interval_km", _l("Kilometres"), "int", high=1_000_000),
         Extra("interval_months", _l("Months"), "int", high=240)),
        write=_global_write("SERVICE_SCHEDULE"), global_rows=True,
    ),
    setting_screen(
        "global/service-schedule/checkup-tasks", "checkup_task", _l("check-up task"),
        _l("The tasks of a check-up, done at every service of the schedule."),
        (Extra("schedule", _l("Service schedule"), "choice", service_due.schedule_choices),
         Extra("minutes", _l("Target minutes"), "int", low=1, high=1440,
               hint=_l("Empty: the station's target time.")),
         *(Extra(key, _l("Name in %(language)s", language=language), hint=_l("Empty: the name above."))
           for key, language in specification.name_keys())),
        write=_global_write("SERVICE_SCHEDULE"), global_rows=True,
    ),
]  # fmt: skip
