"""The menus as data: every entry with the rule that shows it (spec 01 sections 2 and 6).

`main_menu(viewer)` and `user_menu(viewer)` return the entries the viewer may see; the tests
read the same tables. Nesting goes up to four levels.
"""

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from flask_babel import lazy_gettext as _l

from app.auth.viewer import Viewer
from app.core import roles as R
from app.core.modules import MODULE_NAMES

Rule = Callable[[Viewer], bool]


def always(v: Viewer) -> bool:
    return True


def has(role: str) -> Rule:
    return lambda v: v.has(role)


def any_of(*rules: Rule) -> Rule:
    return lambda v: any(rule(v) for rule in rules)


def all_of(*rules: Rule) -> Rule:
    return lambda v: all(rule(v) for rule in rules)


def module(name: str) -> Rule:
    return lambda v: name in v.modules


def option(module_name: str, name: str, default: bool = True) -> Rule:
    return lambda v: v.module_option(module_name, name, default)


def not_global(v: Viewer) -> bool:
    return not v.is_global


def market_buyer(v: Viewer) -> bool:
    return bool(v.market_group and v.market_group.buyer)


def market_seller(v: Viewer) -> bool:
    return bool(v.market_group and v.market_group.seller)


def vehicle_requests(v: Viewer) -> bool:
    return bool(v.market_group and v.market_group.enable_vehicle_request)


def any_role_prefix(*prefixes: str) -> Rule:
    return lambda v: any(v.has_prefix(p) for p in prefixes)


@dataclass(frozen=True)
class Entry:
    key: str
    title: object
    path: str
    rule: Rule = always
    children: tuple["Entry", ...] = ()
    icon: str | None = None
    mobile_only: bool = False
    separator: bool = False
    match_exact: bool = False
    count: tuple[str, int] | None = None  # (module, state id) whose item count is shown
    menu_root: bool = False  # choosing it replaces the menu with its children (admin)


@dataclass
class Node:
    """A visible entry, resolved for one request."""

    entry: Entry
    title: str
    href: str
    level: int
    children: list["Node"] = field(default_factory=list)
    count: int | None = None

    @property
    def key(self) -> str:
        return self.entry.key


# --- the main menu ---------------------------------------------------------------------------


# Features add their own entries with `main_entry` (the vehicle modules: app.preparation.menu).
MAIN_MENU: list[Entry] = [
    Entry("my-dashboard", _l("My dashboard"), "/my-dashboard", rule=not_global, icon="gauge"),
    Entry("my-lists", _l("My lists"), "/my-lists", rule=not_global, icon="list"),
    Entry(
        "purchase-analysis",
        MODULE_NAMES["purchaseAnalysis"],
        "/purchase-analysis",
        rule=module("purchaseAnalysis"),
        icon="calculator",
        children=(
            Entry("purchase-analysis.list", _l("Analyses"), "/purchase-analysis/list"),
            Entry(
                "purchase-analysis.approval-requests",
                _l("Approval requests"),
                "/purchase-analysis/approval-requests",
                rule=option("purchaseAnalysis", "showApprovalRequestsList"),
            ),
            Entry(
                "purchase-analysis.statistics",
                _l("Statistics"),
                "/purchase-analysis/statistics",
                rule=any_of(has(R.ROLE_STATISTICS), has(R.ROLE_USER_PA_STATISTICS)),
            ),
            Entry("purchase-analysis.create", _l("New analysis"), "/purchase-analysis/create"),
        ),
    ),  # fmt: skip
    Entry(
        "quick-test",
        MODULE_NAMES["quickTest"],
        "/quick-test",
        rule=module("quickTest"),
        icon="clipboard",
    ),
    Entry(
        "market",
        MODULE_NAMES["market"],
        "/market",
        rule=module("market"),
        icon="gavel",
        children=(
            Entry("market.dashboard", _l("Market dashboard"), "/market/dashboard"),
            Entry("market.adverts", _l("Adverts"), "/market/adverts/list"),
            Entry(
                "market.my-allocations",
                _l("My allocations"),
                "/market/adverts/my-allocations",
                rule=market_buyer,
            ),
            Entry("market.my-deals", _l("My deals"), "/market/adverts/my-deals", rule=market_buyer),
            Entry(
                "market.watchlist", _l("Watchlist"), "/market/adverts/watchlist", rule=market_buyer
            ),
            Entry(
                "market.saved-searches",
                _l("Saved searches"),
                "/market/saved-searches",
                rule=market_buyer,
            ),
            Entry(
                "market.vehicle-requests",
                _l("Vehicle requests"),
                "/market/vehicle-requests",
                rule=vehicle_requests,
            ),
            Entry(
                "market.my-adverts",
                _l("My adverts"),
                "/market/adverts/my-adverts",
                rule=market_seller,
            ),
            Entry(
                "market.my-assigned",
                _l("My assigned"),
                "/market/adverts/my-assigned",
                rule=market_seller,
            ),
            Entry("market.my-sold", _l("My sold"), "/market/adverts/my-sold", rule=market_seller),
            Entry(
                "market.statistics",
                _l("Statistics"),
                "/market/statistics",
                rule=all_of(
                    any_of(has(R.ROLE_ADMIN), has(R.ROLE_CCMARKET_STATISTICS)),
                    any_of(market_buyer, market_seller),
                ),
            ),
            Entry(
                "market.settings",
                _l("Market settings"),
                "/market/settings",
                rule=any_of(has(R.ROLE_ADMIN), has(R.ROLE_CCMARKET_ADMIN)),
            ),
            Entry(
                "market.vehicle-request-add",
                _l("New vehicle request"),
                "/market/vehicle-request/add",
                rule=all_of(vehicle_requests, market_buyer),
            ),
            Entry("market.advert-add", _l("New advert"), "/market/advert/add", rule=market_seller),
        ),
    ),  # fmt: skip
    Entry(
        "station",
        _l("Station vehicles"),
        "/begcare/station/vehicles",
        rule=has(R.ROLE_STATION_USER),
        icon="wrench",
    ),  # fmt: skip
]


