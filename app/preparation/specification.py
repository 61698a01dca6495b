"""Specification fields of vehicles: the global properties (admin/global/properties), grouped
in the global categories, each with a unit and a type (text, number, yes or no). A vehicle
holds a value per active property (VehiclePropertyValue, the vehicle's instance); the vehicle
page edits them, the vehicle's print view shows them and the vehicles report exports them.

A property's name is admin-entered: it may be given per language (`name_<locale>` in its
data), the plain name is the fall-back. Services only flush; the view commits.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from flask_babel import format_decimal
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import delete, select

from app.core import audit
from app.core.i18n import LOCALES, current_locale
from app.core.settings import GlobalSettingRow
from app.extensions import db
from app.preparation.models import PreparationItem, VehiclePropertyValue

PROPERTY, CATEGORY = "property", "category"
TEXT, NUMBER, YESNO = "text", "number", "yesno"
TYPES = ((TEXT, _l("Text")), (NUMBER, _l("Number")), (YESNO, _l("Yes or no")))
VALUE_MAX = 200
NUMBER_MAX = Decimal("1e12")


@dataclass(frozen=True)
class Property:
    id: int
    name: str
    unit: str
    type: str
    category_id: int | None


@dataclass
class Group:
    """One category's properties, as the vehicle page and the print view show them."""

    name: str
    fields: list[tuple[Property, str]] = field(default_factory=list)  # (property, value)


def localised_name(row: GlobalSettingRow, locale: str | None = None) -> str:
    """The row's name in `locale` (the request's), else its plain name."""
    return ((row.data or {}).get(f"name_{locale or current_locale()}") or "").strip() or row.name


def name_keys() -> tuple[tuple[str, str], ...]:
    """(data key, language name) of the names per language, for the admin screen."""
    return tuple((f"name_{tag}", label) for tag, label in LOCALES.items())


def category_choices() -> list[tuple[str, str]]:
    """The categories, for a property's category (a choice, never free text)."""
    rows = GlobalSettingRow.of_kind(CATEGORY, active_only=False)
    return [("", str(_l("No category")))] + [(str(r.id), localised_name(r)) for r in rows]


def _id(raw) -> int | None:
    return int(raw) if isinstance(raw, int | str) and str(raw).isdigit() else None


def active_properties() -> list[Property]:
    """The active properties, by category and name."""
    found = []
    for row in GlobalSettingRow.of_kind(PROPERTY):
        data = row.data or {}
        kind = data.get("type") if data.get("type") in (TEXT, NUMBER, YESNO) else TEXT
        found.append(
            Property(
                row.id, localised_name(row), data.get("unit") or "", kind, _id(data.get("category"))
            )
        )
    return sorted(found, key=lambda p: p.name.lower())


def values_of(item_ids: Iterable[int]) -> dict[int, dict[int, str]]:
    """item id -> {property id: stored value}, in one query (the active instance's rows)."""
    ids = list(item_ids)
    found: dict[int, dict[int, str]] = {}
    for start in range(0, len(ids), 500):
        for item_id, property_id, value in db.session.execute(
            select(
                VehiclePropertyValue.item_id,
                VehiclePropertyValue.property_id,
                VehiclePropertyValue.value,
            ).where(VehiclePropertyValue.item_id.in_(ids[start : start + 500]))
        ):
            found.setdefault(item_id, {})[property_id] = value
    return found


def groups(values: dict[int, str], properties: list[Property] | None = None) -> list[Group]:
    """The active properties by category (categories by name, "Other" last), with values."""
    properties = active_properties() if properties is None else properties
    names = dict(category_choices()[1:])
    by_category: dict[str, Group] = {}
    for prop in properties:
        key = str(prop.category_id) if str(prop.category_id) in names else ""
        group = by_category.setdefault(key, Group(names.get(key) or str(_l("Other"))))
        group.fields.append((prop, values.get(prop.id, "")))
    return sorted(by_category.values(), key=lambda g: (g.name == str(_l("Other")), g.name.lower()))


