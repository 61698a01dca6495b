"""Who is looking: the signed-in user as every view, the menus and the shell see them.

Every signed-in page shows the menus, so their inputs (roles, modules, divisions and the parts
features add: lists, market flags) are read once into a `Snapshot` and kept in a small
per-process cache. The cache key holds the user's `modified_at`, the instance's `menu_version`
(bumped below whenever something the menus show changes) and the locale, so a change anywhere is
seen on the next page.

It sits in auth, below the features and the shell: a feature adds what it knows about the viewer
with `@snapshot_part(name)` (read once per snapshot, then `v.<name>`), and names the rows whose
change alters it with `menu_sources(...)`, as `@file_access.rule` lets features add access rules.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from flask import g, request, session
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user
from sqlalchemy import event, select, update
from sqlalchemy.orm import Session

from app.auth.models import Group, User
from app.core.cache import LRUCache
from app.core.models import Country, Division, Instance, Region, new_version, utcnow
from app.core.roles import ROLE_USER_DIVISION_ADMIN
from app.extensions import db

# The order in which modules are "first available" (spec 01: landing and search).
MODULE_ORDER = ("begcare", "newcare", "purchaseAnalysis", "quickTest", "market")
KEBAB = {
    "begcare": "begcare",
    "newcare": "newcare",
    "purchaseAnalysis": "purchase-analysis",
    "quickTest": "quick-test",
    "market": "market",
}
DIVISION_SESSION_KEY = "selectedDivisionDropdownValue"


@dataclass(frozen=True)
class DivisionChoice:
    value: str  # 'all' or '{division|region|country}-{id}'
    label: str
    level: int  # 0 all, 1 country, 2 region, 3 division


@dataclass(frozen=True)
class DivisionRef:
    id: int
    name: str
    region_id: int
    country_id: int


@dataclass(frozen=True)
class SnapshotPart:
    """Something a feature knows about the viewer: read once per snapshot by `read(user,
    instance)` (instance is never None), `empty` without an instance."""

    read: Callable
    empty: object = None


SNAPSHOT_PARTS: dict[str, SnapshotPart] = {}


def snapshot_part(name: str, empty=None):
    """Register `read(user, instance)` as the snapshot's part `name`, shown as `viewer.<name>`."""

    def register(read: Callable) -> Callable:
        SNAPSHOT_PARTS[name] = SnapshotPart(read, empty)
        return read

    return register


@dataclass
class Snapshot:
    """The menus' inputs for one user, instance and locale."""

    roles: frozenset[str]
    divisions: tuple[DivisionRef, ...] = ()
    division_choices: tuple[DivisionChoice, ...] = ()
    parts: dict = field(default_factory=dict)  # the features' parts by name (SNAPSHOT_PARTS)
    derived: dict = field(default_factory=dict)  # e.g. the resolved menu tree

    def part(self, name: str):
        """A feature's part; its empty value when it was not read (no instance)."""
        return self.parts[name] if name in self.parts else SNAPSHOT_PARTS[name].empty

    def latest(self, kind: str, counts_key, variant, build):
        """Something built from this snapshot and the vehicle counts of `counts_key`, once;
        only the newest counts' one is kept per kind and variant (older counts are dead)."""
        key = (kind, counts_key, variant)
        found = self.derived.get(key)
        if found is None:
            for old in list(self.derived):
                if isinstance(old, tuple) and old[0] == kind and old[2] == variant:
                    self.derived.pop(old, None)
            found = self.derived[key] = build()
        return found


SNAPSHOTS = LRUCache()


def _division_tree(
    user, instance: Instance, acting=None
) -> tuple[tuple[DivisionRef, ...], tuple[DivisionChoice, ...]]:
    """The divisions the user may see, and the selector's choices over them."""
    stmt = (
        select(Division, Region, Country)
        .join(Region, Division.region_id == Region.id)
        .join(Country, Region.country_id == Country.id)
        .where(Division.disabled.is_(False))
        .order_by(Country.name, Region.name, Division.name)
    )
    if not (user.all_divisions or user.is_global):
        allowed = [d.id for d in user.divisions if d.instance_id == instance.id]
        stmt = stmt.where(Division.id.in_(allowed))
    if acting is not None and acting.divisions is not None:  # while acting: both people's
        stmt = stmt.where(Division.id.in_(sorted(acting.divisions)))
    rows = db.session.execute(stmt).all()
    divisions = tuple(DivisionRef(d.id, d.name, r.id, c.id) for d, r, c in rows)
    if not rows:
        return divisions, ()
    choices = [DivisionChoice("all", _("All divisions"), 0)]
    seen: set[str] = set()
    for division, region, country in rows:
        for value, label, level in (
            (f"country-{country.id}", country.name, 1),
            (f"region-{region.id}", region.name, 2),
            (f"division-{division.id}", division.name, 3),
        ):
            if value not in seen:
                seen.add(value)
                choices.append(DivisionChoice(value, label, level))
    return divisions, tuple(choices)


def build_snapshot(user, instance: Instance | None, roles: frozenset[str], acting=None) -> Snapshot:
    """Read the menus' inputs from the database."""
    if instance is None:
        return Snapshot(roles)
    divisions, choices = _division_tree(user, instance, acting)
    parts = {name: part.read(user, instance) for name, part in SNAPSHOT_PARTS.items()}
    return Snapshot(roles, divisions, choices, parts)


