"""The privilege model: what a person's reach is, what a writer may grant, whom a writer may edit
and act as. Every write that carries reach (users, groups, acting as another user) asks here;
the rules are written down in docs/decisions.md ("Privileges").

Reach is per instance: the roles a person holds there (the membership's, its groups' and the
platform's), the modules, and the divisions (None standing for every division). A writer's
ceiling is its own reach, except that ROLE_ADMIN of an instance may grant every role, module and
division of that instance; the platform's roles are granted only by a global administrator who
holds them. Nobody widens their own record.
"""

from dataclasses import dataclass

from sqlalchemy import select

from app.auth.models import MODULES, Group, User
from app.core import roles as R
from app.core.models import Division
from app.extensions import db

# Every role an instance can grant (the ones the platform grants are R.PLATFORM_ROLES).
INSTANCE_ROLES = (
    "ROLE_USER", R.ROLE_ADMIN, R.ROLE_MANAGER_ADMIN, R.IS_IMPERSONATOR, R.ROLE_STATISTICS,
    R.ROLE_USER_PA_STATISTICS, R.ROLE_CCMARKET_STATISTICS, R.ROLE_CCMARKET_ADMIN,
    R.ROLE_STATION_USER, R.ROLE_HIDE_MENU_ITEMS, R.ROLE_USER_DIVISION_ADMIN, R.ROLE_CHAT_BLOCKED,
    R.add_vehicle("begcare"), R.add_vehicle("newcare"), *R.ALL_TENANT_ROLES,
)  # fmt: skip
GLOBAL_ADMIN = R.global_read("USER")  # the platform's user administrators


@dataclass(frozen=True)
class Reach:
    """What a person may reach in one instance."""

    roles: frozenset[str]  # the instance's roles held there (groups included)
    platform: frozenset[str]  # the platform's roles, held everywhere
    modules: frozenset[str]
    divisions: frozenset[int] | None  # None: every division of the instance
    is_global: bool = False
    every_role: bool = False  # every role of the instance (ROLE_ADMIN's ceiling there)

    def holds_roles(self, roles) -> bool:
        return all(
            r in self.roles or (self.every_role and not R.is_platform_role(r)) for r in roles
        )

    @property
    def instance_admin(self) -> bool:
        return R.ROLE_ADMIN in self.roles

    @property
    def global_admin(self) -> bool:
        return GLOBAL_ADMIN in self.platform

    def within(self, other: "Reach") -> bool:
        """Whether everything this reach holds is held by `other`."""
        return (
            other.holds_roles(self.roles)
            and self.platform <= other.platform
            and self.modules <= other.modules
            and (
                other.divisions is None
                or (self.divisions is not None and self.divisions <= other.divisions)
            )
            and (other.is_global or not self.is_global)
        )

    def __and__(self, other: "Reach") -> "Reach":
        if self.divisions is None or other.divisions is None:
            divisions = other.divisions if self.divisions is None else self.divisions
        else:
            divisions = self.divisions & other.divisions
        return Reach(
            self.roles_and(other),
            self.platform & other.platform,
            self.modules & other.modules,
            divisions,
            self.is_global and other.is_global,
        )

    def roles_and(self, other: "Reach") -> frozenset[str]:
        if self.every_role or other.every_role:
            return self.roles if other.every_role else other.roles
        return self.roles & other.roles


def reach_of(user: User, instance_id: int | None) -> Reach:
    """The person's own reach in an instance (nothing but the platform's roles outside it)."""
    platform = frozenset(user.platform_roles or [])
    membership = user.membership_in(instance_id)
    if membership is None:
        return Reach(frozenset(), platform, frozenset(), frozenset(), bool(user.is_global))
    roles = set(membership.roles or [])
    for group in user.groups:
        if group.instance_id == instance_id:
            roles.update(group.roles or [])
    everywhere = membership.all_divisions or user.is_global
    divisions = (
        None
        if everywhere
        else frozenset(d.id for d in user.divisions if d.instance_id == instance_id)
    )
    return Reach(
        frozenset(r for r in roles if not R.is_platform_role(r)),
        platform,
        frozenset(membership.modules or []),
        divisions,
        bool(user.is_global),
    )


def ceiling(writer: Reach) -> Reach:
    """The most a writer may grant in its instance."""
    if writer.instance_admin:
        return Reach(
            frozenset(INSTANCE_ROLES), writer.platform, frozenset(MODULES), None,
            writer.global_admin, every_role=True,
        )  # fmt: skip
    return Reach(
        writer.roles, writer.platform if writer.global_admin else frozenset(), writer.modules,
        writer.divisions, writer.global_admin and writer.is_global,
    )  # fmt: skip


