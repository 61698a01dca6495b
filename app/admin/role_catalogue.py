"""Every role as an administrator reads it: its area, a translated name and one line on what it
allows; and the presets that grant a common set-up in one choice.

The base and platform roles are written here by hand. The roles that open admin screens
(ROLE_TENANT_*, ROLE_GLOBAL_*_READ) are named after the screens they open, found by asking the
admin menu's own rules (app/shell/menu.py) which entries a person holding only that role would
see: the names follow the menu, and a role that opens nothing shows up in the test of this file.
"""

from dataclasses import dataclass
from functools import cache

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from app.auth.models import MODULES
from app.core import roles as R
from app.core.modules import MODULE_NAMES
from app.shell.menu import ADMIN_MENU

AREAS = (
    ("general", _l("Everyday work")),
    ("vehicles", _l("Vehicles")),
    ("purchase", MODULE_NAMES["purchaseAnalysis"]),
    ("market", MODULE_NAMES["market"]),
    ("statistics", _l("Statistics")),
    ("administration", _l("Administration")),
    ("platform", _l("Platform")),
)

# code: (area, name, what it allows)
WRITTEN = {
    "ROLE_USER": (
        "general", _l("Staff member"),
        _l("Marks a member of the dealership's staff; it gives no access by itself."),
    ),
    R.ROLE_HIDE_MENU_ITEMS: (
        "general", _l("Hide the menu"),
        _l("The main menu is hidden: for a screen that shows one page only."),
    ),
    R.ROLE_CHAT_BLOCKED: (
        "general", _l("No support chat"), _l("The support chat is not offered to this person."),
    ),
    R.ROLE_STATION_USER: (
        "vehicles", _l("Station worker"),
        _l("Sees the vehicles waiting at their station and keeps their station profile."),
    ),
    R.ROLE_CCMARKET_ADMIN: (
        "market", _l("Market settings"), _l("Changes the company's settings for the market."),
    ),
    R.ROLE_STATISTICS: (
        "statistics", _l("Statistics"),
        _l("Sees the statistics of the vehicle modules and of purchase analysis."),
    ),
    R.ROLE_USER_PA_STATISTICS: (
        "statistics", _l("Purchase analysis statistics"),
        _l("Sees the statistics of purchase analysis only."),
    ),
    R.ROLE_CCMARKET_STATISTICS: (
        "statistics", _l("Market statistics"),
        _l("Sees the market statistics of the company's buying or selling."),
    ),
    R.ROLE_ADMIN: (
        "administration", _l("Administrator"),
        _l("Administers the whole company: every admin screen, user, role and division."),
    ),
    R.ROLE_MANAGER_ADMIN: (
        "administration", _l("Manager"),
        _l("Sets the goals and sees the selector of people and companies at the top."),
    ),
    R.IS_IMPERSONATOR: (
        "administration", _l("Act as another user"),
        _l("May work as another person of the company, within both people's rights; every time is logged."),
    ),
    R.ROLE_USER_DIVISION_ADMIN: (
        "administration", _l("Division administrator"),
        _l("Administers the users and module settings of their own divisions."),
    ),
    "ROLE_SUPPORT_ADMIN": (
        "platform", _l("Support staff"),
        _l("Works for the platform's support; the support chat is not offered to them."),
    ),
    "ROLE_ONBOARDING_ADMIN": (
        "platform", _l("Onboarding staff"),
        _l("Sets new customers up on the platform; the support chat is not offered to them."),
    ),
    "ROLE_SALES_ADMIN": (
        "platform", _l("Sales staff"),
        _l("Sells the platform to customers; the support chat is not offered to them."),
    ),
    "ROLE_DEVELOPER_ADMIN": (
        "platform", _l("Developer"),
        _l("Develops the platform; the support chat is not offered to them."),
    ),
}  # fmt: skip
ADD_VEHICLE = {R.add_vehicle(m): m for m in ("begcare", "newcare")}
# The admin menu's top entries: the area of the screens below them, and whether their title
# belongs in a screen's name (a module's "States" is not the other module's).
ADMIN_TOPS = {
    "admin.general": ("administration", False),
    "admin.core": ("administration", False),
    "admin.begcare": ("vehicles", True),
    "admin.newcare": ("vehicles", True),
    "admin.purchase-analysis": ("purchase", True),
    "admin.global": ("platform", False),
}


@dataclass(frozen=True)
class RoleInfo:
    code: str
    area: str
    name: str
    description: str


