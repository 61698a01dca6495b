"""Rules of the module's configuration: state buttons, stations, packages, groups, locations.

Every function works inside the active instance (tenancy adds it to each query) and one module;
changes are flushed, audited with what changed, and committed by the caller. A change the rules
refuse raises `Refused` before anything is written, so nothing is half-saved and no database
constraint is left to answer for us.
"""

from collections.abc import Iterable, Sequence

from flask_babel import gettext as _
from flask_babel import ngettext
from sqlalchemy import func, select, update
from sqlalchemy.orm import joinedload, selectinload

from app.core.audit import record
from app.core.models import Division
from app.extensions import db
from app.preparation.models import (
    ItemStationTask,
    Location,
    PreparationItem,
    StateButton,
    Station,
    StationGroup,
    StationPackage,
    StationPackageStep,
)
from app.preparation.services import state_counts
from app.preparation.states import BY_ID, STATES

LOCATION_KINDS = ("parking", "key", "delivery")


class Refused(ValueError):
    """A change the rules refuse: the form field it concerns and the message to show."""

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


def _changes(obj, values: dict) -> dict:
    """Set `values` on `obj`; return {field: [old, new]} for the ones that differ."""
    changed = {}
    for name, new in values.items():
        old = getattr(obj, name)
        if old != new:
            changed[name] = [old, new]
            setattr(obj, name, new)
    return changed


def _audit(action: str, obj, module: str, **details) -> None:
    record(
        f"preparation.admin.{action}",
        division_id=getattr(obj, "division_id", None),
        module=module,
        id=obj.id,
        **details,
    )


def _one(model, module: str, item_id: int, *where, options=()):
    """One row of the module with this id (and `where`) in the active instance, or None."""
    return db.session.scalar(
        select(model).where(model.id == item_id, model.module == module, *where).options(*options)
    )


def _all(model, module: str, *order_by, options=()) -> list:
    """The module's rows in this order."""
    return list(
        db.session.scalars(
            select(model).where(model.module == module).options(*options).order_by(*order_by)
        )
    )


def _counts(stmt) -> dict[int, int]:
    """{key: count} from a grouped (key, count) query."""
    return {key: count for key, count in db.session.execute(stmt)}


def _store(model, obj, module: str, action: str, values: dict, **fixed):
    """Create a row with `fixed` and `values`, or set `values` on `obj`; flush, and audit the
    new values or what changed (with `fixed`, e.g. a location's kind)."""
    if obj is None:
        obj = model(module=module, **fixed, **values)
        db.session.add(obj)
        db.session.flush()
        _audit(f"{action}.create", obj, module, **fixed, values=values)
    else:
        changed = _changes(obj, values)
        db.session.flush()
        if changed:
            _audit(f"{action}.update", obj, module, **fixed, changes=changed)
    return obj


def _remove(obj, module: str, action: str, **details) -> None:
    """Audit a row's deletion with `details`, then delete it."""
    _audit(f"{action}.delete", obj, module, **details)
    db.session.delete(obj)
    db.session.flush()


def _same_name(model, module: str, name: str, exclude_id: int | None, **where) -> bool:
    stmt = select(model.id).where(
        model.module == module, func.lower(model.name) == name.strip().lower()
    )
    for column, value in where.items():
        stmt = stmt.where(getattr(model, column) == value)
    if exclude_id is not None:
        stmt = stmt.where(model.id != exclude_id)
    return db.session.scalar(stmt.limit(1)) is not None


def divisions() -> list[Division]:
    """The instance's divisions by name (the owners a setting row may have)."""
    return list(db.session.scalars(select(Division).order_by(Division.name)))


# --- states -------------------------------------------------------------------------------------


def state_overview(module: str, division_ids: Iterable[int]) -> list[tuple]:
    """The nine states with their item count and the buttons leaving each: (state, count, buttons)."""
    counts = state_counts(list(division_ids))[module]
    leaving: dict[int, list[StateButton]] = {s.id: [] for s in STATES}
    for button in state_buttons(module):
        leaving.setdefault(button.from_state, []).append(button)
    return [(s, counts.get(s.id, 0), leaving[s.id]) for s in STATES]


# --- state buttons ------------------------------------------------------------------------------


def state_buttons(module: str) -> list[StateButton]:
    """The module's state buttons by from-state and ordering."""
    return _all(StateButton, module, StateButton.from_state, StateButton.ordering, StateButton.id)


def get_state_button(module: str, button_id: int) -> StateButton | None:
    """One state button of the module in the active instance, or None."""
    return _one(StateButton, module, button_id)


