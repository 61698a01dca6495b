"""Shared model mixins and the organisation tree: instance, country, region, division."""

import secrets
from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Table,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, declared_attr, mapped_column, relationship

from app.extensions import db


def new_version() -> int:
    """A fresh random version. Not a counter: a rolled-back transaction would hand its number
    back, and whatever a cache stored under it during that transaction would look current."""
    return secrets.randbelow(2**31 - 1) + 1


def utcnow() -> datetime:
    """Return the current time, timezone-aware in UTC."""
    return datetime.now(UTC)


def link_table(name: str, left: str, right: str) -> Table:
    """The table that links rows of `left` and `right` many to many: the pair of ids
    (`<left>_id`, `<right>_id`) is its key, and a link goes with the row at either end."""
    return Table(
        name,
        db.metadata,
        Column(f"{left}_id", ForeignKey(f"{left}.id", ondelete="CASCADE"), primary_key=True),
        Column(f"{right}_id", ForeignKey(f"{right}.id", ondelete="CASCADE"), primary_key=True),
    )


class UTCDateTime(db.TypeDecorator):
    """A timestamp stored in UTC and always read back timezone-aware (SQLite forgets the zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetimes are not stored")
        return value.astimezone(UTC) if value is not None else None

    def process_result_value(self, value, dialect):
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


class TimestampMixin:
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    modified_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class InstanceScoped:
    """Rows of one instance (tenant). Every ORM select on such a model is filtered to the
    active instance by app.core.tenancy; a row created in a request gets that instance."""

    @declared_attr
    def instance_id(cls) -> Mapped[int]:  # noqa: N805
        return mapped_column(ForeignKey("instance.id", ondelete="CASCADE"), index=True)


class Instance(TimestampMixin, db.Model):
    """A customer company (tenant)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_name: Mapped[str] = mapped_column(String(200))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    # Module options ({"begcare": {"leads": true, ...}}) and configuration flags
    # ({"configuration": {"enable_my_events": true}}).
    options: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    # Renewed whenever what the menus show (menu_version) or the vehicle counts (counts_version)
    # change, so that every worker's shell cache sees the change on its next page.
    menu_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    counts_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Renewed whenever a notification of the instance is added or read
    # (app/core/notifications.py): the shell's bell counts are cached per user under it.
    notices_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    def module_option(self, module: str, name: str, default: bool = True) -> bool:
        return bool(((self.options or {}).get(module) or {}).get(name, default))

    def configuration(self, name: str, default: bool = False) -> bool:
        return bool(((self.options or {}).get("configuration") or {}).get(name, default))

    def to_api(self) -> dict:
        return {"id": self.id, "companyName": self.company_name, "active": self.active}


class Country(InstanceScoped, db.Model):
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(2))
    name: Mapped[str] = mapped_column(String(100))
    milage_unit: Mapped[str] = mapped_column(String(2), default="km")
    currency: Mapped[str] = mapped_column(String(3))
    locale: Mapped[str] = mapped_column(String(5))

    regions: Mapped[list["Region"]] = relationship(back_populates="country", order_by="Region.name")


class Region(InstanceScoped, db.Model):
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    slug: Mapped[str] = mapped_column(String(100))
    country_id: Mapped[int] = mapped_column(
        ForeignKey("country.id", ondelete="CASCADE"), index=True
    )

    country: Mapped[Country] = relationship(back_populates="regions")
    divisions: Mapped[list["Division"]] = relationship(
        back_populates="region", order_by="Division.name"
    )


class Division(InstanceScoped, db.Model):
    """A dealership site."""

    __table_args__ = (UniqueConstraint("instance_id", "slug"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    slug: Mapped[str] = mapped_column(String(100))
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    region_id: Mapped[int] = mapped_column(ForeignKey("region.id", ondelete="CASCADE"), index=True)
    options: Mapped[dict] = mapped_column(JSON, default=dict)

    region: Mapped[Region] = relationship(back_populates="divisions")

    def to_api(self) -> dict:
        return {"id": self.id, "name": self.name, "disabled": self.disabled, "slug": self.slug}
