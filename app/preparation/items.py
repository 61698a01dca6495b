"""Item rules: validating regno and VIN, creating and editing items, moving them through the
configured state buttons, and the per-page facts the tables show (station progress, days).

Services only flush; the view commits. Every change is recorded with who and when: state
changes as ItemStateEvent rows (services.move_item), edits as an audit row.
"""

import re
from contextlib import contextmanager
from dataclasses import dataclass, fields
from decimal import Decimal
from functools import cache, lru_cache

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import Row, Select, bindparam, false, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import selectinload

from app.core import audit
from app.core.locking import locked
from app.core.models import Country, Division, Region, utcnow
from app.core.modules import MODULE_NAMES
from app.core.tenancy import active_instance_id
from app.extensions import db
from app.preparation import service_due
from app.preparation.models import (
    ItemStationTask,
    PreparationItem,
    StateButton,
    StationPackage,
    StationPackageStep,
)
from app.preparation.queries import in_scope, item_query, sorted_by
from app.preparation.recon_models import ACTUAL, ESTIMATE, ReconLine
from app.preparation.services import _bump, add_item, bump_counts_version, move_item
from app.preparation.states import ARCHIVED, BY_ID, UTILIZE_STATES, states_off

FIRST_STATE = 2  # a vehicle added by hand arrives as incoming

# Stored value -> label. The demo data and imports store these English values.
FUEL_TYPES = {
    "Petrol": _l("Petrol"),
    "Diesel": _l("Diesel"),
    "Hybrid": _l("Hybrid"),
    "Plug-in hybrid": _l("Plug-in hybrid"),
    "Electric": _l("Electric"),
    "Gas": _l("Gas"),
}


def fuel_key(text: str) -> str | None:
    """The fuel type a provider's word names (our key or its label, any case), or None."""
    wanted = " ".join(str(text).split()).casefold()
    for key, label in FUEL_TYPES.items():
        if wanted in (key.casefold(), str(label).casefold()):
            return key
    return None


# Registration number formats per country code of the division; other countries: permissive.
REGNO_FORMATS = {
    "SE": (re.compile(r"^[A-Z]{3}\d{2}[A-Z0-9]$"), "ABC123, ABC12A"),
    "NO": (re.compile(r"^[A-Z]{2}\d{5}$"), "AB12345"),
}
PERMISSIVE_REGNO = re.compile(r"^[0-9A-ZÀ-ÖØ-Ý-]{2,20}$")
VIN_FORMAT = re.compile(r"^[A-HJ-NPR-Z0-9]{17}$")  # 17 characters, never I, O or Q


class ItemError(ValueError):
    """Refused item values: a translated message per field."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(errors.values()))
        self.errors = errors


class MoveRefused(ValueError):
    """A state change that no state button allows."""


@dataclass
class ItemData:
    """The editable fields of an item, as the add and edit form gives them."""

    division_id: int
    regno: str
    brand: str
    model: str
    vin: str | None = None
    model_series: str | None = None
    model_year: int | None = None
    fuel_type: str | None = None
    color: str | None = None
    mileage: int | None = None
    purchase_price: Decimal | None = None
    sales_price: Decimal | None = None
    package_id: int | None = None


# --- regno and VIN ---------------------------------------------------------------------------


def normalise_regno(raw: str | None) -> str:
    """Upper case without spaces."""
    return re.sub(r"\s+", "", raw or "").upper()


def normalise_vin(raw: str | None) -> str:
    """Upper case without spaces."""
    return re.sub(r"\s+", "", raw or "").upper()


def regno_error(regno: str, country_code: str | None) -> str | None:
    """A message when a normalised regno does not fit the division's country, else None."""
    if not regno:
        return _("Enter the registration number.")
    pattern, example = REGNO_FORMATS.get(country_code or "", (None, None))
    if pattern is not None and not pattern.match(regno):
        return _(
            "%(regno)s is not a valid registration number here. Use the format %(example)s.",
            regno=regno,
            example=example,
        )
    if pattern is None and not PERMISSIVE_REGNO.match(regno):
        return _(
            "%(regno)s is not a valid registration number: use 2 to 20 letters, digits or hyphens.",
            regno=regno,
        )
    return None


def vin_error(vin: str) -> str | None:
    """A message when a normalised VIN is not 17 characters without I, O and Q, else None."""
    if not vin:
        return None
    if len(vin) != 17:
        return _("A VIN has 17 characters; %(vin)s has %(n)s.", vin=vin, n=len(vin))
    if not VIN_FORMAT.match(vin):
        return _("A VIN holds only letters and digits, never I, O or Q.")
    return None


