"""My settings: the landing pages a user may choose, the landing rule, the password change."""

import re
import secrets
from dataclasses import dataclass

from flask_babel import gettext as _

from app.auth import services as auth_services
from app.auth.session import revoke_all_sessions, safe_next
from app.core import audit
from app.core.islands import JSONFragment

# Where a station user's day starts: the vehicles waiting at their stations (the main menu's
# "Station vehicles"), not the module's state counts.
STATION_LANDING = "/begcare/station/vehicles"

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
    from app.shell.layout import resolved_menu, resolved_user_menu

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
    from app.shell.viewer import KEBAB

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


def with_station_landing(options: dict | None) -> dict:
    """The options of a user just made a station user: their station's vehicles as landing
    page, unless they already have one."""
    options = dict(options or {})
    if not options.get("landingPage"):
        options["landingPage"] = STATION_LANDING
    return options


class PasswordRefused(ValueError):
    pass


def change_password(user, current: str, new: str) -> None:
    """Set a new password after checking the current one; every other session of the user
    ends (the caller starts a fresh one for this browser)."""
    if not auth_services.verify_password(user, current):
        raise PasswordRefused(_("The current password is not correct."))
    user.password_hash = auth_services.hash_password(new)
    user.session_nonce = secrets.token_hex(8)
    revoke_all_sessions(user.id)  # on the server too, with what ends with them
    audit.record("password_changed", user=user, by="self")
