"""The preparation modules' admin screens, one set per module at /admin/{begcare|newcare}/…:
a screen is seen with the module by whoever its admin menu entry shows to (ROLE_ADMIN, the
screen's ROLE_*_READ role, or division admin); a change needs ROLE_ADMIN or division admin, and
a division administrator changes only their divisions' rows (app.core.division_settings)."""

from flask import render_template, request
from flask_babel import format_decimal, ngettext
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup
from sqlalchemy import func, select

from app.admin.crud import (
    NAME,
    Column,
    FormRefused,
    Screen,
    admin_or_division_admin,
    counts_by,
    guard,
    page_title,
)
from app.core.division_settings import (
    division_label,
    instance_divisions,
    may_change,
    own_division_ids,
    owner_choices,
)
from app.core.localized import for_reader, search_names
from app.core.modules import MODULE_NAMES
from app.extensions import db
from app.preparation import admin_services as S
from app.preparation.admin_forms import (
    LocationForm,
    StateButtonForm,
    StationForm,
    StationGroupForm,
    StationPackageForm,
)
from app.preparation.locations import in_use_text
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
from app.preparation.states import BY_ID

MODULES = ("begcare", "newcare")


OWNER = Column(_l("Division"), lambda r, e: division_label(e["divisions"], r.division_id), "", True)


def module_screen(module: str, slug: str, model, *, extra=None, offer=None, **fields) -> Screen:
    """A setting of a preparation module, at /admin/{module}/{slug}: the module's rows, each
    one division's or the whole instance's (the OWNER column names whose), changed by ROLE_ADMIN
    or a division administrator (only their divisions' rows). `extra`: (rows) -> more for the
    list; `offer`: (form, row) -> the form's choices beside the owners."""

    def prepare(form, v, row) -> None:
        form.set_owners(owner_choices(v, instance_divisions()))
        if offer is not None:
            offer(form, row)

    def list_extra(rows, v) -> dict:
        return {"divisions": instance_divisions(), **(extra(rows) if extra else {})}

    return Screen(
        path=f"{module}/{slug}",
        model=model,
        module=module,
        where=(model.module == module,),
        write=admin_or_division_admin,
        write_row=lambda v, row: may_change(v, row.division_id),
        prepare=prepare,
        list_extra=list_extra,
        **fields,
    )


def _set_named(row, module: str, name: str, form) -> None:
    """What every named setting of a module stores: its module, name (with the name's
    translations) and owner."""
    row.module, row.name, row.division_id = module, name, form.division_id.data
    row.name_texts = form.name_texts.data or {}


def _check(rule, *args, whole: tuple[str, ...] = ()) -> None:
    """Apply a rule of admin_services; its refusal goes on the form (on its field, or for the
    fields in `whole` above the form)."""
    try:
        rule(*args)
    except S.Refused as exc:
        on_field = exc.field and exc.field not in whole
        raise FormRefused({exc.field: exc.message} if on_field else exc.message) from exc


# --- station groups ------------------------------------------------------------------------------


def _if_counted(column, sentence):
    """A delete's consequence: `sentence` of how many rows refer to the row by `column` (a
    foreign key to it); nothing when none does."""

    def consequences(row) -> list[str]:
        count = counts_by(column, [row]).get(row.id, 0)
        return [sentence(count)] if count else []

    return consequences


def _save_station_group(module: str):
    def save(group: StationGroup, form, v) -> None:
        name = form.name.data.strip()
        _check(S.check_station_group, module, group.id, name)
        _set_named(group, module, name, form)

    return save


def station_groups(module: str) -> Screen:
    return module_screen(
        module,
        "station-groups",
        StationGroup,
        noun=_l("station group"),
        form=StationGroupForm,
        columns=(
            NAME,
            Column(_l("Stations"), lambda g, e: e["stations"].get(g.id, 0), "num", True),
            OWNER,
        ),
        intro=_l(
            "Station groups gather stations that belong together, such as the workshop or reconditioning."
        ),
        search_with=search_names(StationGroup),
        order_by=(func.lower(StationGroup.name), StationGroup.id),
        extra=lambda rows: {"stations": counts_by(Station.station_group_id, rows)},
        save=_save_station_group(module),
        before_delete=lambda group, v: S.ungroup_stations(group),
        delete_consequences=_if_counted(
            Station.station_group_id,
            lambda n: ngettext(
                "Its %(num)s station stays, without a group.",
                "Its %(num)s stations stay, without a group.",
                n,
            ),
        ),
        empty=_l("No station groups yet."),
    )


# --- stations ------------------------------------------------------------------------------------


def _station_extra(rows) -> dict:
    groups = db.session.scalars(
        select(StationGroup).where(StationGroup.id.in_({s.station_group_id for s in rows}))
    )
    return {
        "tasks": counts_by(ItemStationTask.station_id, rows),
        "groups": {g.id: g.shown_name for g in groups},
    }


def _offer_station(module: str):
    def offer(form, row) -> None:
        form.set_groups(S.station_groups(module))
        if row is None and request.method == "GET":
            form.target_minutes.data, form.ordering.data = 60, len(S.stations(module))

    return offer


