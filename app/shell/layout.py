"""The shell around every signed-in page: menus, counts, breadcrumb, selectors, banners."""

import re
from collections.abc import Callable
from dataclasses import dataclass

from flask import Flask, current_app, g, get_template_attribute, request
from flask_login import current_user
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup
from werkzeug.local import LocalProxy

from app.auth.viewer import Viewer, viewer
from app.core import roles as R
from app.core.cache import LRUCache
from app.core.notifications import unread_count
from app.shell.menu import Node, main_menu, mark_active, user_menu
from app.shell.menu_island import island_props_json


def _once(v: Viewer, key: str, build):
    """Build something from the viewer's snapshot once; later pages of the snapshot reuse it."""
    if key not in v.snapshot.derived:
        v.snapshot.derived[key] = build(v)
    return v.snapshot.derived[key]


def resolved_menu(v: Viewer) -> list[Node]:
    """The viewer's main menu without counts."""
    return _once(v, "main_menu", lambda v: main_menu(v, None))


def resolved_user_menu(v: Viewer) -> list[Node]:
    """The viewer's user menu."""
    return _once(v, "user_menu", user_menu)


def with_counts(nodes: list[Node], counts) -> list[Node]:
    """A fresh copy of a menu tree for one request, with the vehicle counts filled in."""
    return [
        Node(
            n.entry,
            n.title,
            n.href,
            n.level,
            with_counts(n.children, counts),
            counts.get(n.entry.count[0], {}).get(n.entry.count[1], 0) if n.entry.count else None,
        )
        for n in nodes
    ]


COUNTS = LRUCache(4096)

# The counts the menu's entries show (Entry.count): `count(viewer)` is {module: {id: n}} for the
# selected divisions, read when `applies(viewer)`. Features add theirs with `@menu_counts` (the
# vehicle counts: app.preparation.menu).
COUNTERS: list[tuple[Callable, Callable]] = []


def menu_counts(applies: Callable):
    """Register `count(viewer)` as counts for the menu, read for viewers `applies` accepts."""

    def register(count: Callable) -> Callable:
        COUNTERS.append((applies, count))
        return count

    return register


def shell_counts(v: Viewer) -> dict[str, dict[int, int]]:
    """The menu's counts for the selected divisions, cached per instance, counts version and
    division selection (Instance.counts_version changes with every count)."""
    if "shell_counts" in g:
        return g.shell_counts
    counts: dict = {}
    if v.instance is not None and (counters := [c for applies, c in COUNTERS if applies(v)]):
        key = (v.instance.id, v.instance.counts_version, tuple(v.selected_division_ids))
        g.shell_counts_key = key
        counts = COUNTS.get(key)
        if counts is None:
            counts = {}
            for counter in counters:
                counts.update(counter(v))
            COUNTS.put(key, counts)
    g.shell_counts = counts
    return counts


_MARK = re.compile("\x1e([acegt]):([^\x1e]*)\x1e")
_BETWEEN_TAGS = re.compile(r">\s+<")
_CSRF_MARK = "\x1et:\x1e"  # noqa: S105 - where the token goes


def nav_html(
    v: Viewer, menu: list[Node], counts_key, trail: list[Node], admin_mode: bool
) -> Markup:
    """The menu's HTML: rendered once per snapshot and counts, then marked for this page."""

    def render() -> str:
        macro = get_template_attribute("macros/nav.html", "nav_list")
        # No white space between tags: the menu island hydrates this markup as React renders it.
        return _BETWEEN_TAGS.sub("><", str(macro(menu)).strip())

    html = v.snapshot.latest("nav", counts_key, admin_mode, render)
    active = tuple(n.key for n in trail)

    def fill(match: re.Match) -> str:
        kind, key = match.group(1), match.group(2)
        if kind == "a":
            return " active" if key in active else ""
        if kind == "c":
            return ' aria-current="page"' if active and key == active[-1] else ""
        if kind == "e":
            return "true" if key in active else "false"
        if kind == "g":
            return "" if key in active else ' class="nav-collapsed-group"'
        return match.group(0)  # the CSRF token: per session, filled below

    # Marked once per trail (a path in the menu tree: a bounded number of them).
    marked = v.snapshot.latest(
        "nav-page", counts_key, (admin_mode, active), lambda: _MARK.sub(fill, html)
    )
    return Markup(marked.replace(_CSRF_MARK, generate_csrf()))  # noqa: S704 - our template's


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
    nav: Markup
    menu_props: Markup | None = None  # the menu island's props as JSON (app/shell/menu_island.py)

    @property
    def unread(self) -> int:
        """The viewer's unread notifications: cached per user (never in the menu's caches,
        which viewers share) and the instance's notices version."""
        if "unread_notifications" not in g:
            g.unread_notifications = unread_count(self.viewer.user.id, self.viewer.instance)
        return g.unread_notifications

    @property
    def title(self) -> str | None:
        return self.trail[-1].title if self.trail else None


def counted_menu(v: Viewer) -> list[Node]:
    """The viewer's main menu with the current counts: built once per snapshot and counts
    (the nodes are not changed afterwards), as the menu's HTML is."""
    counts = shell_counts(v)
    return v.snapshot.latest(
        "counted", g.get("shell_counts_key"), None, lambda: with_counts(resolved_menu(v), counts)
    )


def build_shell() -> Shell | None:
    """Resolve the shell for the current request (None for anonymous pages)."""
    v = viewer()
    if v is None:
        return None
    menu = counted_menu(v)
    admin_mode = request.path == "/admin" or request.path.startswith("/admin/")
    if admin_mode:
        admin = next((n for n in menu if n.entry.menu_root), None)
        menu = admin.children if admin else []
    full_path = request.full_path.rstrip("?")
    trail = mark_active(menu, request.path, full_path)
    counts_key = g.get("shell_counts_key")
    chat_url = current_app.config.get("CHAT_WIDGET_URL")
    shell = Shell(
        viewer=v,
        menu=menu,
        admin_mode=admin_mode,
        trail=trail,
        user_menu=resolved_user_menu(v),
        show_chat=bool(chat_url) and not any(v.has(r) for r in R.NO_CHAT_ROLES),
        chat_url=chat_url,
        show_top_selector=v.has(R.ROLE_MANAGER_ADMIN)
        or v.has(R.IS_IMPERSONATOR)  # the act-as selector (issue 13)
        or v.impersonator is not None,
        nav=nav_html(v, menu, counts_key, trail, admin_mode),
    )
    shell.menu_props = island_props_json(shell, generate_csrf())
    return shell


def current_shell() -> Shell | None:
    """The current request's shell, built on first use."""
    if not current_user.is_authenticated:
        return None
    if "shell" not in g:
        g.shell = build_shell()
    return g.shell


def init_app(app: Flask) -> None:
    # Built when a template first reads it, not for every template rendered in a signed-in
    # request: a mail rendered in its recipient's language (force_locale) has no menus, and
    # the shell it built would be the page's shell in the mail's language (issue 29).
    lazy_shell = LocalProxy(current_shell)

    @app.context_processor
    def _shell():
        return {"shell": lazy_shell}