def main_entry(entry: Entry, after: str) -> Entry:
    """Add a feature's entry to the main menu after the entry keyed `after` (once per key)."""
    if all(e.key != entry.key for e in MAIN_MENU):
        at = next(i for i, e in enumerate(MAIN_MENU) if e.key == after)
        MAIN_MENU.insert(at + 1, entry)
    return entry


# --- the administration menu ---------------------------------------------------------------


def _tenant(subject: str) -> Rule:
    return any_of(has(R.ROLE_ADMIN), has(R.tenant_read(subject)))


def _module_admin(module_name: str, subject: str) -> Rule:
    return any_of(has(R.ROLE_ADMIN), has(R.module_read(module_name, subject)))


def _global(subject: str) -> Rule:
    return has(R.global_read(subject))


GENERAL_ADMIN = (
    ("configuration", _l("Configuration"), _tenant("CONFIGURATION")),
    ("import", _l("Import"), _tenant("IMPORT")),
    ("providers", _l("Data providers"), _tenant("DATA_PROVIDER")),
    ("event-engine", _l("Event engine"), _tenant("EVENT_ENGINE")),
    ("webhooks", _l("Webhooks"), _tenant("EVENT_ENGINE")),
    ("template-engine", _l("Template engine"), any_of(has(R.ROLE_ADMIN), has("ROLE_TENANT_TEMPLATE_ENGINE_ADMIN"))),
    ("countries", _l("Countries"), _tenant("COUNTRY")),
    ("regions", _l("Regions"), _tenant("REGION")),
    ("divisions", _l("Divisions"), _tenant("DIVISION")),
    ("seller-users", _l("Seller users"), _tenant("SELLER")),
    ("address", _l("Addresses"), _tenant("ADDRESS")),
    ("holidays", _l("Holidays"), _tenant("HOLIDAY")),
    ("information-groups", _l("Information groups"), _tenant("INFORMATION")),
    ("information", _l("Information"), _tenant("INFORMATION")),
    ("storages", _l("Storages"), _tenant("STORAGE")),
    ("calculators", _l("Calculators"), _tenant("CALCULATOR")),
    ("booking-calendars", _l("Booking calendars"), _tenant("BOOKING_CALENDAR")),
    ("booking-calendar-locations", _l("Booking calendar locations"), _tenant("LOCATION_CALENDAR")),
    ("actions", _l("Actions"), _tenant("ACTIONS")),
    ("reports", _l("Reports"), _tenant("REPORTS")),
    ("tags", _l("Tags"), _tenant("TAGS")),
    ("goals", _l("Goals"), any_of(has(R.ROLE_ADMIN), has(R.ROLE_MANAGER_ADMIN))),
)  # fmt: skip
MODULE_ADMIN = (
    ("states", _l("States"), "STATES"),
    ("state-buttons", _l("State buttons"), "STATE_BUTTON"),
    ("stations", _l("Stations"), "STATION"),
    ("station-packages", _l("Station packages"), "STATION_PACKAGE"),
    ("station-groups", _l("Station groups"), "STATION_GROUP"),
    ("recon-limits", _l("Approval limits"), "STATION"),
    ("locations", _l("Locations"), "PARKING"),
    ("keylocations", _l("Key locations"), "KEY_LOCATION"),
    ("delivery-locations", _l("Delivery locations"), None),
    ("rules", _l("Rules"), "RULE"),
    ("rule-interaction", _l("Rule interaction"), "INTERACTION"),
    ("logs", _l("Logs"), None),
    ("add-wizards", _l("Add wizards"), "WIZARD"),
)  # fmt: skip
GLOBAL_ADMIN = (
    ("instances", _l("Instances"), "INSTANCES"),
    ("properties", _l("Properties"), "ENHANCED_PROPERTY"),
    ("categories", _l("Categories"), "ENHANCED_CATEGORIES"),
    ("system-messages", _l("System messages"), "SYSTEM_MESSAGES"),
    ("users", _l("Users"), "USER"),
    ("service-schedule", _l("Service schedule"), "SERVICE_SCHEDULE"),
    ("service-schedule/checkup-tasks", _l("Check-up tasks"), "SERVICE_SCHEDULE"),
    ("ranking/leaderboard", _l("Leaderboard"), "TIER_RANKING"),
    ("ranking/seasons", _l("Seasons"), "TIER_RANKING"),
    ("ranking/tiers", _l("Tiers"), "TIER_RANKING"),
)  # fmt: skip