def _save_station(module: str):
    def save(station: Station, form, v) -> None:
        name, group_id = form.name.data.strip(), form.station_group_id.data
        _check(S.check_station, module, station.id, name, group_id)
        _set_named(station, module, name, form)
        station.station_group_id = group_id
        station.target_minutes, station.ordering = form.target_minutes.data, form.ordering.data
        station.hourly_rate = form.hourly_rate.data

    return save


def _station_blocked(station: Station) -> str | None:
    tasks = S.station_in_use(station)
    return S.station_in_use_message(station, tasks) if tasks else None


def _packages_lose(station: Station) -> list[str]:
    packages = S.packages_with_station(station)
    if not packages:
        return []
    return [_("It is taken out of these packages: %(names)s.", names=", ".join(packages))]


def stations(module: str) -> Screen:
    return module_screen(
        module,
        "stations",
        Station,
        noun=_l("station"),
        form=StationForm,
        columns=(
            NAME,
            Column(
                _l("Station group"),
                lambda s, e: e["groups"].get(s.station_group_id) or _("No group"),
                "",
                True,
            ),
            Column(_l("Position"), "ordering", "num"),
            Column(
                _l("Target time"),
                lambda s: ngettext("%(num)s minute", "%(num)s minutes", s.target_minutes),
                "num",
            ),
            Column(
                _l("Hourly rate"),
                lambda s: (
                    "–" if s.hourly_rate is None else format_decimal(s.hourly_rate, "#,##0.00")
                ),
                "num",
            ),
            Column(_l("Tasks"), lambda s, e: e["tasks"].get(s.id, 0), "num", True),
            OWNER,
        ),
        intro=_l(
            "Stations are the preparation steps a vehicle goes through. A station that has tasks on vehicles cannot be deleted."
        ),
        search_with=search_names(Station),
        order_by=(Station.ordering, func.lower(Station.name), Station.id),
        extra=_station_extra,
        offer=_offer_station(module),
        save=_save_station(module),
        before_delete=lambda station, v: S.leave_packages(station),
        delete_blocked=_station_blocked,
        delete_note=lambda s, e: _("In use") if e["tasks"].get(s.id) else None,
        delete_consequences=_packages_lose,
        empty=_l("No stations yet."),
    )


# --- state buttons -------------------------------------------------------------------------------


def _save_state_button(module: str):
    def save(button: StateButton, form, v) -> None:
        _check(S.check_state_button, module, button.id, form.from_state.data, form.to_state.data)
        button.module, button.title = module, form.title.data.strip()
        button.title_texts = form.title_texts.data or {}
        button.from_state, button.to_state = form.from_state.data, form.to_state.data
        button.ordering, button.division_id = form.ordering.data, form.division_id.data

    return save


def state_buttons(module: str) -> Screen:
    return module_screen(
        module,
        "state-buttons",
        StateButton,
        noun=_l("state button"),
        form=StateButtonForm,
        columns=(
            Column(_l("Button title"), "title"),
            Column(_l("From state"), lambda b: BY_ID[b.from_state].title),
            Column(_l("To state"), lambda b: BY_ID[b.to_state].title),
            Column(_l("Position"), "ordering", "num"),
            OWNER,
        ),
        intro=_l(
            "A state button is an allowed move: vehicles in its from-state show it, and choosing it moves them to its to-state."
        ),
        search=("title",),
        order_by=(StateButton.from_state, StateButton.ordering, StateButton.id),
        label=lambda b: b.title,
        save=_save_state_button(module),
        delete_consequences=lambda b: [
            _(
                "Vehicles in %(state)s no longer get this button.",
                state=BY_ID[b.from_state].title,
            )
        ],
        empty=_l("No state buttons yet: vehicles cannot be moved between states."),
    )


# --- parking, key and delivery locations ----------------------------------------------------------

# Each kind has its own sentences, so that every language can word them with its own grammar.
LOCATIONS = {
    "locations": ("parking", _l("parking location"), _l("Parking location"), _l("No parking locations yet.")),
    "keylocations": ("key", _l("key location"), _l("Key location"), _l("No key locations yet.")),
    "delivery-locations": (
        "delivery", _l("delivery location"), _l("Delivery location"), _l("No delivery locations yet."),
    ),
}  # fmt: skip


def _may_change_locations(slug: str):
    def write(v) -> bool:
        if admin_or_division_admin(v):
            return True
        return slug == "delivery-locations" and v.has("ROLE_TENANT_DELIVERY_LOCATION_ADMIN")

    return write


def _save_location(module: str, kind: str):
    def save(location: Location, form, v) -> None:
        name = form.name.data.strip()
        _check(S.check_location, module, kind, location.id, name, form.division_id.data)
        location.kind = kind
        _set_named(location, module, name, form)

    return save


def _division_names(rows, v) -> dict:
    return {d.id: d.name for d in v.visible_divisions}