def _decimal(value: str) -> Decimal | None:
    """A stored number (text kept from before a property became a number: None)."""
    try:
        return Decimal(value)
    except InvalidOperation:
        return None


def shown(prop: Property, value: str) -> str:
    """A stored value as a reader sees it: numbers as their language writes them, with the
    unit; yes or no in words; empty as a dash."""
    if value in ("", None):
        return "–"
    if prop.type == YESNO:
        return _("Yes") if value == "yes" else _("No")
    if prop.type == NUMBER and (number := _decimal(value)) is not None:
        value = format_decimal(number, format="#,##0.##")
    return f"{value} {prop.unit}".strip()


def parse(prop: Property, raw: str | None) -> str:
    """The value to store for what a user typed ("" clears it); ValueError with a message."""
    text = (raw or "").strip()
    if not text:
        return ""
    if prop.type == YESNO:
        if text not in ("yes", "no"):
            raise ValueError(_("Choose yes or no."))
        return text
    if prop.type == NUMBER:
        loose = text.replace("\u00a0", "").replace(" ", "").replace(",", ".")
        try:
            number = Decimal(loose)
        except InvalidOperation:
            raise ValueError(_("Enter a number, such as 150 or 7,5.")) from None
        if not number.is_finite() or abs(number) >= NUMBER_MAX:
            raise ValueError(_("Enter a number, such as 150 or 7,5."))
        return format(number.normalize(), "f")
    if len(text) > VALUE_MAX:
        raise ValueError(_("At most %(max)s characters.", max=VALUE_MAX))
    return text


class SpecificationRefused(ValueError):
    """Messages by field name (`prop-<id>`) for what could not be saved."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(errors.values()))
        self.errors = errors


def save(item: PreparationItem, submitted: dict[str, str], user) -> bool:
    """Store the vehicle's values of the active properties from `submitted` (`prop-<id>` ->
    text); anything else is ignored. All or nothing; audited. False when nothing changed."""
    properties = active_properties()
    errors, wanted = {}, {}
    for prop in properties:
        key = f"prop-{prop.id}"
        if key not in submitted:
            continue
        try:
            wanted[prop.id] = parse(prop, submitted[key])
        except ValueError as exc:
            errors[key] = str(exc)
    if errors:
        raise SpecificationRefused(errors)
    current = values_of([item.id]).get(item.id, {})
    changes = {
        pid: [current.get(pid, ""), value]
        for pid, value in wanted.items()
        if current.get(pid, "") != value
    }
    if not changes:
        return False
    db.session.execute(
        delete(VehiclePropertyValue).where(
            VehiclePropertyValue.item_id == item.id,
            VehiclePropertyValue.property_id.in_(list(changes)),
        )
    )
    db.session.add_all(
        VehiclePropertyValue(
            instance_id=item.instance_id, item_id=item.id, property_id=pid, value=new
        )
        for pid, (_old, new) in changes.items()
        if new
    )
    audit.record(
        "preparation.item.specification", user=user, division_id=item.division_id,
        item_id=item.id, changes={str(k): v for k, v in changes.items()},
    )  # fmt: skip
    db.session.flush()
    return True


def export_columns(properties: list[Property]) -> tuple[str, ...]:
    """The report's headers of the properties: name and unit."""
    return tuple(f"{p.name} ({p.unit})" if p.unit else p.name for p in properties)


def export_values(properties: list[Property], item_ids: list[int]) -> dict[int, list]:
    """item id -> its values in the order of `properties` (numbers as numbers, "" when none)."""
    stored = values_of(item_ids)
    rows = {}
    for item_id in item_ids:
        mine = stored.get(item_id, {})
        cells = []
        for prop in properties:
            value = mine.get(prop.id, "")
            if value and prop.type == NUMBER:
                value = value if (number := _decimal(value)) is None else number
            elif value and prop.type == YESNO:
                value = _("Yes") if value == "yes" else _("No")
            cells.append(value)
        rows[item_id] = cells
    return rows
