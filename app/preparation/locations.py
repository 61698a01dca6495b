"""Where a vehicle is: its parking location, where its keys are and, in the delivery flow, its
delivery location. The places are the division's rows of the module's location screens
(admin/{module}/locations, keylocations, delivery-locations); a vehicle only takes a place of
its own module, kind and division. Every move is kept as an audit row the vehicle's history
reads (who, when, from, to: the names as they were). Services only flush; the view commits.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from flask import has_request_context, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from sqlalchemy import func, select
from wtforms import SelectField
from wtforms.validators import Optional, ValidationError

from app.core import audit
from app.core.localized import for_reader
from app.core.numbers import coerce_id
from app.core.tenancy import active_instance_id
from app.extensions import db
from app.preparation.items import ItemError
from app.preparation.models import Location, PreparationItem

MOVE_ACTION = "preparation.location.move"
DELIVERY_FLOW = 8
ARCHIVED = 9


@dataclass(frozen=True)
class Kind:
    key: str  # the Location.kind
    column: str  # the PreparationItem column
    label: object
    arg: str  # the overview's filter: advancedFilter[<arg>]


KINDS = (
    Kind("parking", "parking_location_id", _l("Parking location"), "parkingLocation"),
    Kind("key", "key_location_id", _l("Key location"), "keyLocation"),
    Kind("delivery", "delivery_location_id", _l("Delivery location"), "deliveryLocation"),
)
BY_KEY = {k.key: k for k in KINDS}


class LocationRefused(ValueError):
    """A place the vehicle cannot take: a translated message."""


def kinds_for(item: PreparationItem) -> tuple[Kind, ...]:
    """The places a vehicle has: parking and keys; in the delivery flow its delivery location
    too (and whatever place it still has)."""
    return tuple(
        k
        for k in KINDS
        if k.key != "delivery" or item.state == DELIVERY_FLOW or getattr(item, k.column) is not None
    )


def places(module: str, division_ids: Iterable[int]) -> list[Location]:
    """The module's locations of every kind in these divisions, by kind and name (read once
    per request: the overview's filters and its table both show them)."""
    ids = tuple(sorted(set(division_ids)))
    if not ids:
        return []
    # Kept with the request (not g: a test's requests may share one app context).
    cache = request.environ.setdefault("preparation.places", {}) if has_request_context() else {}
    key = (active_instance_id(), module, ids)
    if key not in cache:
        cache[key] = list(
            db.session.scalars(
                select(Location)
                .where(Location.module == module, Location.division_id.in_(ids))
                .order_by(Location.kind, func.lower(Location.name), Location.id)
            )
        )
    return cache[key]


def names(module: str, division_ids: Iterable[int]) -> dict[int, str]:
    """Location id -> name, for the tables (one small query per page)."""
    return {p.id: p.shown_name for p in places(module, division_ids)}


def options(item: PreparationItem) -> dict[str, list[Location]]:
    """Per kind the places this vehicle may take: its module's, of its division."""
    by_kind: dict[str, list[Location]] = {k.key: [] for k in KINDS}
    for place in places(item.module, [item.division_id]):
        by_kind.setdefault(place.kind, []).append(place)
    return by_kind


def current(item: PreparationItem) -> dict[str, Location | None]:
    """Per kind the vehicle's place now (None: not given)."""
    ids = [getattr(item, k.column) for k in KINDS if getattr(item, k.column)]
    rows = {p.id: p for p in db.session.scalars(select(Location).where(Location.id.in_(ids)))}
    return {k.key: rows.get(getattr(item, k.column)) for k in KINDS}


def refusal(item_module: str, division_id: int, kind: str, location_id: int | None) -> str | None:
    """Why the location cannot be this vehicle's place of `kind`, or None (None: no place)."""
    if location_id is None:
        return None
    found = db.session.scalar(
        select(Location.id).where(  # the active instance's only (app.core.tenancy)
            Location.id == location_id,
            Location.kind == kind,
            Location.module == item_module,
            Location.division_id == division_id,
        )
    )
    if found is None:
        return {
            "parking": _("Choose one of the division's parking locations."),
            "key": _("Choose one of the division's key locations."),
            "delivery": _("Choose one of the division's delivery locations."),
        }[kind]
    return None


def move(item: PreparationItem, kind: str, location_id: int | None, user) -> bool:
    """Put the vehicle (or its keys) at `location_id` (None: nowhere given); record the move
    with who, from and to. False when it was there already; LocationRefused for a place that
    is not its module's, kind's and division's."""
    spec = BY_KEY.get(kind)
    if spec is None:
        raise LocationRefused(_("There is no such kind of location."))
    if message := refusal(item.module, item.division_id, kind, location_id):
        raise LocationRefused(message)
    before = getattr(item, spec.column)
    if before == location_id:
        return False
    named = current(item)[kind]
    setattr(item, spec.column, location_id)
    after = db.session.get(Location, location_id) if location_id is not None else None
    audit.record(
        MOVE_ACTION, user=user, division_id=item.division_id, item_id=item.id, kind=kind,
        from_id=before, to_id=location_id,
        **{"from": named.name if named else None, "to": after.name if after else None},
        from_texts=named.name_texts if named else {}, to_texts=after.name_texts if after else {},
    )  # fmt: skip
    db.session.flush()
    return True


