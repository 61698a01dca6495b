"""The menu tree island's data (issue 17): the same menu nodes the server renders as HTML, as
JSON props for islands/shell/menu-tree, and the call that refreshes the counts while a page is open.

The server keeps drawing the menus (first paint and no-script); the island hydrates that markup,
so every text it shows comes from here, already translated, exactly as the macro writes it.
"""

from flask import current_app, g, url_for
from flask_babel import gettext as _
from flask_babel import ngettext
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup
from pydantic import Field

from app.auth.viewer import viewer
from app.core.api import Schema, api_call
from app.shell.api import bp
from app.shell.menu import Node


def count_label(count: int) -> str:
    """The count badge's accessible name, as templates/macros/nav.html writes it."""
    return ngettext("%(num)s vehicle", "%(num)s vehicles", count)


def node_data(node: Node) -> dict:
    """One menu entry as the island's props: what the macro prints, nothing more."""
    data: dict = {"key": node.key, "title": node.title, "href": node.href}
    if node.entry.mobile_only:
        data["mobileOnly"] = True
    if node.entry.separator:
        data["separator"] = True
    if node.count is not None:
        data["count"] = node.count
        data["countLabel"] = count_label(node.count)
    if node.children:
        data["toggleLabel"] = _("Show or hide %(title)s", title=node.title)
        data["children"] = [node_data(child) for child in node.children]
    return data


def counts_by_key(nodes: list[Node]) -> dict[str, dict]:
    """Every count of a menu tree by entry key, with its accessible name."""
    found: dict[str, dict] = {}
    for node in nodes:
        if node.count is not None:
            found[node.key] = {"count": node.count, "label": count_label(node.count)}
        found.update(counts_by_key(node.children))
    return found


def island_props(shell, csrf_token: str, items=None) -> dict:
    """Props of the menu island: the main (or admin) menu and the user menu of this page."""
    active = [node.key for node in shell.trail]
    if items is None:
        items = [node_data(node) for node in shell.menu]
    return {
        "main": {
            "label": _("Main menu"),
            "items": items,
            "active": active,
            "current": active[-1] if active else None,
            "admin": {
                "back": _("Back"),
                "backHref": url_for("shell.root"),
                "heading": _("Administration"),
                "headingHref": url_for("shell.admin_home"),
            }
            if shell.admin_mode
            else None,
            "logoutAction": url_for("auth.logout"),
            "csrfToken": csrf_token,
            "countsUrl": url_for("shell_api.menu_counts"),
        },
        "user": {
            "label": _("User menu"),
            "items": [{"key": n.key, "title": n.title, "href": n.href} for n in shell.user_menu],
            "switchLabel": _("Switch company or user")
            if shell.show_top_selector and not shell.viewer.impersonator
            else None,
            "logoutLabel": _("Log out"),
            "logoutAction": url_for("auth.logout"),
            "csrfToken": csrf_token,
        },
    }


# Stands for the menu items in the props until their JSON, encoded once, is put in its place.
_ITEMS = "\x00menu-items\x00"


def _tojson(value) -> str:
    """Jinja's `tojson` filter as Flask configures it (sorted keys, HTML-safe)."""
    return htmlsafe_json_dumps(value, dumps=current_app.json.dumps)


def island_props_json(shell, csrf_token: str) -> Markup:
    """`island_props(...) | tojson`, with the menu items' JSON encoded once per snapshot (user,
    instance, locale), counts and menu kind, as the menu's HTML is."""
    items = shell.viewer.snapshot.latest(
        "menu-json",
        g.get("shell_counts_key"),
        shell.admin_mode,
        lambda: _tojson([node_data(node) for node in shell.menu]),
    )
    text = _tojson(island_props(shell, csrf_token, items=_ITEMS))
    # The first occurrence is the items': with sorted keys only the active keys, labels, URLs
    # and the token come before "items", none of them the user's text.
    return Markup(text.replace(_tojson(_ITEMS), items, 1))  # noqa: S704 - encoded JSON


class MenuCount(Schema):
    count: int
    label: str


class MenuCounts(Schema):
    counts: dict[str, MenuCount] = Field(default_factory=dict)


@api_call(bp, "/me/menu-counts", "GET", response=MenuCounts)
def menu_counts():
    """The menu's vehicle counts now, by entry key: the counts the pages use (cached per counts
    version and division selection, so a refresh costs no query while nothing has moved)."""
    # lazy: app.shell.layout imports this module
    from app.shell.layout import resolved_menu, shell_counts, with_counts

    v = viewer()
    return MenuCounts.model_validate(
        {"counts": counts_by_key(with_counts(resolved_menu(v), shell_counts(v)))}
    )
