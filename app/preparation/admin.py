"""Admin screens of the module: states, state buttons, stations, packages, groups, locations.

Who may do what is declared once, in `_access`: a screen is seen by whoever its admin menu entry
shows to (app.shell.menu: ROLE_ADMIN, the module's ROLE_TENANT_*_READ role, or division admin);
a change needs ROLE_ADMIN or division admin, and for delivery locations also
ROLE_TENANT_DELIVERY_LOCATION_ADMIN; a division admin changes only their divisions' rows, the
instance's are read-only for them (app.core.division_settings, docs/decisions.md). Views load, authorise, call a service
from admin_services and commit once; the steps every screen shares (list, form, delete) are
`_list_view`, `_row_view`, `_form_screen` and `_delete_screen`.
"""

from flask import abort, flash, redirect, render_template, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext

from app.auth.viewer import Viewer, viewer
from app.core import roles as R
from app.core.division_settings import division_label, may_change, owner_choices
from app.core.modules import MODULE_NAMES
from app.extensions import db
from app.preparation import admin_services as S
from app.preparation import bp, locations
from app.preparation.admin_forms import (
    ConfirmDeleteForm,
    LocationForm,
    StateButtonForm,
    StationForm,
    StationGroupForm,
    StationPackageForm,
)
from app.preparation.states import BY_ID
from app.shell.menu import ADMIN_MENU

PREFIX = "/admin/<any(begcare, newcare):module>"
FORM_METHODS = ["GET", "POST"]

# The three kinds of location share one set of screens; each has its own sentences, so that
# every language can word them with its own grammar.
LOCATION_SCREENS = {
    "locations": {
        "kind": "parking",
        "column": _l("Parking location"),
        "add": _l("Add parking location"),
        "new": _l("Add parking location"),
        "edit": _l("Edit parking location %(name)s"),
        "delete": _l("Delete parking location"),
        "saved": _l("The parking location is saved."),
        "deleted": _l("The parking location is deleted."),
        "empty": _l("No parking locations yet."),
    },
    "keylocations": {
        "kind": "key",
        "column": _l("Key location"),
        "add": _l("Add key location"),
        "new": _l("Add key location"),
        "edit": _l("Edit key location %(name)s"),
        "delete": _l("Delete key location"),
        "saved": _l("The key location is saved."),
        "deleted": _l("The key location is deleted."),
        "empty": _l("No key locations yet."),
    },
    "delivery-locations": {
        "kind": "delivery",
        "column": _l("Delivery location"),
        "add": _l("Add delivery location"),
        "new": _l("Add delivery location"),
        "edit": _l("Edit delivery location %(name)s"),
        "delete": _l("Delete delivery location"),
        "saved": _l("The delivery location is saved."),
        "deleted": _l("The delivery location is deleted."),
        "empty": _l("No delivery locations yet."),
    },
}


# --- access -------------------------------------------------------------------------------------


def can_change(v: Viewer, slug: str) -> bool:
    """Whether the viewer may change the settings of a screen (reading is the menu's rule)."""
    if v.has(R.ROLE_ADMIN) or v.is_division_admin:
        return True
    return slug == "delivery-locations" and v.has("ROLE_TENANT_DELIVERY_LOCATION_ADMIN")


def _menu_entry(module: str, slug: str):
    group = next(g for g in ADMIN_MENU if g.path == f"/admin/{module}")
    return group, next(e for e in group.children if e.path == f"/admin/{module}/{slug}")


def _access(module: str, slug: str, write: bool = False) -> Viewer:
    """The viewer, if they may see (and with `write`, change) this screen; else 404 or 403."""
    v = viewer()
    if module not in v.modules:
        abort(404)
    group, entry = _menu_entry(module, slug)
    if not (group.rule(v) and entry.rule(v)):
        abort(403)
    if (write or request.method == "POST") and not can_change(v, slug):
        abort(403)
    return v


def _found(obj):
    if obj is None:
        abort(404)
    return obj


# --- rendering helpers --------------------------------------------------------------------------


def _list_url(module: str, slug: str) -> str:
    return f"/admin/{module}/{slug}"


def _page(template: str, module: str, slug: str, v: Viewer, **context):
    _, entry = _menu_entry(module, slug)
    divisions = S.divisions()
    return render_template(
        template,
        module=module,
        module_name=MODULE_NAMES[module],
        screen_title=entry.title,
        list_url=_list_url(module, slug),
        can_change=can_change(v, slug),
        can_change_row=lambda row: may_change(v, row.division_id),
        division_name=lambda row: division_label(divisions, row.division_id),
        **context,
    )