def division_country(division_id: int) -> str | None:
    """The country code of a division of the active instance."""
    return db.session.scalar(
        select(Country.code)
        .join(Region, Region.country_id == Country.id)
        .join(Division, Division.region_id == Region.id)
        .where(Division.id == division_id)
    )


def duplicate_errors(regno: str, vin: str | None, exclude_id: int | None = None) -> dict:
    """Messages for a regno or VIN that another vehicle of the instance (not archived) has."""
    errors = {}
    for name, column, value in (
        ("regno", PreparationItem.regno, regno),
        ("vin", PreparationItem.vin, vin),
    ):
        if not value:
            continue
        stmt = select(PreparationItem).where(column == value, PreparationItem.state != ARCHIVED)
        if exclude_id is not None:
            stmt = stmt.where(PreparationItem.id != exclude_id)
        other = db.session.scalars(stmt.limit(1)).first()
        if other is not None:
            errors[name] = _(
                "%(value)s is already registered on another vehicle: %(vehicle)s (%(module)s, %(state)s).",
                value=value,
                vehicle=other.full_model_name,
                module=MODULE_NAMES[other.module],
                state=BY_ID[other.state].title,
            )
    return errors


def validate(data: ItemData, allowed_division_ids, module: str, exclude_id=None) -> ItemData:
    """Normalise and check item values; raises ItemError with a message per field."""
    errors: dict[str, str] = {}
    data.regno = normalise_regno(data.regno)
    data.vin = normalise_vin(data.vin) or None
    for name in ("brand", "model", "model_series", "color", "fuel_type"):
        value = getattr(data, name)
        setattr(data, name, " ".join(value.split()) if value else None)
    if data.division_id not in set(allowed_division_ids):
        errors["division_id"] = _("Choose one of your divisions.")
    elif message := regno_error(data.regno, division_country(data.division_id)):
        errors["regno"] = message
    if message := vin_error(data.vin or ""):
        errors["vin"] = message
    if not data.brand:
        errors["brand"] = _("Enter the brand.")
    if not data.model:
        errors["model"] = _("Enter the model.")
    if data.package_id is not None and not db.session.scalar(
        select(StationPackage.id).where(
            StationPackage.id == data.package_id, StationPackage.module == module
        )
    ):
        errors["package_id"] = _("Choose one of the station packages.")
    for name, message in duplicate_errors(data.regno, data.vin, exclude_id).items():
        errors.setdefault(name, message)
    if errors:
        raise ItemError(errors)
    return data


# --- create and edit -------------------------------------------------------------------------


def create_item(module: str, data: ItemData, user, allowed_division_ids) -> PreparationItem:
    """Add a vehicle as incoming, with its package's station tasks; audited."""
    validate(data, allowed_division_ids, module)
    item = PreparationItem(module=module, state=FIRST_STATE, warning=False, **_values(data))
    with _unique_live_numbers(data.regno, data.vin):
        add_item(item, user.id)
    if data.package_id is not None:
        _add_tasks(item, data.package_id, set())
    service_due.evaluate(item)
    audit.record(
        "preparation.item.created", user=user, division_id=item.division_id, item_id=item.id,
        module=module, regno=item.regno,
    )  # fmt: skip
    return item


def update_item(item: PreparationItem, data: ItemData, user, allowed_division_ids) -> dict:
    """Save edited values; moves the counters with a division change; audits what changed."""
    validate(data, allowed_division_ids, item.module, exclude_id=item.id)
    changes = {}
    for name, value in _values(data).items():
        old = getattr(item, name)
        if _plain(old) != _plain(value):
            changes[name] = [_plain(old), _plain(value)]
    if "division_id" in changes:
        # The per-state counters follow the item to its new division (see services._bump).
        _bump(item.instance_id, item.module, item.division_id, item.state, -1)
        _bump(item.instance_id, item.module, data.division_id, item.state, +1)
        bump_counts_version(item.instance_id)
    for name, value in _values(data).items():
        setattr(item, name, value)
    if "package_id" in changes:
        _replace_pending_tasks(item, data.package_id)
    if changes:
        item.modified_at = utcnow()
        audit.record(
            "preparation.item.edited", user=user, division_id=data.division_id, item_id=item.id,
            module=item.module, changes=changes,
        )  # fmt: skip
    with _unique_live_numbers(data.regno, data.vin, exclude_id=item.id):
        db.session.flush()
    service_due.evaluate(item)
    return changes