def save_state_button(
    module: str,
    button: StateButton | None,
    *,
    from_state: int,
    to_state: int,
    title: str,
    ordering: int,
    division_id: int | None = None,
) -> StateButton:
    """Create or change a state button: a move to another state, only one per pair of states."""
    if from_state not in BY_ID:
        raise Refused("from_state", _("Choose a state."))
    if to_state not in BY_ID:
        raise Refused("to_state", _("Choose a state."))
    if from_state == to_state:
        raise Refused("to_state", _("A state button must lead to another state."))
    duplicate = select(StateButton.id).where(
        StateButton.module == module,
        StateButton.from_state == from_state,
        StateButton.to_state == to_state,
    )
    if button is not None:
        duplicate = duplicate.where(StateButton.id != button.id)
    if db.session.scalar(duplicate.limit(1)) is not None:
        raise Refused(
            "to_state",
            _(
                "There is already a state button from %(source)s to %(target)s.",
                source=BY_ID[from_state].title,
                target=BY_ID[to_state].title,
            ),
        )
    values = {
        "from_state": from_state,
        "to_state": to_state,
        "title": title.strip(),
        "ordering": ordering,
        "division_id": division_id,
    }
    return _store(StateButton, button, module, "state_button", values)


def delete_state_button(module: str, button: StateButton) -> None:
    """Remove a state button: items in its from-state can no longer take that move."""
    _remove(
        button,
        module,
        "state_button",
        values={
            "from_state": button.from_state,
            "to_state": button.to_state,
            "title": button.title,
        },
    )


# --- station groups -----------------------------------------------------------------------------


def station_groups(module: str) -> list[StationGroup]:
    """The module's station groups by name."""
    return _all(StationGroup, module, func.lower(StationGroup.name), StationGroup.id)


def group_station_counts(module: str) -> dict[int, int]:
    """Stations per group of the module, in one grouped query."""
    return _counts(
        select(Station.station_group_id, func.count())
        .where(Station.module == module, Station.station_group_id.is_not(None))
        .group_by(Station.station_group_id)
    )


def get_station_group(module: str, group_id: int) -> StationGroup | None:
    """One station group of the module in the active instance, or None."""
    return _one(StationGroup, module, group_id)


def save_station_group(
    module: str, group: StationGroup | None, *, name: str, division_id: int | None = None
) -> StationGroup:
    """Create or rename a station group; names are unique within the module."""
    name = name.strip()
    if _same_name(StationGroup, module, name, group.id if group else None):
        raise Refused("name", _("There is already a station group called %(name)s.", name=name))
    values = {"name": name, "division_id": division_id}
    return _store(StationGroup, group, module, "station_group", values)


def delete_station_group(module: str, group: StationGroup) -> None:
    """Remove a station group; its stations stay, without a group."""
    db.session.execute(
        update(Station)
        .where(Station.station_group_id == group.id)
        .values(station_group_id=None)
        .execution_options(synchronize_session="fetch")
    )
    _remove(group, module, "station_group", values={"name": group.name})


# --- stations -----------------------------------------------------------------------------------


def stations(module: str) -> list[Station]:
    """The module's stations by ordering, with their groups."""
    return _all(
        Station,
        module,
        Station.ordering,
        func.lower(Station.name),
        Station.id,
        options=[joinedload(Station.group)],
    )


def station_task_counts(module: str) -> dict[int, int]:
    """Station tasks per station of the module, in one grouped query."""
    return _counts(
        select(ItemStationTask.station_id, func.count())
        .join(Station, Station.id == ItemStationTask.station_id)
        .where(Station.module == module)
        .group_by(ItemStationTask.station_id)
    )


def get_station(module: str, station_id: int) -> Station | None:
    """One station of the module in the active instance, or None."""
    return _one(Station, module, station_id)


def save_station(
    module: str,
    station: Station | None,
    *,
    name: str,
    group_id: int | None,
    target_minutes: int,
    ordering: int,
    division_id: int | None = None,
) -> Station:
    """Create or change a station; names are unique within the module."""
    name = name.strip()
    if group_id is not None and get_station_group(module, group_id) is None:
        raise Refused("station_group_id", _("Choose a station group of this module."))
    if _same_name(Station, module, name, station.id if station else None):
        raise Refused("name", _("There is already a station called %(name)s.", name=name))
    values = {
        "name": name,
        "station_group_id": group_id,
        "target_minutes": target_minutes,
        "ordering": ordering,
        "division_id": division_id,
    }
    return _store(Station, station, module, "station", values)


def station_in_use(station: Station) -> int:
    """How many station tasks refer to a station (a station with tasks is kept)."""
    return db.session.scalar(
        select(func.count())
        .select_from(ItemStationTask)
        .where(ItemStationTask.station_id == station.id)
    )


def packages_with_station(station: Station) -> list[str]:
    """The names of the packages that include a station."""
    return list(
        db.session.scalars(
            select(StationPackage.name)
            .join(StationPackageStep, StationPackageStep.package_id == StationPackage.id)
            .where(StationPackageStep.station_id == station.id)
            .order_by(StationPackage.name)
        )
    )


def delete_station(module: str, station: Station) -> None:
    """Remove a station that has no tasks; it leaves the packages that included it."""
    tasks = station_in_use(station)
    if tasks:
        raise Refused(None, station_in_use_message(station, tasks))
    packages = packages_with_station(station)
    db.session.execute(
        StationPackageStep.__table__.delete().where(
            StationPackageStep.__table__.c.station_id == station.id
        )
    )
    _remove(station, module, "station", values={"name": station.name}, packages=packages)