class _Probe:
    """A person who holds exactly one role (and may use every module), for the menu's rules."""

    is_division_admin = False

    def __init__(self, role: str) -> None:
        self.role = role
        self.modules = set(MODULES)
        self.roles = {role}

    def has(self, role: str) -> bool:
        return role == self.role

    def has_prefix(self, prefix: str) -> bool:
        return self.role.startswith(prefix)


@cache
def _screens_of(role: str) -> tuple[tuple[str, tuple[object, ...]], ...]:
    """The admin entries a holder of only `role` sees: (area, titles of the trail) each."""
    probe, found = _Probe(role), []
    for top in ADMIN_MENU:
        area, keep_top = ADMIN_TOPS.get(top.key, ("administration", False))
        if not top.rule(probe):
            continue
        for entry in top.children:
            if entry.rule(probe):
                found.append((area, (top.title, entry.title) if keep_top else (entry.title,)))
    return tuple(found)


def _screen_names(screens) -> str:
    """ "Used vehicles › States, Stations" or "Countries": the screens, their module once."""
    parts: dict[str, list[str]] = {}
    for _area, trail in screens:
        prefix = str(trail[0]) if len(trail) > 1 else ""
        parts.setdefault(prefix, []).append(str(trail[-1]))
    return "; ".join(
        f"{prefix} › {', '.join(titles)}" if prefix else ", ".join(titles)
        for prefix, titles in parts.items()
    )


def describe(code: str) -> RoleInfo | None:
    """The role as an administrator reads it, in the current language (None: unknown)."""
    if code in WRITTEN:
        area, name, description = WRITTEN[code]
        return RoleInfo(code, area, str(name), str(description))
    if code in ADD_VEHICLE:
        module = str(MODULE_NAMES[ADD_VEHICLE[code]])
        return RoleInfo(
            code,
            "vehicles",
            _("Add vehicles: %(module)s", module=module),
            _("May add vehicles to %(module)s by hand.", module=module),
        )
    screens = _screens_of(code)
    if not screens:
        return None
    names, area = _screen_names(screens), screens[0][0]
    if not code.endswith("_READ"):  # ROLE_TENANT_TEMPLATE_ENGINE_ADMIN and the like
        description = _("Reads and changes %(screens)s in the administration.", screens=names)
    elif area == "platform":
        description = _(
            "Reads %(screens)s of every company; changing needs the administrator role too.",
            screens=names,
        )
    else:
        description = _(
            "Reads %(screens)s in the administration; changing needs the administrator role.",
            screens=names,
        )
    return RoleInfo(code, area, _("Admin screen: %(screens)s", screens=names), description)


def name_of(code: str) -> str:
    info = describe(code)
    return info.name if info else code


def by_area(codes) -> list[tuple[str, str, list[RoleInfo]]]:
    """The roles grouped by area in the areas' order: (area key, area title, roles); unknown
    roles (none should be) last, under their code."""
    infos = [describe(c) or RoleInfo(c, "", c, "") for c in codes]
    groups = []
    for key, title in (*AREAS, ("", _l("Other"))):
        inside = [i for i in infos if i.area == key]
        if inside:
            groups.append((key, str(title), inside))
    return groups


# --- presets ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Preset:
    key: str
    title: object
    roles: tuple[str, ...]
    modules: tuple[str, ...]
    all_divisions: bool = False

    def within(self, roles, modules, all_divisions: bool) -> bool:
        """Whether a writer offering these may grant the whole preset."""
        return (
            set(self.roles) <= set(roles)
            and set(self.modules) <= set(modules)
            and (all_divisions or not self.all_divisions)
        )


PRESETS = (
    Preset(
        "salesperson", _l("Salesperson"),
        ("ROLE_USER", R.add_vehicle("begcare"), R.add_vehicle("newcare")),
        ("begcare", "newcare", "purchaseAnalysis", "quickTest"),
    ),
    Preset("station-worker", _l("Station worker"), ("ROLE_USER", R.ROLE_STATION_USER), ("begcare",)),
    Preset(
        "division-admin", _l("Division administrator"),
        ("ROLE_USER", R.ROLE_USER_DIVISION_ADMIN, R.ROLE_STATISTICS), ("begcare", "newcare"),
    ),
    Preset(
        "market-buyer", _l("Market buyer"), ("ROLE_USER", R.ROLE_CCMARKET_STATISTICS), ("market",),
        all_divisions=True,
    ),
)  # fmt: skip