@contextmanager
def _unique_live_numbers(regno: str, vin: str | None, exclude_id: int | None = None):
    """Turn the database's refusal of a duplicate regno or VIN (another vehicle saved at the
    same moment) into the same message the check before gives."""
    try:
        with db.session.begin_nested():
            yield
    except IntegrityError:
        errors = duplicate_errors(regno, vin, exclude_id)
        raise ItemError(
            errors or {"regno": _("Another vehicle was just saved with these numbers.")}
        ) from None


def _values(data: ItemData) -> dict:
    return {f.name: getattr(data, f.name) for f in fields(data)}


def _plain(value):
    """A value as the audit log's JSON stores it."""
    if isinstance(value, Decimal):
        return str(value.quantize(Decimal("0.01")))
    if isinstance(value, float):
        return str(Decimal(str(value)).quantize(Decimal("0.01")))
    return value


def _add_tasks(item: PreparationItem, package_id: int, existing_stations: set[int]) -> None:
    steps = db.session.scalars(
        select(StationPackageStep)
        .where(StationPackageStep.package_id == package_id)
        .options(selectinload(StationPackageStep.station))
        .order_by(StationPackageStep.ordering)
    ).all()
    for step in steps:
        if step.station_id in existing_stations:
            continue
        db.session.add(
            ItemStationTask(
                instance_id=item.instance_id, item_id=item.id, station_id=step.station_id,
                ordering=step.ordering, target_minutes=step.station.target_minutes,
            )
        )  # fmt: skip


def _replace_pending_tasks(item: PreparationItem, package_id: int | None) -> None:
    """A new package: unstarted tasks go, started and finished ones stay, new stations come."""
    tasks = db.session.scalars(
        select(ItemStationTask).where(ItemStationTask.item_id == item.id)
    ).all()
    kept = set()
    for task in tasks:
        if task.status == "pending":
            db.session.delete(task)  # a pending check-up task too: service_due gives it again
        elif task.checkup_task_id is None:
            kept.add(task.station_id)
    db.session.flush()
    if package_id is not None:
        _add_tasks(item, package_id, kept)


# --- state buttons ---------------------------------------------------------------------------


def buttons_for(items: list[PreparationItem]) -> dict[int, list[StateButton]]:
    """The state buttons per item id, for a page of items of one module: one query."""
    if not items:
        return {}
    modules = {i.module for i in items}
    states = {i.state for i in items}
    rows = db.session.scalars(
        select(StateButton)
        .where(StateButton.module.in_(modules), StateButton.from_state.in_(states))
        .order_by(StateButton.ordering, StateButton.id)
    ).all()
    off = {m: states_off(m) for m in modules}
    return {
        i.id: [
            b
            for b in rows
            if b.module == i.module and b.from_state == i.state and b.to_state not in off[i.module]
        ]
        for i in items
    }


def move_by_button(item: PreparationItem, to_state: int, user, from_state=None) -> StateButton:
    """Move an item along one of its module's state buttons; refuses any other move, and one
    pressed on a page that showed the item in another state (`from_state`). The row is locked
    and read again first: of two people moving a vehicle at once, the second is refused."""
    fresh = select(PreparationItem).where(PreparationItem.id == item.id)
    locked(fresh.execution_options(populate_existing=True)).scalar_one()
    if from_state is not None and from_state != item.state:
        text = _("%(regno)s has been moved to %(state)s by someone else in the meantime.")
        raise MoveRefused(text % {"regno": item.regno, "state": BY_ID[item.state].title})
    button = db.session.scalars(
        select(StateButton).where(
            StateButton.module == item.module,
            StateButton.from_state == item.state,
            StateButton.to_state == to_state,
            StateButton.to_state.not_in(states_off(item.module)),  # a state switched off
        )
    ).first()
    if button is None:
        raise MoveRefused(
            _(
                "A vehicle in %(from)s cannot be moved to %(to)s.",
                **{
                    "from": BY_ID[item.state].title,
                    "to": BY_ID[to_state].title if to_state in BY_ID else to_state,
                },
            )
        )
    if item.state == ARCHIVED:
        # Back in work: its regno and VIN must not be in use by another vehicle in work.
        errors = duplicate_errors(item.regno, item.vin, exclude_id=item.id)
        if errors:
            raise MoveRefused(next(iter(errors.values())))
    with _unique_live_numbers(item.regno, item.vin, exclude_id=item.id):
        move_item(item, to_state, user.id)
        db.session.flush()
    return button


# --- what the tables show --------------------------------------------------------------------


def manage_path(item: PreparationItem) -> str:
    """The item's page: stations-utilize for states 3, 5 and 7, else stations-manage (spec 02)."""
    return item_path(item.module, item.state, item.id)