def _module_admin_rule(module_name: str, subject: str | None) -> Rule:
    if subject is None:  # delivery locations and logs have no read role of their own
        return any_of(
            has(R.ROLE_ADMIN),
            has("ROLE_TENANT_DELIVERY_LOCATION_ADMIN"),
            lambda v: v.is_division_admin,
        )
    return any_of(_module_admin(module_name, subject), lambda v: v.is_division_admin)


ADMIN_MENU: tuple[Entry, ...] = (
    Entry(
        "admin.general", _l("General"), "/admin/general",
        children=tuple(Entry(f"admin.general.{k}", t, f"/admin/general/{k}", rule=r) for k, t, r in GENERAL_ADMIN),
    ),
    *(
        Entry(
            f"admin.{m}", MODULE_NAMES[m], f"/admin/{m}", rule=module(m),
            children=tuple(
                Entry(f"admin.{m}.{k}", t, f"/admin/{m}/{k}", rule=_module_admin_rule(m, s))
                for k, t, s in MODULE_ADMIN
            ),
        )
        for m in ("begcare", "newcare")
    ),
    Entry(
        "admin.purchase-analysis", MODULE_NAMES["purchaseAnalysis"], "/admin/purchase-analysis",
        rule=module("purchaseAnalysis"),
        children=(
            Entry(
                "admin.purchase-analysis.dynamic-fields", _l("Dynamic fields"),
                "/admin/purchase-analysis/purchase-analyses-dynamic-fields", rule=_tenant("PURCHASE_ANALYSIS"),
            ),
            Entry(
                "admin.purchase-analysis.priorities", _l("Priorities"),
                "/admin/purchase-analysis/purchase-analyses-priorities", rule=_tenant("PURCHASE_ANALYSIS"),
            ),
        ),
    ),
    Entry(
        "admin.core", _l("Users and access"), "/admin/core",
        children=(
            Entry("admin.core.core-api-users", _l("API users"), "/admin/core/core-api-users", rule=_tenant("API_USER")),
            Entry("admin.core.users", _l("Users"), "/admin/core/users", rule=any_of(_tenant("USER"), lambda v: v.is_division_admin)),
            Entry("admin.core.groups", _l("Groups"), "/admin/core/groups", rule=_tenant("GROUP")),
        ),
    ),
    Entry(
        "admin.global", _l("Global"), "/admin/global",
        children=tuple(Entry(f"admin.global.{k.replace('/', '.')}", t, f"/admin/global/{k}", rule=_global(s)) for k, t, s in GLOBAL_ADMIN),
    ),
)  # fmt: skip

ADMIN_ENTRY = Entry(
    "admin", _l("Administration"), "/admin", children=ADMIN_MENU, menu_root=True, icon="cog"
)