def _owned_form(form_class, v: Viewer, row, **kwargs):
    """A setting's form offering the owners the viewer may give it (app.core.division_settings)."""
    form = form_class(obj=row, **kwargs)
    form.set_owners(owner_choices(v, S.divisions()))
    return form


def _refused(form, exc: S.Refused) -> str | None:
    """Show a refused change under its field; return it when it belongs to no single field."""
    field = getattr(form, exc.field, None) if exc.field else None
    if field is None or exc.field == "steps":
        return exc.message
    field.errors = [*field.errors, exc.message]
    return None


def _saved(module: str, slug: str, text: str):
    db.session.commit()
    flash(text, "success")
    return redirect(_list_url(module, slug))


def _form_screen(module: str, slug: str, v: Viewer, form, save, *, saved, heading, **context):
    """The form of a new or changed row: a valid POST runs `save()` and goes back to the list
    with `saved`; otherwise the form (again, with what the rules refused: 422)."""
    refusal = None
    if form.validate_on_submit():
        try:
            save()
            return _saved(module, slug, saved)
        except S.Refused as exc:
            refusal = _refused(form, exc)
    html = _page(
        context.pop("template", "preparation/admin/form.html"),
        module, slug, v, form=form, subpage=heading, refusal=refusal, **context,
    )  # fmt: skip
    return html, 422 if request.method == "POST" else 200


def _delete_screen(module: str, slug: str, v: Viewer, delete, *, deleted, describe):
    """The second step of a delete: a confirmed POST runs `delete()` and goes back to the list
    with `deleted`; otherwise what goes and what follows, from `describe()` (heading, name,
    consequences, blocked), and the real submit. A blocked or refused POST deletes nothing (409)."""
    page = {"consequences": (), "blocked": None, **describe()}
    if (
        request.method == "POST"
        and not page["blocked"]
        and ConfirmDeleteForm().validate_on_submit()
    ):
        try:
            delete()
            return _saved(module, slug, deleted)
        except S.Refused as exc:
            page["blocked"] = exc.message
    html = _page(
        "preparation/admin/delete.html", module, slug, v, form=ConfirmDeleteForm(),
        subpage=page["heading"], **page,
    )  # fmt: skip
    return html, 200 if request.method == "GET" else (409 if page["blocked"] else 422)


def _list_view(slug: str, template: str):
    """Route a screen's list at /admin/<module>/<slug>: the view, given the module and the
    viewer (who may see it), returns what the template shows."""

    def register(view):
        def page(module: str):
            v = _access(module, slug)
            return _page(template, module, slug, v, **view(module, v))

        bp.get(f"{PREFIX}/{slug}", endpoint=view.__name__)(page)
        return view

    return register


def _row_view(slug: str, load, *, delete: bool = False):
    """Route a screen's form (new and edit) or, with `delete`, its delete step: the view gets the
    module, the viewer (who may change it) and the row `load(module, id)` finds (404 when there
    is none; None for a new one)."""

    def register(view):
        def page(module: str, item_id: int | None = None):
            v = _access(module, slug, write=True)
            row = _found(load(module, item_id)) if item_id or delete else None
            if row is not None and not may_change(v, row.division_id):
                abort(403)  # the instance's (or another division's) row: read-only here
            return view(module, v, row)

        for path in ["<int:item_id>/delete"] if delete else ["<int:item_id>/edit", "new"]:
            bp.route(f"{PREFIX}/{slug}/{path}", methods=FORM_METHODS, endpoint=view.__name__)(page)
        return view

    return register


# --- the module's entry into the admin area -------------------------------------------------------


@bp.get("/<any(begcare, newcare):module>/admin")
def module_admin(module: str):
    """The module menu's "Module administration": the module's section of the admin area."""
    v = viewer()
    if module not in v.modules:
        abort(404)
    if not (v.has(R.ROLE_ADMIN) or v.is_division_admin):
        abort(403)
    return redirect(f"/admin/{module}")


# --- states -------------------------------------------------------------------------------------


@_list_view("states", "preparation/admin/states.html")
def admin_states(module: str, v: Viewer) -> dict:
    """The nine fixed states with their vehicles and the state buttons leaving each."""
    _, buttons_entry = _menu_entry(module, "state-buttons")
    return dict(
        rows=S.state_overview(module, v.selected_division_ids),
        divisions=v.selected_division_label, states_by_id=BY_ID,
        buttons_url=_list_url(module, "state-buttons") if buttons_entry.rule(v) else None,
    )  # fmt: skip