def history_text(details: dict) -> str:
    """A move as the vehicle's history writes it."""
    kind, before, after = details.get("kind"), details.get("from"), details.get("to")
    if before is not None:  # the names as they were, in the reader's language
        before = for_reader(details.get("from_texts"), before)
    if after is not None:
        after = for_reader(details.get("to_texts"), after)
    texts = {
        "parking": (
            _("Parked at %(to)s", to=after),
            _("Parking location changed from %(from)s to %(to)s", **{"from": before, "to": after}),
            _("Parking location %(from)s removed", **{"from": before}),
        ),
        "key": (
            _("Keys put in %(to)s", to=after),
            _("Keys moved from %(from)s to %(to)s", **{"from": before, "to": after}),
            _("Keys taken from %(from)s", **{"from": before}),
        ),
        "delivery": (
            _("Delivery location set to %(to)s", to=after),
            _("Delivery location moved from %(from)s to %(to)s", **{"from": before, "to": after}),
            _("Delivery location %(from)s removed", **{"from": before}),
        ),
    }.get(kind)
    if texts is None:
        return ""
    new, moved, removed = texts
    if before is None:
        return new
    return removed if after is None else moved


def in_use(location: Location) -> int:
    """How many vehicles in work (not archived) stand at (or hold keys in) this location."""
    spec = BY_KEY[location.kind]
    column = getattr(PreparationItem, spec.column)
    return (
        db.session.scalar(
            select(func.count())
            .select_from(PreparationItem)
            .where(column == location.id, PreparationItem.state != ARCHIVED)
        )
        or 0
    )


def in_use_text(location: Location) -> str | None:
    """Why the location cannot be deleted (the vehicles at it), or None."""
    count = in_use(location)
    if not count:
        return None
    return ngettext(
        "%(num)s vehicle is at this location. Move it elsewhere before you delete the location.",
        "%(num)s vehicles are at this location. Move them elsewhere before you delete the location.",
        count,
    )


# --- what the pages show ---------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """One kind of place of a vehicle as a page shows it: where it is and where it may go."""

    kind: Kind
    current: Location | None
    options: list[Location]


def item_places(item: PreparationItem) -> list[Place]:
    """The vehicle page's places: parking, keys and (in the delivery flow) delivery."""
    now, offered = current(item), options(item)
    return [Place(k, now[k.key], offered[k.key]) for k in kinds_for(item)]


def station_places(items: Iterable[PreparationItem], kinds=("key", "parking")):
    """For a station phone's cards: item id -> [Place] of `kinds` that have locations to tap,
    from one query for every card's divisions."""
    items = list(items)
    if not items:
        return {}
    by_division: dict[tuple, list[Location]] = {}
    modules = {i.module for i in items}
    for module in modules:
        for place in places(module, {i.division_id for i in items if i.module == module}):
            by_division.setdefault((module, place.division_id, place.kind), []).append(place)
    named = {p.id: p for ps in by_division.values() for p in ps}
    found: dict[int, list[Place]] = {}
    for item in items:
        rows = []
        for key in kinds:
            spec = BY_KEY[key]
            offered = by_division.get((item.module, item.division_id, key), [])
            if offered:
                rows.append(Place(spec, named.get(getattr(item, spec.column)), offered))
        found[item.id] = rows
    return found


def filter_choices(module: str, divisions: dict[int, str]) -> tuple:
    """The overview's location filters: ((argument, label, ((id, name), ...)), ...) for each
    kind with locations in these divisions (id -> name), the division's name added when there
    are several. A tuple, so that it can be part of the cached filter form's key."""
    offered = places(module, divisions)
    several = len({p.division_id for p in offered}) > 1
    return tuple(
        (
            spec.arg,
            str(spec.label),
            tuple((p.id, _label(p, divisions, several)) for p in offered if p.kind == spec.key),
        )
        for spec in KINDS
        if any(p.kind == spec.key for p in offered)
    )


def _label(place: Location, divisions: dict[int, str], several: bool) -> str:
    name = place.shown_name
    return f"{name} ({divisions.get(place.division_id, '')})" if several else name


# --- the add and edit form -------------------------------------------------------------------


def select_field(kind: str) -> SelectField:
    """The add and edit form's choice of a place of `kind` (its choices: prepare_form)."""
    return SelectField(BY_KEY[kind].label, coerce=coerce_id, validators=[Optional()])


def prepare_form(form, module: str, divisions: dict[int, str], item=None) -> None:
    """Offer the module's places in the divisions the user may see (with the division's name
    when there are several) and refuse a place of another division than the vehicle's; the
    delivery location only for a vehicle in the delivery flow."""
    if item is None or item.state != DELIVERY_FLOW:
        del form["delivery_location_id"]
    offered = places(module, divisions)
    several = len({p.division_id for p in offered}) > 1
    for spec in KINDS:
        field = form._fields.get(spec.column)
        if field is None:
            continue
        field.choices = [("", _("Not given"))] + [
            (p.id, _label(p, divisions, several)) for p in offered if p.kind == spec.key
        ]
        field.validators = [*field.validators, _of_division(module, spec.key)]


def _left_behind(form, field) -> bool:
    """The vehicle's own place, unchanged on the form, while the vehicle moves to another
    division: it left that place (saved as no place, never refused)."""
    return (
        field.data is not None
        and field.data == field.object_data
        and form.division_id.data != form.division_id.object_data
    )


def _of_division(module: str, kind: str):
    def check(form, field) -> None:
        if field.data is None or _left_behind(form, field):
            return
        if message := refusal(module, form.division_id.data, kind, field.data):
            raise ValidationError(message)

    return check


def save_form(item: PreparationItem, form, user) -> None:
    """Move the vehicle to the places the form gives (each move in its history); a place the
    form's own check let through and the rule refuses is the field's error (ItemError)."""
    for spec in KINDS:
        field = form._fields.get(spec.column)
        if field is not None:
            try:
                move(item, spec.key, None if _left_behind(form, field) else field.data, user)
            except LocationRefused as exc:
                raise ItemError({spec.column: str(exc)}) from None
