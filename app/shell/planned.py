"""Routes whose screens later features build. Each answers a real page in the shell that says
what will be there, so that every menu entry and link works from the start."""

from flask import Blueprint, abort, render_template
from flask_babel import lazy_gettext as _l

from app.core.pages import public_page
from app.shell.menu import ADMIN_MENU, MAIN_MENU, can_administer
from app.shell.viewer import viewer

bp = Blueprint("planned", __name__)

AREAS = {
    "purchase": _l(
        "Purchase analyses: valuations, calculations and model analyses of vehicles you may buy."
    ),
    "admin": _l("This administration screen."),
    "pdf": _l("A printable PDF view."),
}
FEATURES = {
    "purchase": _l("Purchase analysis"),
    "admin": _l("Administration"),
}


def _page(title, area: str, feature: str, public: bool = False):
    return render_template(
        "shell/planned.html" if not public else "shell/planned_public.html",
        title=title,
        description=AREAS[area],
        feature=FEATURES[feature],
    )


# --- logged-in routes ---------------------------------------------------------------------------


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


@bp.get("/purchase-analysis/<any(list, 'approval-requests', statistics, create):page>")
def purchase_analysis(page: str):
    return _menu_page(f"/purchase-analysis/{page}", "purchase", "purchase")


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


@bp.get("/pdf-preview/purchase-analysis/<int:analysis_id>")
@public_page
def pdf_purchase_analysis(analysis_id: int):
    return _page(_l("Purchase analysis"), "pdf", "purchase", public=True)