# --- station packages ---------------------------------------------------------------------------

_WITH_STEPS = selectinload(StationPackage.steps).joinedload(StationPackageStep.station)


def packages(module: str) -> list[StationPackage]:
    """The module's packages by name, with their steps and stations loaded."""
    return _all(
        StationPackage,
        module,
        func.lower(StationPackage.name),
        StationPackage.id,
        options=[_WITH_STEPS],
    )


def package_item_counts(module: str) -> dict[int, int]:
    """Vehicles per package of the module, in one grouped query."""
    return _counts(
        select(PreparationItem.package_id, func.count())
        .where(PreparationItem.module == module, PreparationItem.package_id.is_not(None))
        .group_by(PreparationItem.package_id)
    )


def get_package(module: str, package_id: int) -> StationPackage | None:
    """One package of the module in the active instance, with its steps, or None."""
    return _one(StationPackage, module, package_id, options=[_WITH_STEPS])


def save_package(
    module: str,
    package: StationPackage | None,
    *,
    name: str,
    station_ids: Sequence[int],
    division_id: int | None = None,
) -> StationPackage:
    """Create or change a package: its name and its stations in order, each at most once."""
    name = name.strip()
    if not station_ids:
        raise Refused("steps", _("Choose at least one station."))
    if len(set(station_ids)) != len(station_ids):
        raise Refused("steps", _("Each station can be in a package only once."))
    known = {s.id: s for s in stations(module)}
    if any(station_id not in known for station_id in station_ids):
        raise Refused("steps", _("Choose stations of this module."))
    if _same_name(StationPackage, module, name, package.id if package else None):
        raise Refused("name", _("There is already a package called %(name)s.", name=name))
    order = [known[i].name for i in station_ids]
    if package is None:
        package = StationPackage(module=module, name=name, division_id=division_id)
        db.session.add(package)
        db.session.flush()
        _audit("station_package.create", package, module, values={"name": name, "steps": order})
    else:
        before = [step.station.name for step in package.steps]
        changed = _changes(package, {"name": name, "division_id": division_id})
        if before != order:
            changed["steps"] = [before, order]
        if changed:
            _audit("station_package.update", package, module, changes=changed)
        package.steps.clear()
        db.session.flush()
    package.steps.extend(
        StationPackageStep(package_id=package.id, station_id=station_id, ordering=n)
        for n, station_id in enumerate(station_ids)
    )
    db.session.flush()
    return package


def delete_package(module: str, package: StationPackage) -> None:
    """Remove a package; vehicles that had it keep their station tasks."""
    db.session.execute(
        update(PreparationItem)
        .where(PreparationItem.package_id == package.id)
        .values(package_id=None)
        .execution_options(synchronize_session=False)
    )
    _remove(package, module, "station_package", values={"name": package.name})


# --- locations ----------------------------------------------------------------------------------


def locations(module: str, kind: str, division_ids: Iterable[int]) -> list[tuple]:
    """Locations of one kind in these divisions: (location, division name), by division and name."""
    return list(
        db.session.execute(
            select(Location, Division.name)
            .join(Division, Division.id == Location.division_id)
            .where(
                Location.module == module,
                Location.kind == kind,
                Location.division_id.in_(list(division_ids)),
            )
            .order_by(Division.name, func.lower(Location.name), Location.id)
        ).all()
    )


def get_location(
    module: str, kind: str, location_id: int, division_ids: Iterable[int]
) -> Location | None:
    """One location of this kind in the module and the given divisions, or None."""
    return _one(
        Location,
        module,
        location_id,
        Location.kind == kind,
        Location.division_id.in_(list(division_ids)),
    )


def save_location(
    module: str,
    kind: str,
    location: Location | None,
    *,
    name: str,
    division_id: int,
    division_ids: Iterable[int],
) -> Location:
    """Create or change a location in one of the given divisions; names are unique there."""
    if kind not in LOCATION_KINDS:
        raise ValueError(f"unknown location kind {kind}")
    name = name.strip()
    if division_id not in set(division_ids):
        raise Refused("division_id", _("Choose one of your divisions."))
    if _same_name(
        Location,
        module,
        name,
        location.id if location else None,
        kind=kind,
        division_id=division_id,
    ):
        raise Refused("name", _("This division already has a location called %(name)s.", name=name))
    values = {"name": name, "division_id": division_id}
    return _store(Location, location, module, "location", values, kind=kind)


def delete_location(module: str, location: Location) -> None:
    """Remove a location."""
    _remove(
        location,
        module,
        "location",
        kind=location.kind,
        values={"name": location.name, "division_id": location.division_id},
    )


def station_in_use_message(station, tasks: int) -> str:
    """Why a station with tasks cannot be deleted."""
    return ngettext(
        "%(name)s has station tasks on %(num)s vehicle and cannot be deleted.",
        "%(name)s has station tasks on %(num)s vehicles and cannot be deleted.",
        tasks,
        name=station.name,
    )