def item_path(module: str, state: int, item_id: int) -> str:
    """`manage_path` from the item's module, state and id."""
    view = "stations-utilize" if state in UTILIZE_STATES else "stations-manage"
    return f"/{module}/items/{BY_ID[state].segment}/{item_id}/{view}"


# Adverts that make an item's row a blue callout (spec 02): published, closed, provisionally
# sold or allocated.
ACTIVE_ADVERT_STATUSES = ("published", "closed", "provisional", "allocated")


# Whether an item has an active advert: `condition(item_id_column)` is a SQL condition. The
# market adds it with `@advertised_items` (app.market.models): it builds on items, not the
# other way.
ADVERTISED: list = []


def advertised_items(condition):
    """Register the market's condition for an item with an active advert (see ADVERTISED)."""
    ADVERTISED.append(condition)
    return condition


def _advertised(item_id):
    return or_(*(condition(item_id) for condition in ADVERTISED)) if ADVERTISED else false()


@cache
def _active_adverts_query():
    item = PreparationItem
    return select(item.id).where(
        item.id.in_(bindparam("ids", expanding=True)), _advertised(item.id)
    )


def active_advert_ids(item_ids: list[int]) -> set[int]:
    """Items with an active market advert: published, closed, provisionally sold or allocated
    (spec 02: a blue callout on their rows). One query over the page's item ids, in the active
    instance."""
    if not item_ids:
        return set()
    return set(db.session.scalars(_active_adverts_query(), {"ids": item_ids}))


@cache
def _table_columns() -> tuple:
    """What an item table's row shows, with its station progress and whether it has an active
    advert as correlated subqueries (built once, as the queries above)."""
    item, task = PreparationItem, ItemStationTask
    tasks = select(func.count()).where(task.item_id == item.id)
    cost = select(func.sum(ReconLine.amount)).where(ReconLine.item_id == item.id)
    return (
        item.id, item.module, item.state, item.regno, item.warning, item.brand, item.model,
        item.model_series, item.model_year, item.division_id, item.state_changed_at,
        item.mileage, item.sales_price,
        tasks.where(task.status == "done").scalar_subquery().label("done"),
        tasks.scalar_subquery().label("total"),
        _advertised(item.id).label("advert"),
        item.parking_location_id, item.key_location_id, item.service_due, item.salesperson_id,
        cost.where(ReconLine.phase == ESTIMATE).scalar_subquery().label("recon_estimate"),
        cost.where(ReconLine.phase == ACTUAL).scalar_subquery().label("recon_actual"),
    )  # fmt: skip


def _table_statement(limited: Select, sort: str) -> Select:
    page_ids = limited.with_only_columns(PreparationItem.id).correlate(None)
    return sorted_by(select(*_table_columns()).where(PreparationItem.id.in_(page_ids)), sort)


def table_rows(limited: Select, sort: str) -> list[Row]:
    """One page of an item table in one statement: the ids of the page that `limited`
    selects, then those items' columns, station progress (done, total) and active advert,
    worked out for the page's rows only, in the same order. Each row holds the values in the
    order of `_table_columns` (routes_overview.Table.rows unpacks them)."""
    return list(db.session.execute(_table_statement(limited, sort)))


@lru_cache(maxsize=64)
def _scope_table_statement(sort: str, with_state: bool) -> Select:
    scope = in_scope(
        bindparam("module"),
        bindparam("division_ids", expanding=True),
        bindparam("instance_id"),
        bindparam("state") if with_state else None,
    )
    limited = sorted_by(select(PreparationItem).where(*scope), sort)
    # Built once: the tenancy hook keeps its instance-limited copies (app.core.tenancy).
    return _table_statement(limited.limit(bindparam("limit")).offset(bindparam("offset")), sort)


def scope_table_rows(
    module: str, division_ids: list[int], state: int | None, sort: str, limit: int, offset: int
) -> list[Row]:
    """`table_rows` of a table of nothing but a module's items in some divisions (and one
    state), as the state lists and the overview without other filters show: the statement is
    built once per sort, these values are its parameters."""
    instance_id = active_instance_id()
    if instance_id is None:  # the statement names an instance
        stmt = item_query(module, division_ids, state=state, sort=sort)
        return table_rows(stmt.limit(limit).offset(offset), sort)
    params = {
        "module": module, "division_ids": list(division_ids), "instance_id": instance_id,
        "limit": limit, "offset": offset,
    }  # fmt: skip
    if state is not None:
        params["state"] = state
    stmt = _scope_table_statement(sort, state is not None)
    return list(db.session.execute(stmt, params))
