"""Rules of the module's configuration: state buttons, stations, packages, groups, locations.

Every function works inside the active instance (tenancy adds it to each query) and one module.
The admin screens (app/admin/preparation.py, on app.admin.crud) store and audit the rows; the
checks here raise `Refused` before anything is written, so nothing is half-saved and no
database constraint is left to answer for us.
"""

from collections.abc import Iterable, Sequence

from flask_babel import gettext as _
from flask_babel import ngettext
from sqlalchemy import func, select, update
from sqlalchemy.orm import joinedload, selectinload

from app.core.localized import for_reader
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


def _same_name(model, module: str, name: str, exclude_id: int | None, **where) -> bool:
    stmt = select(model.id).where(
        model.module == module, func.lower(model.name) == name.strip().lower()
    )
    for column, value in where.items():
        stmt = stmt.where(getattr(model, column) == value)
    if exclude_id is not None:
        stmt = stmt.where(model.id != exclude_id)
    return db.session.scalar(stmt.limit(1)) is not None


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


def check_state_button(module: str, button_id: int | None, from_state: int, to_state: int) -> None:
    """A state button is a move to another state, only one per pair of states."""
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
    if button_id is not None:
        duplicate = duplicate.where(StateButton.id != button_id)
    if db.session.scalar(duplicate.limit(1)) is not None:
        raise Refused(
            "to_state",
            _(
                "There is already a state button from %(source)s to %(target)s.",
                source=BY_ID[from_state].title,
                target=BY_ID[to_state].title,
            ),
        )


# --- station groups -----------------------------------------------------------------------------


def station_groups(module: str) -> list[StationGroup]:
    """The module's station groups by name."""
    return _all(StationGroup, module, func.lower(StationGroup.name), StationGroup.id)


def get_station_group(module: str, group_id: int) -> StationGroup | None:
    """One station group of the module in the active instance, or None."""
    return _one(StationGroup, module, group_id)


def check_station_group(module: str, group_id: int | None, name: str) -> None:
    """Refuse a station group's name when another group of the module has it."""
    if _same_name(StationGroup, module, name, group_id):
        raise Refused("name", _("There is already a station group called %(name)s.", name=name))


def ungroup_stations(group: StationGroup) -> None:
    """Before a station group goes: its stations stay, without a group."""
    db.session.execute(
        update(Station)
        .where(Station.station_group_id == group.id)
        .values(station_group_id=None)
        .execution_options(synchronize_session="fetch")
    )


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


def check_station(module: str, station_id: int | None, name: str, group_id: int | None) -> None:
    """Refuse a station of another module's group, or with the name of another station."""
    if group_id is not None and get_station_group(module, group_id) is None:
        raise Refused("station_group_id", _("Choose a station group of this module."))
    if _same_name(Station, module, name, station_id):
        raise Refused("name", _("There is already a station called %(name)s.", name=name))


def station_in_use(station: Station) -> int:
    """How many station tasks refer to a station (a station with tasks is kept)."""
    return db.session.scalar(
        select(func.count())
        .select_from(ItemStationTask)
        .where(ItemStationTask.station_id == station.id)
    )


def packages_with_station(station: Station) -> list[str]:
    """The names of the packages that include a station, as the reader reads them."""
    rows = db.session.execute(
        select(StationPackage.name, StationPackage.name_texts)
        .join(StationPackageStep, StationPackageStep.package_id == StationPackage.id)
        .where(StationPackageStep.station_id == station.id)
        .order_by(StationPackage.name)
    )
    return [for_reader(texts, name) for name, texts in rows]


def leave_packages(station: Station) -> None:
    """Before a station goes: the packages that included it leave it out."""
    db.session.execute(
        StationPackageStep.__table__.delete().where(
            StationPackageStep.__table__.c.station_id == station.id
        )
    )


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


def check_package(module: str, package_id: int | None, name: str, station_ids: Sequence[int]):
    """A package's stations are the module's, each at most once; its name is the module's only."""
    if not station_ids:
        raise Refused("steps", _("Choose at least one station."))
    if len(set(station_ids)) != len(station_ids):
        raise Refused("steps", _("Each station can be in a package only once."))
    known = {s.id for s in stations(module)}
    if any(station_id not in known for station_id in station_ids):
        raise Refused("steps", _("Choose stations of this module."))
    if _same_name(StationPackage, module, name, package_id):
        raise Refused("name", _("There is already a package called %(name)s.", name=name))


def set_steps(package: StationPackage, station_ids: Sequence[int]) -> None:
    """The package's stations, in this order."""
    package.steps.clear()
    db.session.flush()
    package.steps.extend(
        StationPackageStep(station_id=station_id, ordering=n)
        for n, station_id in enumerate(station_ids)
    )


def unset_package(package: StationPackage) -> None:
    """Before a package goes: vehicles that had it keep their station tasks."""
    db.session.execute(
        update(PreparationItem)
        .where(PreparationItem.package_id == package.id)
        .values(package_id=None)
        .execution_options(synchronize_session=False)
    )


# --- locations ----------------------------------------------------------------------------------


def check_location(
    module: str, kind: str, location_id: int | None, name: str, division_id: int
) -> None:
    """A location's name is unique among its division's locations of its kind."""
    if kind not in LOCATION_KINDS:
        raise ValueError(f"unknown location kind {kind}")
    taken = _same_name(Location, module, name, location_id, kind=kind, division_id=division_id)
    if taken:
        raise Refused("name", _("This division already has a location called %(name)s.", name=name))


def station_in_use_message(station, tasks: int) -> str:
    """Why a station with tasks cannot be deleted."""
    return ngettext(
        "%(name)s has station tasks on %(num)s vehicle and cannot be deleted.",
        "%(name)s has station tasks on %(num)s vehicles and cannot be deleted.",
        tasks,
        name=station.shown_name,
    )