# --- state buttons ------------------------------------------------------------------------------


@_list_view("state-buttons", "preparation/admin/state_buttons.html")
def admin_state_buttons(module: str, v: Viewer) -> dict:
    return dict(buttons=S.state_buttons(module), states=BY_ID)


@_row_view("state-buttons", S.get_state_button)
def admin_state_button_form(module: str, v: Viewer, button):
    form = _owned_form(StateButtonForm, v, button)
    return _form_screen(
        module, "state-buttons", v, form,
        lambda: S.save_state_button(
            module, button, from_state=form.from_state.data, to_state=form.to_state.data,
            title=form.title.data, ordering=form.ordering.data, division_id=form.division_id.data,
        ),
        saved=_("The state button is saved."),
        heading=_("Edit state button %(name)s", name=button.title) if button else _("Add state button"),
    )  # fmt: skip


@_row_view("state-buttons", S.get_state_button, delete=True)
def admin_state_button_delete(module: str, v: Viewer, button):
    def describe():
        route = f"{BY_ID[button.from_state].title} → {BY_ID[button.to_state].title}"
        return dict(
            heading=_("Delete state button"), name=f"{button.title} ({route})",
            consequences=[_("Vehicles in %(state)s no longer get this button.", state=BY_ID[button.from_state].title)],
        )  # fmt: skip

    return _delete_screen(
        module, "state-buttons", v, lambda: S.delete_state_button(module, button),
        deleted=_("The state button is deleted."), describe=describe,
    )  # fmt: skip


# --- station groups -----------------------------------------------------------------------------


@_list_view("station-groups", "preparation/admin/station_groups.html")
def admin_station_groups(module: str, v: Viewer) -> dict:
    return dict(groups=S.station_groups(module), station_counts=S.group_station_counts(module))


@_row_view("station-groups", S.get_station_group)
def admin_station_group_form(module: str, v: Viewer, group):
    form = _owned_form(StationGroupForm, v, group)
    return _form_screen(
        module, "station-groups", v, form,
        lambda: S.save_station_group(
            module, group, name=form.name.data, division_id=form.division_id.data
        ),
        saved=_("The station group is saved."),
        heading=_("Edit station group %(name)s", name=group.name) if group else _("Add station group"),
    )  # fmt: skip


@_row_view("station-groups", S.get_station_group, delete=True)
def admin_station_group_delete(module: str, v: Viewer, group):
    def describe():
        count = S.group_station_counts(module).get(group.id, 0)
        consequences = (
            [
                ngettext(
                    "Its %(num)s station stays, without a group.",
                    "Its %(num)s stations stay, without a group.",
                    count,
                )
            ]
            if count
            else []
        )
        return dict(heading=_("Delete station group"), name=group.name, consequences=consequences)

    return _delete_screen(
        module, "station-groups", v, lambda: S.delete_station_group(module, group),
        deleted=_("The station group is deleted."), describe=describe,
    )  # fmt: skip


# --- stations -----------------------------------------------------------------------------------


@_list_view("stations", "preparation/admin/stations.html")
def admin_stations(module: str, v: Viewer) -> dict:
    return dict(stations=S.stations(module), task_counts=S.station_task_counts(module))


@_row_view("stations", S.get_station)
def admin_station_form(module: str, v: Viewer, station):
    form = _owned_form(StationForm, v, station)
    form.set_groups(S.station_groups(module))
    if station is None and request.method == "GET":
        form.target_minutes.data, form.ordering.data = 60, len(S.stations(module))
    return _form_screen(
        module, "stations", v, form,
        lambda: S.save_station(
            module, station, name=form.name.data, group_id=form.station_group_id.data,
            target_minutes=form.target_minutes.data, ordering=form.ordering.data,
            division_id=form.division_id.data,
        ),
        saved=_("The station is saved."),
        heading=_("Edit station %(name)s", name=station.name) if station else _("Add station"),
    )  # fmt: skip


@_row_view("stations", S.get_station, delete=True)
def admin_station_delete(module: str, v: Viewer, station):
    def describe():
        tasks = S.station_in_use(station)
        packages = S.packages_with_station(station)
        consequences = (
            [_("It is taken out of these packages: %(names)s.", names=", ".join(packages))]
            if packages
            else []
        )
        return dict(
            heading=_("Delete station"), name=station.name, consequences=consequences,
            blocked=S.station_in_use_message(station, tasks) if tasks else None,
        )  # fmt: skip

    return _delete_screen(
        module, "stations", v, lambda: S.delete_station(module, station),
        deleted=_("The station is deleted."), describe=describe,
    )  # fmt: skip