def can_administer(v: Viewer) -> bool:
    """The admin area's guard: any visible entry in it."""
    return bool(_visible(ADMIN_MENU, v, 2, None))


# --- resolving for a request -----------------------------------------------------------------


def _visible(entries, v: Viewer, level: int, counts) -> list[Node]:
    nodes = []
    for entry in entries:
        if not entry.rule(v):
            continue
        children = _visible(entry.children, v, level + 1, counts) if entry.children else []
        if entry.children and not children and entry.key.startswith("admin."):
            continue  # an admin group with nothing inside it is not shown
        count = None
        if entry.count and counts is not None:
            count = counts.get(entry.count[0], {}).get(entry.count[1], 0)
        nodes.append(Node(entry, str(entry.title), entry.path, level, children, count))
    return nodes


def _dynamic_children(v: Viewer) -> list[Entry]:
    return [
        Entry(f"my-lists.{d.uuid}", d.title, f"/my-lists/{d.uuid}", match_exact=True)
        for d in v.dynamic_lists
    ]


def _mobile_entries(v: Viewer) -> list[Entry]:
    entries = []
    if not v.is_global:  # spec 01 section 6: no lists for global users
        entries += [
            Entry(f"custom-list.{c.id}", c.name, f"/custom-list/{c.id}/list", mobile_only=True)
            for c in v.custom_lists
        ]
        entries.append(
            Entry(
                "custom-list.manage",
                _l("Manage custom lists"),
                "/custom-list",
                mobile_only=True,
                separator=True,
            )
        )
    if v.configuration("enable_my_events"):
        entries.append(Entry("my-events", _l("My events"), "/my-events", mobile_only=True))
    if v.login_type == "default":
        entries.append(Entry("user", _l("My settings"), "/user", mobile_only=True))
    entries.append(Entry("logout", _l("Log out"), "/logout", mobile_only=True))
    return entries


def main_menu(v: Viewer, counts=None) -> list[Node]:
    """The main menu the viewer may see, with item counts when given."""
    if v.has(R.ROLE_HIDE_MENU_ITEMS):
        return []
    entries = []
    for entry in MAIN_MENU:
        if entry.key == "my-lists":
            entry = replace(entry, children=tuple(_dynamic_children(v)))
        entries.append(entry)
    if can_administer(v):
        entries.append(ADMIN_ENTRY)
    return _visible(entries, v, 1, counts) + _visible(_mobile_entries(v), v, 1, None)


def admin_menu(v: Viewer) -> list[Node]:
    return _visible(ADMIN_MENU, v, 1, None)


def user_menu(v: Viewer) -> list[Node]:
    """The user menu (spec 01: My profile, custom lists, My events, My settings, Logout)."""
    entries = [
        Entry(
            "profile", _l("My profile"), "/begcare/station/profile", rule=has(R.ROLE_STATION_USER)
        ),
        Entry("custom-list.manage", _l("Manage custom lists"), "/custom-list", rule=not_global),
        *[
            Entry(f"custom-list.{c.id}", c.name, f"/custom-list/{c.id}/list")
            for c in v.custom_lists
        ],
        Entry(
            "my-events",
            _l("My events"),
            "/my-events",
            rule=lambda x: x.configuration("enable_my_events"),
        ),
        Entry("user", _l("My settings"), "/user", rule=lambda x: x.login_type == "default"),
        Entry("ranking", _l("Ranking"), "/ranking", rule=lambda x: x.instance is not None),
        Entry("admin", _l("Administration"), "/admin", rule=lambda x: x.is_division_admin),
    ]
    return _visible(entries, v, 1, None)


def mark_active(nodes: list[Node], path: str, full_path: str) -> list[Node]:
    """The trail to the entry matching `path` (the breadcrumb; its last node is the current
    entry). The nodes are left as they are: pages of one snapshot and counts share them."""
    best: list[Node] = []

    def walk(items: list[Node], trail: list[Node]) -> None:
        nonlocal best
        for node in items:
            href = node.href.split("?", 1)[0]
            exact = node.href == full_path or href == path
            inside = (
                not node.entry.match_exact
                and href != "/"
                and path.startswith(href.rstrip("/") + "/")
            )
            if exact or inside:
                candidate = [*trail, node]
                if len(candidate) > len(best) or (exact and len(candidate) >= len(best)):
                    best = candidate
            walk(node.children, [*trail, node])

    walk(nodes, [])
    return best
