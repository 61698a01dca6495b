"""Who may read and change global admin screens (docs/decisions.md, "System messages")."""

from flask import abort, request

from app.core import roles as R


def global_entry(path: str):
    from app.shell.menu import ADMIN_MENU

    group = next(g for g in ADMIN_MENU if g.path == "/admin/global")
    return group, next(e for e in group.children if e.path == path)


def can_write(v, path: str) -> bool:
    """Changing needs the screen's read role and ROLE_ADMIN."""
    _, entry = global_entry(path)
    return entry.rule(v) and v.has(R.ROLE_ADMIN)


def guard(path: str, write: bool = False):
    """The viewer when the admin menu shows them `path` (and with `write` or a POST, when they
    may change it); otherwise 403."""
    from app.auth.viewer import viewer
    from app.shell.menu import can_administer

    v = viewer()
    group, entry = global_entry(path)
    if not (can_administer(v) and group.rule(v) and entry.rule(v)):
        abort(403)
    if (write or request.method == "POST") and not can_write(v, path):
        abort(403)
    return v


def get_row(model, object_id: int):
    """The row with this id, or None (also for an id beyond an integer column)."""
    from app.extensions import db

    return db.session.get(model, object_id) if 0 < object_id < 2**31 else None