# --- station packages ---------------------------------------------------------------------------


@_list_view("station-packages", "preparation/admin/station_packages.html")
def admin_station_packages(module: str, v: Viewer) -> dict:
    return dict(packages=S.packages(module), item_counts=S.package_item_counts(module))


@_row_view("station-packages", S.get_package)
def admin_station_package_form(module: str, v: Viewer, package):
    data = (
        {
            "name": package.name,
            "steps": [s.station_id for s in package.steps],
            "division_id": package.division_id,
        }
        if package
        else None
    )
    form = _owned_form(StationPackageForm, v, None, data=data)
    module_stations = S.stations(module)
    form.set_stations(module_stations)
    return _form_screen(
        module, "station-packages", v, form,
        lambda: S.save_package(
            module, package, name=form.name.data, station_ids=form.station_ids,
            division_id=form.division_id.data,
        ),
        saved=_("The station package is saved."),
        heading=_("Edit station package %(name)s", name=package.name) if package else _("Add station package"),
        template="preparation/admin/package_form.html", has_stations=bool(module_stations),
    )  # fmt: skip


@_row_view("station-packages", S.get_package, delete=True)
def admin_station_package_delete(module: str, v: Viewer, package):
    def describe():
        count = S.package_item_counts(module).get(package.id, 0)
        consequences = (
            [
                ngettext(
                    "%(num)s vehicle has this package; its station tasks stay as they are.",
                    "%(num)s vehicles have this package; their station tasks stay as they are.",
                    count,
                )
            ]
            if count
            else []
        )  # fmt: skip
        return dict(
            heading=_("Delete station package"), name=package.name, consequences=consequences
        )

    return _delete_screen(
        module, "station-packages", v, lambda: S.delete_package(module, package),
        deleted=_("The station package is deleted."), describe=describe,
    )  # fmt: skip


# --- locations, key locations, delivery locations ------------------------------------------------

LOCATION_PATH = f"{PREFIX}/<any(locations, keylocations, 'delivery-locations'):slug>"


def _division_ids(v: Viewer) -> list[int]:
    return [d.id for d in v.visible_divisions]


@bp.get(LOCATION_PATH)
def admin_locations(module: str, slug: str):
    v = _access(module, slug)
    texts = LOCATION_SCREENS[slug]
    return _page(
        "preparation/admin/locations.html", module, slug, v,
        rows=S.locations(module, texts["kind"], _division_ids(v)), texts=texts,
        has_divisions=bool(v.visible_divisions),
    )  # fmt: skip


@bp.route(f"{LOCATION_PATH}/new", methods=FORM_METHODS)
@bp.route(f"{LOCATION_PATH}/<int:item_id>/edit", methods=FORM_METHODS)
def admin_location_form(module: str, slug: str, item_id: int | None = None):
    v = _access(module, slug, write=True)
    texts = LOCATION_SCREENS[slug]
    kind = texts["kind"]
    location = _found(S.get_location(module, kind, item_id, _division_ids(v))) if item_id else None
    form = LocationForm(obj=location)
    form.set_divisions(v.visible_divisions)
    return _form_screen(
        module, slug, v, form,
        lambda: S.save_location(
            module, kind, location, name=form.name.data, division_id=form.division_id.data,
            division_ids=_division_ids(v),
        ),
        saved=str(texts["saved"]), heading=(
            texts["edit"] % {"name": location.name} if location else str(texts["new"])
        ),
    )  # fmt: skip


@bp.route(f"{LOCATION_PATH}/<int:item_id>/delete", methods=FORM_METHODS)
def admin_location_delete(module: str, slug: str, item_id: int):
    v = _access(module, slug, write=True)
    texts = LOCATION_SCREENS[slug]
    location = _found(S.get_location(module, texts["kind"], item_id, _division_ids(v)))

    def describe():
        division = next(d.name for d in v.visible_divisions if d.id == location.division_id)
        return dict(heading=str(texts["delete"]), name=f"{location.name} ({division})",
                    blocked=locations.in_use_text(location))  # fmt: skip

    return _delete_screen(
        module, slug, v, lambda: S.delete_location(module, location),
        deleted=str(texts["deleted"]), describe=describe,
    )  # fmt: skip
