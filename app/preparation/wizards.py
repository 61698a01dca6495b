"""Add wizards: which fields the add-vehicle form shows, in which steps, which are required and
with which defaults ({module}/add-wizards; docs/decisions.md, "Add wizards").

A wizard is a SettingRow of kind "{module}.wizard" whose `data["steps"]` is a list of
{"title": {locale: text}, "fields": [{"key", "required", "default"}]}. The add page of a module
uses the active wizard of the vehicle's division, else the instance's, else the fixed form
(DEFAULT). The fields a vehicle cannot be saved without (ALWAYS) are on every wizard and always
required: a stored wizard that lacks one gets it at the end of its first step.
"""

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import select

from app.core.i18n import DEFAULT_LOCALE, current_locale
from app.core.numbers import is_int
from app.core.settings import SettingRow
from app.extensions import db
from app.preparation import locations


@dataclass(frozen=True)
class Choice:
    """A field of the add-vehicle form a wizard may show; `kind` says which defaults fit."""

    key: str
    label: object
    kind: str = "text"  # text, int, decimal, choice (no default: its values are the instance's)


CATALOGUE = (
    Choice("division_id", _l("Division"), "choice"),
    Choice("regno", _l("Registration number"), "choice"),  # unique: a default makes no sense
    Choice("vin", _l("VIN"), "choice"),
    Choice("brand", _l("Brand")),
    Choice("model", _l("Model")),
    Choice("model_series", _l("Model series")),
    Choice("model_year", _l("Model year"), "int"),
    Choice("fuel_type", _l("Fuel type"), "choice"),
    Choice("color", _l("Colour")),
    Choice("mileage", _l("Mileage"), "int"),
    Choice("purchase_price", _l("Purchase price"), "decimal"),
    Choice("sales_price", _l("Sales price"), "decimal"),
    Choice("package_id", _l("Station package"), "choice"),
    *(Choice(k.column, k.label, "choice") for k in locations.KINDS if k.key != "delivery"),
)
BY_KEY = {c.key: c for c in CATALOGUE}
# What a vehicle cannot be saved without (app.preparation.items.validate): on every wizard.
ALWAYS = ("division_id", "regno", "brand", "model")


@dataclass(frozen=True)
class WizardField:
    key: str
    required: bool = False
    default: str = ""


@dataclass(frozen=True)
class Step:
    titles: dict  # locale -> text; or {"": a lazy string} for the fixed form's steps
    fields: tuple[WizardField, ...] = ()

    @property
    def title(self) -> str:
        """The title in the reader's language, else English, else any language given."""
        t = self.titles
        return str(
            t.get(current_locale())
            or t.get(DEFAULT_LOCALE)
            or next((v for v in t.values() if v), "")
        )


@dataclass(frozen=True)
class Wizard:
    name: str
    steps: tuple[Step, ...]
    fixed: bool = False  # the fixed form (no wizard of the module's own)

    def field(self, key: str) -> WizardField | None:
        return next((f for s in self.steps for f in s.fields if f.key == key), None)


def _fixed(*keys: str) -> tuple[WizardField, ...]:
    return tuple(WizardField(k, k in ALWAYS) for k in keys)


DEFAULT = Wizard(
    "",
    (
        Step({"": _l("Vehicle")}, _fixed("division_id", "regno", "vin", "brand", "model",
                                         "model_series", "model_year", "fuel_type", "color",
                                         "mileage")),
        Step({"": _l("Prices and preparation")}, _fixed("purchase_price", "sales_price", "package_id")),
        Step({"": _l("Where it is")}, _fixed("parking_location_id", "key_location_id",
                                              "delivery_location_id")),
    ),
    fixed=True,
)  # fmt: skip


def from_data(name: str, data: dict | None) -> Wizard:
    """The wizard a stored row describes, with every ALWAYS field on it and required."""
    steps: list[Step] = []
    seen: set[str] = set()
    for raw in (data or {}).get("steps") or []:
        if not isinstance(raw, dict):
            continue
        fields = []
        for f in raw.get("fields") or []:
            key = f.get("key") if isinstance(f, dict) else None
            if key in BY_KEY and key not in seen:
                seen.add(key)
                required = bool(f.get("required")) or key in ALWAYS
                fields.append(WizardField(key, required, str(f.get("default") or "")))
        titles = {k: str(v) for k, v in (raw.get("title") or {}).items() if v}
        if fields:
            steps.append(Step(titles, tuple(fields)))
    missing = tuple(WizardField(k, True) for k in ALWAYS if k not in seen)
    if missing:
        first = steps[0] if steps else Step({"": _l("Vehicle")})
        steps[:1] = [Step(first.titles, (*first.fields, *missing))]
    return Wizard(name, tuple(steps))


def active_wizard(module: str, division_id: int | None) -> Wizard:
    """The wizard the add page of `module` uses for a vehicle of this division: the division's
    active wizard, else the instance's, else the fixed form."""
    owners = [None] if division_id is None else [division_id, None]
    rows = db.session.scalars(
        select(SettingRow)
        .where(SettingRow.kind == f"{module}.wizard", SettingRow.active.is_(True))
        .where(
            SettingRow.division_id.in_([o for o in owners if o is not None])
            | SettingRow.division_id.is_(None)
        )
        .order_by(SettingRow.id)
    ).all()
    rows.sort(key=lambda r: r.division_id is None)  # the division's own first
    return from_data(rows[0].name, rows[0].data) if rows else DEFAULT


def default_error(key: str, value: str) -> str | None:
    """Why a default does not fit the field, or None."""
    kind = BY_KEY[key].kind
    if not value:
        return None
    if kind == "choice":
        return _("This field takes no default.")
    if kind == "int" and not is_int(value.replace(" ", "")):
        return _("Enter a whole number.")
    if kind == "decimal":
        try:
            number = Decimal(value.replace(" ", "").replace(",", "."))
        except InvalidOperation:
            return _("Enter a number.")
        if not number.is_finite() or number < 0:
            return _("Enter a number.")
    if len(value) > 80:
        return _("A default can be at most %(max)s characters.", max=80)
    return None


def apply(wizard: Wizard, form, fill: bool) -> None:
    """Mark the wizard's required fields and, with `fill` (a form not sent yet), fill in its
    defaults."""
    for step in wizard.steps:
        for f in step.fields:
            target = form._fields.get(f.key)
            if target is None:
                continue
            if f.required:
                target.flags.required = True
            if fill and f.default:
                target.process_formdata([f.default])


def missing(wizard: Wizard, form) -> bool:
    """Give each required field the form left empty its message; whether any was."""
    refused = False
    for step in wizard.steps:
        for f in step.fields:
            target = form._fields.get(f.key)
            if (
                f.required
                and target is not None
                and target.data in (None, "")
                and not target.errors
            ):
                target.errors = [_("%(field)s is required.", field=target.label.text)]
                refused = True
    return refused