def may_edit(writer: Reach, writer_user: User, target: User, instance_id: int) -> bool:
    """Whether a writer may change a person's grant in an instance: the person's whole reach
    there lies within the writer's ceiling (the writer's own record: within its reach)."""
    if target.id is None:
        return True
    limit = writer if target.id == writer_user.id else ceiling(writer)
    return reach_of(target, instance_id).within(limit)


def may_edit_identity(writer: Reach, writer_user: User, target: User, instance_id: int) -> bool:
    """E-mail, password and the active flag: the person, their home instance's administrator,
    or a global administrator."""
    if target.id is None or target.id == writer_user.id or writer.global_admin:
        return True
    return writer.instance_admin and target.home_instance_id == instance_id


@dataclass(frozen=True)
class Offer:
    """What a writer may choose from when granting in its instance."""

    roles: tuple[str, ...]
    platform: tuple[str, ...]
    modules: tuple[str, ...]
    divisions: tuple[Division, ...]
    groups: tuple[Group, ...]
    all_divisions: bool


def offer(writer: Reach, instance_id: int) -> Offer:
    """The roles, modules, divisions and groups a writer may grant (its ceiling); a group
    counts as the roles it carries."""
    limit = ceiling(writer)
    divisions = db.session.scalars(
        select(Division).where(Division.instance_id == instance_id).order_by(Division.name)
    ).all()
    if limit.divisions is not None:
        divisions = [d for d in divisions if d.id in limit.divisions]
    groups = db.session.scalars(
        select(Group).where(Group.instance_id == instance_id).order_by(Group.name)
    ).all()
    return Offer(
        roles=tuple(r for r in INSTANCE_ROLES if r in limit.roles),
        platform=tuple(
            r for r in (*R.ALL_GLOBAL_ROLES, *R.PLATFORM_STAFF_ROLES) if r in limit.platform
        ),
        modules=tuple(m for m in MODULES if m in limit.modules),
        divisions=tuple(divisions),
        groups=tuple(grp for grp in groups if limit.holds_roles(grp.roles or [])),
        all_divisions=limit.divisions is None,
    )


def refused_grant(writer: Reach, writer_user: User, target: User, after: Reach) -> str | None:
    """The part of a new grant beyond what the writer may give, named (None when it may)."""
    limit = writer if target.id is not None and target.id == writer_user.id else ceiling(writer)
    for field, extra in (
        ("roles", frozenset() if limit.every_role else after.roles - limit.roles),
        ("platform_roles", after.platform - limit.platform),
        ("modules", after.modules - limit.modules),
    ):
        if extra:
            return field
    if after.divisions is None and limit.divisions is not None:
        return "all_divisions"
    if (
        after.divisions is not None
        and limit.divisions is not None
        and after.divisions - limit.divisions
    ):
        return "divisions"
    if after.is_global and not limit.is_global:
        return "is_global"
    return None


def may_act_as(actor: User, target: User) -> bool:
    """Nobody acts as a user with more reach than their own: in every instance of the target,
    the target's reach lies within what the actor could grant there (its ceiling; a global
    administrator's reaches every instance). The acting session itself holds only what both
    people hold (acting_reach)."""
    if target.platform_roles and not set(target.platform_roles) <= set(actor.platform_roles or []):
        return False
    if target.is_global and not actor.is_global:
        return False
    for instance in target.instances:
        own = acting_own_reach(actor, instance.id)
        if own is None or not reach_of(target, instance.id).within(ceiling(own)):
            return False
    return True


def acting_reach(user: User, impersonator: User | None, instance_id: int | None) -> Reach | None:
    """While someone acts as `user`, the intersection of both reaches (None when nobody acts)."""
    if impersonator is None:
        return None
    own = acting_own_reach(impersonator, instance_id)
    if own is None:
        return reach_of(user, instance_id) & reach_of(impersonator, instance_id)
    if impersonator.membership_in(instance_id) is None:
        own = ceiling(own)  # a global administrator outside its own instances: the ceiling
    return reach_of(user, instance_id) & own


def acting_own_reach(actor: User, instance_id: int | None) -> Reach | None:
    """An actor's own reach in an instance: its membership's, or, for a global administrator
    who does not belong to it, an instance administrator's; None for anyone else outside it."""
    own = reach_of(actor, instance_id)
    if actor.membership_in(instance_id) is not None:
        return own
    if not own.global_admin:
        return None
    return Reach(frozenset({R.ROLE_ADMIN}), own.platform, frozenset(), None)
