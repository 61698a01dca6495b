"""Users, groups and the records that sign-in keeps: reset tokens and throttle counters."""

import secrets
from datetime import datetime

from flask import g, has_app_context
from flask_login import UserMixin
from sqlalchemy import JSON, Column, ForeignKey, Integer, String, Table, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.core.models import Division, Instance, InstanceScoped, TimestampMixin, UTCDateTime
from app.extensions import db

MODULES = ("begcare", "newcare", "purchaseAnalysis", "quickTest", "market")

user_instances = Table(
    "user_instance",
    db.metadata,
    Column("user_id", ForeignKey("user.id", ondelete="CASCADE"), primary_key=True),
    Column("instance_id", ForeignKey("instance.id", ondelete="CASCADE"), primary_key=True),
)
user_groups = Table(
    "user_group",
    db.metadata,
    Column("user_id", ForeignKey("user.id", ondelete="CASCADE"), primary_key=True),
    Column("group_id", ForeignKey("group.id", ondelete="CASCADE"), primary_key=True),
)
user_divisions = Table(
    "user_division",
    db.metadata,
    Column("user_id", ForeignKey("user.id", ondelete="CASCADE"), primary_key=True),
    Column("division_id", ForeignKey("division.id", ondelete="CASCADE"), primary_key=True),
)


class Group(InstanceScoped, db.Model):
    """A named set of roles inside one instance."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    roles: Mapped[list[str]] = mapped_column(JSON, default=list)


class User(UserMixin, TimestampMixin, db.Model):
    """A person who signs in. The e-mail address is the username."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(200))
    firstname: Mapped[str] = mapped_column(String(100), default="")
    lastname: Mapped[str] = mapped_column(String(100), default="")
    phone_number: Mapped[str | None] = mapped_column(String(40))
    login_type: Mapped[str] = mapped_column(String(20), default="default")
    roles: Mapped[list[str]] = mapped_column(JSON, default=list)
    modules: Mapped[list[str]] = mapped_column(JSON, default=list)
    options: Mapped[dict] = mapped_column(JSON, default=dict)
    is_global: Mapped[bool] = mapped_column(default=False)
    all_divisions: Mapped[bool] = mapped_column(default=False)
    active: Mapped[bool] = mapped_column(default=True)
    # Changes whenever the password changes, so that every older session ends.
    session_nonce: Mapped[str] = mapped_column(String(32), default=lambda: secrets.token_hex(8))
    home_instance_id: Mapped[int | None] = mapped_column(
        ForeignKey("instance.id", ondelete="SET NULL")
    )
    active_instance_id: Mapped[int | None] = mapped_column(
        ForeignKey("instance.id", ondelete="SET NULL")
    )

    instances: Mapped[list[Instance]] = relationship(
        secondary=user_instances, order_by=Instance.company_name
    )
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

    def all_roles(self) -> set[str]:
        """Return the user's roles, direct and through groups of the active instance, limited
        by the impersonator's roles while someone acts as this user."""
        roles = set(self.roles or [])
        for group in self.groups:
            if group.instance_id == self.active_instance_id:
                roles.update(group.roles or [])
        ceiling = g.get("role_ceiling") if has_app_context() else None
        if ceiling is not None and g.get("impersonator") is not self:
            roles &= ceiling
        return roles

    def has_role(self, role: str) -> bool:
        return role in self.all_roles()


class PasswordResetToken(db.Model):
    """A single-use reset link; only the SHA-256 of the token is stored."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    user: Mapped[User] = relationship()


class UserSession(db.Model):
    """A signed-in session, so that the server can end it: the cookie carries a random id,
    only its SHA-256 is stored. Logging out revokes the row; "sign out everywhere" revokes every
    row of the user; a revoked or expired row signs nobody in."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class AuthThrottle(db.Model):
    """Failed attempts per key (an account or an address) inside the current window."""

    __table_args__ = (UniqueConstraint("key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(300))
    failures: Mapped[int] = mapped_column(default=0)
    first_failure_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_failure_at: Mapped[datetime] = mapped_column(UTCDateTime)
