"""The admin area's catch-all: group pages (an admin menu entry with children lists its screens)
and any admin screen that has no route of its own yet, which answers a page in the shell that
says so. Feature blueprints register before this one, so a built screen always wins."""

from flask import Blueprint, abort, render_template
from flask_babel import lazy_gettext as _l

from app.auth.viewer import viewer
from app.shell.menu import ADMIN_MENU, can_administer

bp = Blueprint("planned", __name__)


def _menu_trail(entries, path: str) -> list:
    for entry in entries:
        if entry.path.split("?", 1)[0] == path:
            return [entry]
        if deeper := _menu_trail(entry.children, path):
            return [entry, *deeper]
    return []


@bp.get("/admin/<path:page>")
def admin(page: str):
    """An admin group, or a screen not built yet, behind the admin menu's rules."""
    v = viewer()
    trail = _menu_trail(ADMIN_MENU, f"/admin/{page}")
    if not trail:
        abort(404)
    if not can_administer(v) or not all(entry.rule(v) for entry in trail):
        abort(403)
    if trail[-1].children:
        return render_template("shell/admin_index.html", group=trail[-1])
    return render_template(
        "shell/planned.html",
        title=trail[-1].title,
        description=_l("This administration screen."),
        feature=_l("Administration"),
    )
