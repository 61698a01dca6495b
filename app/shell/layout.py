"""The shell around every signed-in page: menus, counts, breadcrumb, selectors, banners."""

from dataclasses import dataclass

from flask import Flask, current_app, g, request
from flask_login import current_user

from app.core import roles as R
from app.preparation.services import state_counts
from app.shell.menu import Node, main_menu, mark_active, user_menu
from app.shell.viewer import Viewer, viewer


def shell_counts(v: Viewer) -> dict[str, dict[int, int]]:
    """Vehicle counts per module and state for the selected divisions (one grouped query)."""
    if "shell_counts" not in g:
        vehicle_modules = {"begcare", "newcare"} & set(v.modules)
        g.shell_counts = state_counts(v.selected_division_ids) if vehicle_modules else {}
    return g.shell_counts


@dataclass
class Shell:
    viewer: Viewer
    menu: list[Node]
    admin_mode: bool
    trail: list[Node]
    user_menu: list[Node]
    show_chat: bool
    chat_url: str | None
    show_top_selector: bool

    @property
    def title(self) -> str | None:
        return self.trail[-1].title if self.trail else None


def build_shell() -> Shell | None:
    """Resolve the shell for the current request (None for anonymous pages)."""
    v = viewer()
    if v is None:
        return None
    menu = main_menu(v, shell_counts(v))
    admin_mode = request.path == "/admin" or request.path.startswith("/admin/")
    if admin_mode:
        admin = next((n for n in menu if n.entry.menu_root), None)
        menu = admin.children if admin else []
    full_path = request.full_path.rstrip("?")
    trail = mark_active(menu, request.path, full_path)
    chat_url = current_app.config.get("CHAT_WIDGET_URL")
    return Shell(
        viewer=v,
        menu=menu,
        admin_mode=admin_mode,
        trail=trail,
        user_menu=user_menu(v),
        show_chat=bool(chat_url) and not any(v.has(r) for r in R.NO_CHAT_ROLES),
        chat_url=chat_url,
        show_top_selector=v.has(R.ROLE_MANAGER_ADMIN) or v.impersonator is not None,
    )


def init_app(app: Flask) -> None:
    @app.context_processor
    def _shell():
        if not current_user.is_authenticated:
            return {"shell": None}
        if "shell" not in g:
            g.shell = build_shell()
        return {"shell": g.shell}
