"""The landing pages a user may choose (My settings) and the landing rule (spec 01): every
menu destination the user has, custom lists included."""

import re
from dataclasses import dataclass

from flask_babel import gettext as _

from app.auth.session import safe_next
from app.auth.viewer import KEBAB
from app.core.islands import JSONFragment
from app.shell.layout import resolved_menu, resolved_user_menu

# Main-menu entries that are no place to land on.
_NOT_LANDING = ("logout", "user", "custom-list.manage")
_CUSTOM_LIST = re.compile(r"/custom-list/(\d+)(/.*)?")


@dataclass(frozen=True)
class Choice:
    value: str
    label: str


def landing_choices(v) -> list[Choice]:
    """Every menu destination the user has (custom lists included), as landing pages: from
    the shell's menus, once per viewer snapshot (user, instance, locale, menu version)."""
    if "landing_choices" not in v.snapshot.derived:
        v.snapshot.derived["landing_choices"] = _landing_choices(v)
    return v.snapshot.derived["landing_choices"]


def landing_choices_json(v) -> JSONFragment:
    """The landing choices as My settings' island props, encoded once per viewer snapshot."""
    if "landing_choices_json" not in v.snapshot.derived:
        v.snapshot.derived["landing_choices_json"] = JSONFragment(
            [{"value": c.value, "label": c.label} for c in landing_choices(v)]
        )
    return v.snapshot.derived["landing_choices_json"]


def _landing_choices(v) -> list[Choice]:
    choices = [Choice("", _("First module (default)"))]
    seen = {""}

    def add(path: str, label: str) -> None:
        if path not in seen:
            seen.add(path)
            choices.append(Choice(path, label))

    def walk(nodes, trail: tuple[str, ...]) -> None:
        for node in nodes:
            if node.entry.menu_root or node.key.split(".", 1)[0] in _NOT_LANDING:
                continue
            if node.key in _NOT_LANDING or node.key.startswith("custom-list."):
                continue
            add(node.href, " › ".join((*trail, node.title)))
            walk(node.children, (*trail, node.title))

    walk(resolved_menu(v), ())
    for node in resolved_user_menu(v):
        if node.key.startswith("custom-list.") and node.key != "custom-list.manage":
            add(node.href, _("Custom list: %(name)s", name=node.title))
        elif node.key in ("profile", "my-events"):
            add(node.href, node.title)
    return choices


def landing_target(v) -> str | None:
    """Spec 01 landing rule: the user's landing page while they may still open it, else the
    first available module (None: stay on the start page)."""
    first = f"/{KEBAB[v.modules[0]]}" if v.modules else None
    # Through the same check as `next`: a stored value that is not a path of this site (browsers
    # drop tabs and newlines, so "/\t/evil.example" would be "//evil.example") is ignored.
    landing = safe_next((v.user.options or {}).get("landingPage"))
    if not landing:
        return first
    match = _CUSTOM_LIST.fullmatch(landing)
    if match and int(match.group(1)) not in {c.id for c in v.custom_lists}:
        return first
    if landing not in {c.value for c in landing_choices(v)}:
        return first  # a page the user can no longer open (a role or module taken away)
    return landing