@dataclass
class Viewer:
    """The signed-in user as the menus and the shell see them."""

    user: object
    instance: Instance | None
    snapshot: Snapshot
    impersonator: object | None = None
    acting: object | None = None  # while acting: both people's reach (app.auth.privileges)

    @property
    def roles(self) -> frozenset[str]:
        return self.snapshot.roles

    @property
    def modules(self) -> list[str]:
        granted = set(self.user.modules or [])
        if self.acting is not None:  # while acting: the modules both people hold
            granted &= self.acting.modules
        return [m for m in MODULE_ORDER if m in granted]

    @property
    def is_global(self) -> bool:
        return bool(self.user.is_global)

    @property
    def login_type(self) -> str:
        return self.user.login_type

    def has(self, role: str) -> bool:
        return role in self.roles

    def has_prefix(self, prefix: str) -> bool:
        return any(r.startswith(prefix) for r in self.roles)

    @property
    def is_division_admin(self) -> bool:
        """ROLE_USER_DIVISION_ADMIN or its module, region or division scoped variants."""
        return self.has_prefix(ROLE_USER_DIVISION_ADMIN)

    def __getattr__(self, name: str):
        """A feature's snapshot part, e.g. `v.market_group` (app.market.viewer_parts)."""
        if name in SNAPSHOT_PARTS:
            return self.snapshot.part(name)
        raise AttributeError(name)

    def module_option(self, module: str, name: str, default: bool = True) -> bool:
        return self.instance.module_option(module, name, default) if self.instance else default

    def configuration(self, name: str) -> bool:
        return self.instance.configuration(name) if self.instance else False

    def module_of(self, path: str) -> str:
        """The module named by a path's first segment, or 'any' (spec 01 landing rule)."""
        first = path.strip("/").split("/", 1)[0]
        return next((m for m in self.modules if KEBAB[m] == first), "any")

    @property
    def active_module(self) -> str:
        return self.module_of(request.path)

    def search_module(self, path: str | None = None) -> str | None:
        """Where search goes: the active vehicle module, else the first one the user has."""
        vehicle_modules = [m for m in self.modules if m in ("begcare", "newcare")]
        active = self.module_of(path if path is not None else request.path)
        if active in vehicle_modules:
            return active
        return vehicle_modules[0] if vehicle_modules else None

    # --- divisions ---------------------------------------------------------------------------

    @property
    def visible_divisions(self) -> tuple[DivisionRef, ...]:
        return self.snapshot.divisions

    @property
    def division_choices(self) -> tuple[DivisionChoice, ...]:
        return self.snapshot.division_choices

    @cached_property
    def selected_division_value(self) -> str:
        value = session.get(DIVISION_SESSION_KEY, "all")
        return value if any(c.value == value for c in self.division_choices) else "all"

    @cached_property
    def selected_division_ids(self) -> list[int]:
        """The ids the division selector stands for, always within the visible divisions."""
        value = self.selected_division_value
        if value == "all":
            return [d.id for d in self.visible_divisions]
        kind, _, raw = value.partition("-")
        attribute = {"division": "id", "region": "region_id", "country": "country_id"}[kind]
        return [d.id for d in self.visible_divisions if getattr(d, attribute) == int(raw)]

    @property
    def selected_division_label(self) -> str:
        value = self.selected_division_value
        return next((c.label for c in self.division_choices if c.value == value), "")


def viewer() -> Viewer | None:
    """The current request's Viewer (None when nobody is signed in)."""
    if not current_user.is_authenticated:
        return None
    if "viewer" not in g:
        user = current_user._get_current_object()
        instance = user.active_instance
        impersonator = g.get("impersonator")
        key = (
            user.id, user.modified_at, user.session_nonce,
            instance.id if instance else None, instance.menu_version if instance else None,
            (impersonator.id, impersonator.modified_at) if impersonator else None,
            str(get_locale()),  # the language its texts are made in (a mail's, while one renders)
        )  # fmt: skip
        snapshot = SNAPSHOTS.get(key)
        if snapshot is None:
            snapshot = build_snapshot(
                user, instance, frozenset(user.all_roles()), g.get("acting_reach")
            )
            SNAPSHOTS.put(key, snapshot)
        g.viewer = Viewer(
            user=user,
            instance=instance,
            snapshot=snapshot,
            impersonator=impersonator,
            acting=g.get("acting_reach"),
        )
    return g.viewer


# --- keeping the cache honest ----------------------------------------------------------------

# Rows whose change alters some user's menu, division selector or snapshot parts.
MENU_SOURCES: list[type] = [Division, Region, Country, Group]


def menu_sources(*models: type) -> None:
    """Name rows (with an instance_id) whose change alters a feature's snapshot part."""
    MENU_SOURCES.extend(m for m in models if m not in MENU_SOURCES)


@event.listens_for(Session, "before_flush")
def _bump_menu_versions(session: Session, flush_context, instances) -> None:
    changed = set()
    sources = tuple(MENU_SOURCES)
    for obj in (*session.new, *session.dirty, *session.deleted):
        if isinstance(obj, sources) and getattr(obj, "instance_id", None) is not None:
            changed.add(obj.instance_id)
        elif isinstance(obj, Instance) and obj in session.dirty and session.is_modified(obj):
            obj.menu_version = new_version()
        elif isinstance(obj, User) and obj in session.dirty:
            obj.modified_at = utcnow()  # also for changes to its groups, divisions, instances
    if changed:
        table = Instance.__table__
        session.execute(
            update(table).where(table.c.id.in_(changed)).values(menu_version=new_version())
        )
