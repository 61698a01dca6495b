"""What the shell needs to know about the signed-in user, gathered once per request."""

from dataclasses import dataclass, field
from functools import cached_property

from flask import g, request, session
from flask_login import current_user
from sqlalchemy import select

from app.core.models import Country, Division, Instance, Region
from app.core.roles import ROLE_USER_DIVISION_ADMIN
from app.extensions import db
from app.market.models import InstanceGroup
from app.preparation.models import CustomList, DynamicList

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


@dataclass
class DivisionChoice:
    value: str  # 'all' or '{division|region|country}-{id}'
    label: str
    level: int  # 0 all, 1 country, 2 region, 3 division


@dataclass
class Viewer:
    """The signed-in user as the menus and the shell see them."""

    user: object
    roles: frozenset[str]
    instance: Instance | None
    impersonator: object | None = None
    _cache: dict = field(default_factory=dict)

    @property
    def modules(self) -> list[str]:
        return [m for m in MODULE_ORDER if m in (self.user.modules or [])]

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

    @cached_property
    def market_group(self) -> InstanceGroup | None:
        if self.instance is None:
            return None
        return db.session.scalars(select(InstanceGroup).order_by(InstanceGroup.id)).first()

    @cached_property
    def custom_lists(self) -> list[CustomList]:
        return list(
            db.session.scalars(
                select(CustomList)
                .where(CustomList.user_id == self.user.id)
                .order_by(CustomList.name)
            )
        )

    @cached_property
    def dynamic_lists(self) -> list[DynamicList]:
        return list(
            db.session.scalars(
                select(DynamicList)
                .where(DynamicList.user_id == self.user.id)
                .order_by(DynamicList.title)
            )
        )

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

    @cached_property
    def visible_divisions(self) -> list[Division]:
        """The divisions of the active instance this user may see, in a stable order."""
        if self.instance is None:
            return []
        if self.user.all_divisions or self.is_global:
            stmt = select(Division).where(Division.disabled.is_(False))
            return list(db.session.scalars(stmt.order_by(Division.name)))
        return sorted(
            (
                d
                for d in self.user.divisions
                if d.instance_id == self.instance.id and not d.disabled
            ),
            key=lambda d: d.name,
        )

    @cached_property
    def division_choices(self) -> list[DivisionChoice]:
        """'all', then each country, its regions and their divisions the user may see."""
        divisions = self.visible_divisions
        if not divisions:
            return []
        regions = {
            r.id: r
            for r in db.session.scalars(
                select(Region).where(Region.id.in_({d.region_id for d in divisions}))
            )
        }
        countries = {
            c.id: c
            for c in db.session.scalars(
                select(Country).where(Country.id.in_({r.country_id for r in regions.values()}))
            )
        }
        from flask_babel import gettext as _

        choices = [DivisionChoice("all", _("All divisions"), 0)]
        for country in sorted(countries.values(), key=lambda c: c.name):
            choices.append(DivisionChoice(f"country-{country.id}", country.name, 1))
            for region in sorted(
                (r for r in regions.values() if r.country_id == country.id), key=lambda r: r.name
            ):
                choices.append(DivisionChoice(f"region-{region.id}", region.name, 2))
                for division in (d for d in divisions if d.region_id == region.id):
                    choices.append(DivisionChoice(f"division-{division.id}", division.name, 3))
        return choices

    @property
    def selected_division_value(self) -> str:
        value = session.get(DIVISION_SESSION_KEY, "all")
        return value if any(c.value == value for c in self.division_choices) else "all"

    @cached_property
    def selected_division_ids(self) -> list[int]:
        """The ids the division selector stands for, always within the visible divisions."""
        value = self.selected_division_value
        divisions = self.visible_divisions
        if value == "all":
            return [d.id for d in divisions]
        kind, _, raw = value.partition("-")
        wanted = int(raw)
        if kind == "division":
            return [d.id for d in divisions if d.id == wanted]
        if kind == "region":
            return [d.id for d in divisions if d.region_id == wanted]
        return [d.id for d in divisions if d.region.country_id == wanted]

    @property
    def selected_division_label(self) -> str:
        value = self.selected_division_value
        return next((c.label for c in self.division_choices if c.value == value), "")


def viewer() -> Viewer | None:
    """The current request's Viewer (None when nobody is signed in)."""
    if not current_user.is_authenticated:
        return None
    if "viewer" not in g:
        g.viewer = Viewer(
            user=current_user._get_current_object(),
            roles=frozenset(current_user.all_roles()),
            instance=current_user.active_instance,
            impersonator=g.get("impersonator"),
        )
    return g.viewer
