"""Routes whose screens later features build. Each answers a real page in the shell that says
what will be there, so that every menu entry and link works from the start."""

from flask import Blueprint, abort, render_template
from flask_babel import lazy_gettext as _l

from app.core.pages import public_page
from app.shell.menu import ADMIN_MENU, MAIN_MENU, can_administer
from app.shell.viewer import viewer

bp = Blueprint("planned", __name__)

AREAS = {
    "dashboard": _l(
        "Your own dashboard of widgets: key numbers, charts, lists and goals for the divisions you choose."
    ),
    "events": _l("Your upcoming events."),
    "quick_test": _l("Quick tests: vehicle test protocols with images, to print or share by link."),
    "admin": _l("This administration screen."),
    "pdf": _l("A printable PDF view."),
    "quick_test_view": _l("A shared quick test protocol."),
    "interactions": _l("Interactions."),
}
FEATURES = {
    "dashboard": _l("My dashboard"),
    "preparation": _l("Vehicle preparation"),
    "quick_test": _l("Quick test"),
    "admin": _l("Administration"),
    "events": _l("Events"),
}


def _page(title, area: str, feature: str, public: bool = False):
    return render_template(
        "shell/planned.html" if not public else "shell/planned_public.html",
        title=title,
        description=AREAS[area],
        feature=FEATURES[feature],
    )


# --- logged-in routes ---------------------------------------------------------------------------


@bp.get("/my-dashboard")
def my_dashboard():
    if viewer().is_global:
        abort(404)
    return _page(_l("My dashboard"), "dashboard", "dashboard")


@bp.get("/<any(begcare, newcare):module>/dashboard")
def module_dashboard(module: str):
    return _page(_l("Dashboard"), "dashboard", "preparation")


@bp.get("/my-events")
def my_events():
    if not viewer().configuration("enable_my_events"):
        abort(404)
    return _page(_l("My events"), "events", "events")


def _menu_page(path: str, area: str, feature: str):
    """A page that stands in for a main-menu entry: its title and its rule come from the menu,
    so a user reaching it without the entry's right gets 403, not the page."""
    trail = _menu_trail(MAIN_MENU, path)
    if not trail:
        abort(404)
    if not all(entry.rule(viewer()) for entry in trail):
        abort(403)
    return _page(trail[-1].title, area, feature)


def _menu_trail(entries, path: str) -> list:
    for entry in entries:
        if entry.path.split("?", 1)[0] == path:
            return [entry]
        if deeper := _menu_trail(entry.children, path):
            return [entry, *deeper]
    return []


@bp.get("/quick-test")
def quick_test():
    return _menu_page("/quick-test", "quick_test", "quick_test")


@bp.get("/admin/<path:page>")
def admin(page: str):
    """An admin screen or group not built yet, behind the admin menu's rules."""
    v = viewer()
    trail = _menu_trail(ADMIN_MENU, f"/admin/{page}")
    if not trail:
        abort(404)
    if not can_administer(v) or not all(entry.rule(v) for entry in trail):
        abort(403)
    if trail[-1].children:
        return render_template("shell/admin_index.html", group=trail[-1])
    return _page(trail[-1].title, "admin", "admin")


# --- public routes ----------------------------------------------------------------------------


@bp.get("/pdf-preview/quick-test/<int:test_id>")
@public_page
def pdf_quick_test(test_id: int):
    return _page(_l("Quick test"), "pdf", "quick_test", public=True)


@bp.get("/quick-test/view/")
@bp.get("/quick-test/view/<uuid>")
@public_page
def quick_test_view(uuid: str | None = None):
    return _page(_l("Quick test"), "quick_test_view", "quick_test", public=True)


@bp.get("/interactions")
@public_page
def interactions():
    return _page(_l("Interactions"), "interactions", "preparation", public=True)
