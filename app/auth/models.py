"""Users, groups and the records that sign-in keeps: reset tokens and throttle counters."""

import secrets
from datetime import datetime

from flask import g, has_app_context
from flask_login import UserMixin
from sqlalchemy import JSON, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.core.models import (
    Division,
    Instance,
    InstanceScoped,
    TimestampMixin,
    UTCDateTime,
    link_table,
    utcnow,
)
from app.core.roles import is_platform_role
from app.extensions import db

MODULES = ("begcare", "newcare", "purchaseAnalysis", "quickTest", "market")

user_groups = link_table("user_group", "user", "group")
user_divisions = link_table("user_division", "user", "division")


class Group(InstanceScoped, db.Model):
    """A named set of roles inside one instance."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    roles: Mapped[list[str]] = mapped_column(JSON, default=list)


class Membership(db.Model):
    """A person's place in one instance: the roles, modules and divisions that instance granted.
    Rights granted in one company apply in that company only (docs/decisions.md, privileges)."""

    __tablename__ = "user_instance"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), primary_key=True
    )
    instance_id: Mapped[int] = mapped_column(
        ForeignKey("instance.id", ondelete="CASCADE"), primary_key=True
    )
    roles: Mapped[list[str]] = mapped_column(JSON, default=list)
    modules: Mapped[list[str]] = mapped_column(JSON, default=list)
    all_divisions: Mapped[bool] = mapped_column(default=False)

    instance: Mapped[Instance] = relationship()

    def of(self, instance_id: int | None) -> bool:
        return instance_id is not None and (
            self.instance_id == instance_id
            or (self.instance is not None and self.instance.id == instance_id)
        )


user_instances = Membership.__table__


class User(UserMixin, TimestampMixin, db.Model):
    """A person who signs in. The e-mail address is the username."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(200))
    firstname: Mapped[str] = mapped_column(String(100), default="")
    lastname: Mapped[str] = mapped_column(String(100), default="")
    phone_number: Mapped[str | None] = mapped_column(String(40))
    login_type: Mapped[str] = mapped_column(String(20), default="default")
    # The platform's roles (app.core.roles.PLATFORM_ROLES); an instance's are on its Membership.
    platform_roles: Mapped[list[str]] = mapped_column(JSON, default=list)
    options: Mapped[dict] = mapped_column(JSON, default=dict)
    is_global: Mapped[bool] = mapped_column(default=False)
    active: Mapped[bool] = mapped_column(default=True)
    # Changes whenever the password changes, so that every older session ends.
    session_nonce: Mapped[str] = mapped_column(String(32), default=lambda: secrets.token_hex(8))
    home_instance_id: Mapped[int | None] = mapped_column(
        ForeignKey("instance.id", ondelete="SET NULL")
    )
    active_instance_id: Mapped[int | None] = mapped_column(
        ForeignKey("instance.id", ondelete="SET NULL")
    )

    memberships: Mapped[list[Membership]] = relationship(cascade="all, delete-orphan")
    groups: Mapped[list[Group]] = relationship(secondary=user_groups)
    divisions: Mapped[list[Division]] = relationship(secondary=user_divisions)
    active_instance: Mapped[Instance | None] = relationship(foreign_keys=[active_instance_id])

    @property
    def username(self) -> str:
        return self.email

    @property
    def full_name(self) -> str:
        return f"{self.firstname} {self.lastname}".strip() or self.email

    @property
    def initials(self) -> str:
        parts = [p for p in (self.firstname, self.lastname) if p]
        return "".join(p[0] for p in parts).upper() or self.email[:1].upper()

    @property
    def is_active(self) -> bool:  # Flask-Login
        return self.active

    def get_id(self) -> str:  # Flask-Login: a new password ends older sessions
        return f"{self.id}.{self.session_nonce}"

    def __init__(self, *, roles=None, modules=None, all_divisions=None, instances=None, **fields):
        """`roles`, `modules` and `all_divisions` are granted in each of `instances` (a role of
        the platform is kept on the person); so is a membership added later in this session."""
        super().__init__(**fields)
        self.platform_roles = [r for r in roles or [] if is_platform_role(r)]
        self._grant = {
            "roles": [r for r in roles or [] if not is_platform_role(r)],
            "modules": list(modules or []),
            "all_divisions": bool(all_divisions),
        }
        if instances:
            self.instances = instances

    # --- memberships -------------------------------------------------------------------------

    @property
    def instances(self) -> list[Instance]:
        """The instances the person belongs to, by name."""
        return sorted((m.instance for m in self.memberships), key=lambda i: i.company_name)

    @instances.setter
    def instances(self, value) -> None:
        """Belong to exactly these instances: memberships kept where they exist, new ones get
        the grant the person was made with (none for a person read from the database)."""
        kept = {m.instance_id or m.instance.id: m for m in self.memberships}
        self.memberships = [kept.get(i.id) or self._new_membership(i) for i in value]

    def _new_membership(self, instance: Instance) -> Membership:
        grant = getattr(self, "_grant", None) or {}
        return Membership(
            instance=instance,
            roles=list(grant.get("roles", [])),
            modules=list(grant.get("modules", [])),
            all_divisions=grant.get("all_divisions", False),
        )

    def membership_in(self, instance_id: int | None) -> Membership | None:
        return next((m for m in self.memberships if m.of(instance_id)), None)

    def join(self, instance: Instance, like: Membership | None = None) -> Membership:
        """Add a membership of `instance` (a copy of `like`'s grant), or return the one there is."""
        found = self.membership_in(instance.id)
        if found is None:
            found = Membership(
                instance=instance,
                roles=list(like.roles or []) if like else [],
                modules=list(like.modules or []) if like else [],
                all_divisions=like.all_divisions if like else False,
            )
            self.memberships.append(found)
        return found

    @property
    def membership(self) -> Membership | None:
        """The membership of the active instance."""
        return self.membership_in(self.active_instance_id)

    def _granted(self, name: str, value) -> None:
        """Set a grant on the active membership (or the one the person is made with)."""
        membership = self.membership or (
            self.memberships[0] if len(self.memberships) == 1 else None
        )
        if membership is None:
            self._grant = {**(getattr(self, "_grant", None) or {}), name: value}
        else:
            setattr(membership, name, value)
        self.modified_at = utcnow()  # the menus' caches are keyed by it

    @property
    def roles(self) -> list[str]:
        """The platform's roles and the active instance's direct roles (groups aside)."""
        membership = self.membership
        return sorted({*(self.platform_roles or []), *(membership.roles if membership else [])})

    @roles.setter
    def roles(self, value) -> None:
        self.platform_roles = sorted(r for r in value if is_platform_role(r))
        self._granted("roles", sorted(r for r in value if not is_platform_role(r)))

    @property
    def modules(self) -> list[str]:
        membership = self.membership
        return list(membership.modules or []) if membership else []

    @modules.setter
    def modules(self, value) -> None:
        self._granted("modules", list(value))

    @property
    def all_divisions(self) -> bool:
        membership = self.membership
        return bool(membership and membership.all_divisions)

    @all_divisions.setter
    def all_divisions(self, value: bool) -> None:
        self._granted("all_divisions", bool(value))

    def roles_in(self, instance_id: int | None) -> set[str]:
        """The roles the person holds in one instance: the platform's, the membership's and
        those of the instance's groups they are in."""
        roles = set(self.platform_roles or [])
        membership = self.membership_in(instance_id)
        if membership is not None:
            roles.update(membership.roles or [])
            for group in self.groups:
                if group.instance_id == instance_id:
                    roles.update(group.roles or [])
        return roles

    def all_roles(self) -> set[str]:
        """Return the user's roles in the active instance, limited by the impersonator's roles
        while someone acts as this user."""
        roles = self.roles_in(self.active_instance_id)
        ceiling = g.get("role_ceiling") if has_app_context() else None
        if ceiling is not None and g.get("impersonator") is not self:
            roles &= ceiling
        return roles

    def has_role(self, role: str) -> bool:
        return role in self.all_roles()


class UserToken:
    """A secret given to a user that lasts until `expires_at`: only its SHA-256 is stored."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)


class PasswordResetToken(UserToken, db.Model):
    """A single-use reset link."""

    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    user: Mapped[User] = relationship()


class UserSession(UserToken, db.Model):
    """A signed-in session, so that the server can end it: the cookie carries a random id.
    Logging out revokes the row; "sign out everywhere" revokes every row of the user; a revoked
    or expired row signs nobody in."""

    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class AuthThrottle(db.Model):
    """Failed attempts per key (an account or an address) inside the current window."""

    __table_args__ = (UniqueConstraint("key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(300))
    failures: Mapped[int] = mapped_column(default=0)
    first_failure_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_failure_at: Mapped[datetime] = mapped_column(UTCDateTime)