def locations(module: str, slug: str) -> Screen:
    kind, noun, column, empty = LOCATIONS[slug]
    return Screen(
        path=f"{module}/{slug}",
        noun=noun,
        module=module,
        model=Location,
        form=LocationForm,
        columns=(
            Column(column, lambda loc: loc.shown_name),
            Column(_l("Division"), lambda loc, e: e.get(loc.division_id), "", True),
        ),
        intro=_l("Each division has its own locations. You see the divisions you have access to."),
        search_with=search_names(Location),
        where=(Location.module == module, Location.kind == kind),
        scope=lambda stmt, v: stmt.where(Location.division_id.in_(own_division_ids(v))),
        order_by=(Location.division_id, func.lower(Location.name), Location.id),
        write=_may_change_locations(slug),
        prepare=lambda form, v, row: form.set_divisions(v.visible_divisions),
        save=_save_location(module, kind),
        delete_blocked=in_use_text,  # a location vehicles are at stays
        list_extra=_division_names,
        empty=empty,
    )


# --- station packages ----------------------------------------------------------------------------


def _package_extra(rows) -> dict:
    steps = db.session.execute(
        select(StationPackageStep.package_id, Station.name, Station.name_texts)
        .join(Station, Station.id == StationPackageStep.station_id)
        .where(StationPackageStep.package_id.in_([p.id for p in rows]))
        .order_by(StationPackageStep.package_id, StationPackageStep.ordering)
    )
    names: dict[int, list[str]] = {}
    for package_id, name, texts in steps:
        names.setdefault(package_id, []).append(for_reader(texts, name))
    return {"steps": names, "vehicles": counts_by(PreparationItem.package_id, rows)}


def _steps(package: StationPackage, extra: dict):
    items = Markup("").join(
        Markup("<li>{}</li>").format(n) for n in extra["steps"].get(package.id, [])
    )
    return Markup('<ol class="admin-steps">{}</ol>').format(items)


def _load_package(form, package: StationPackage) -> None:
    form.name.data, form.division_id.data = package.name, package.division_id
    form.name_texts.data = dict(package.name_texts or {})
    ids = [step.station_id for step in package.steps]
    while len(form.steps.entries) < len(ids):
        form.steps.append_entry()
    for entry, station_id in zip(form.steps.entries, ids, strict=False):
        entry.data = station_id


def _save_package(module: str):
    def save(package: StationPackage, form, v) -> None:
        name, station_ids = form.name.data.strip(), form.station_ids
        _check(S.check_package, module, package.id, name, station_ids, whole=("steps",))
        _set_named(package, module, name, form)
        S.set_steps(package, station_ids)

    return save


def _package_snapshot(package: StationPackage) -> dict:
    return {
        "name": package.name,
        "division_id": package.division_id,
        "steps": [step.station.name for step in package.steps if step.station is not None],
    }


def station_packages(module: str) -> Screen:
    return module_screen(
        module,
        "station-packages",
        StationPackage,
        noun=_l("station package"),
        form=StationPackageForm,
        columns=(
            NAME,
            Column(_l("Stations in order"), _steps, "", True),
            Column(_l("Vehicles"), lambda p, e: e["vehicles"].get(p.id, 0), "num", True),
            OWNER,
        ),
        intro=_l(
            "A station package is the route of stations a vehicle takes, in order. A vehicle given a package gets one task per station."
        ),
        search_with=search_names(StationPackage),
        order_by=(func.lower(StationPackage.name), StationPackage.id),
        extra=_package_extra,
        offer=lambda form, row: form.set_stations(S.stations(module)),
        load=_load_package,
        save=_save_package(module),
        snapshot=_package_snapshot,
        before_delete=lambda package, v: S.unset_package(package),
        delete_consequences=_if_counted(
            PreparationItem.package_id,
            lambda n: ngettext(
                "%(num)s vehicle has this package; its station tasks stay as they are.",
                "%(num)s vehicles have this package; their station tasks stay as they are.",
                n,
            ),
        ),
        form_template="admin/package_form.html",
        empty=_l("No station packages yet."),
    )


PREPARATION_SCREENS = (
    *(
        screen(m)
        for screen in (state_buttons, station_groups, stations, station_packages)
        for m in MODULES
    ),
    *(locations(m, slug) for slug in LOCATIONS for m in MODULES),
)


# --- states (fixed: a page, not a list of records) ------------------------------------------------


def states(module: str):
    """The nine fixed states with their vehicles and the state buttons leaving each."""
    v = guard(f"{module}/states", module=module)
    buttons = f"/admin/{module}/state-buttons"
    return render_template(
        "admin/states.html",
        screen_title=page_title(f"{module}/states"),
        module=module,
        module_name=MODULE_NAMES[module],
        states_by_id=BY_ID,
        rows=S.state_overview(module, v.selected_division_ids),
        divisions=v.selected_division_label,
        buttons_url=buttons if SCREENS_BY_PATH[f"{module}/state-buttons"].may_read(v) else None,
    )


SCREENS_BY_PATH = {screen.path: screen for screen in PREPARATION_SCREENS}


def register_routes(bp) -> None:
    for module in MODULES:
        bp.add_url_rule(
            f"/admin/{module}/states", f"{module}_states", lambda module=module: states(module)
        )
