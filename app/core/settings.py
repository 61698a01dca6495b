"""Settings an administrator enters that the whole product reads: holidays (app.core.workdays),
tags (app.preparation.tags), and the setting rows of the simpler admin screens (actions, providers, rules, wizards, ...).
They live below the features, which read them; the admin screens that write them are above."""

from datetime import date

from sqlalchemy import JSON, Boolean, Date, ForeignKey, Integer, String, Text, select
from sqlalchemy.orm import Mapped, mapped_column

from app.core.division_settings import DivisionSetting
from app.core.localized import Named
from app.core.models import InstanceScoped
from app.extensions import db


class Holiday(InstanceScoped, db.Model):
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    day: Mapped[date] = mapped_column(Date)
    name: Mapped[str] = mapped_column(String(100))
    country_id: Mapped[int | None] = mapped_column(ForeignKey("country.id", ondelete="CASCADE"))


class Tag(Named, InstanceScoped, db.Model):
    """A label users put on vehicles (admin/general/tags; app/preparation/tags.py)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(60))
    color: Mapped[str] = mapped_column(String(7), default="#4a6fa5")


class Address(InstanceScoped, db.Model):
    """A division's address (or the whole instance's, division None): where its cars stand
    for an advert and where a delivery hands one over (app/core/addresses.py)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    street: Mapped[str] = mapped_column(String(200), default="")
    postcode: Mapped[str] = mapped_column(String(20), default="")
    city: Mapped[str] = mapped_column(String(100), default="")
    division_id: Mapped[int | None] = mapped_column(ForeignKey("division.id", ondelete="SET NULL"))


class NamedSetting:
    """What a setting row has, the instance's or the global one: `kind` is its admin screen,
    then a name, a description, an active flag and `data`, the screen's own details."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(40), index=True)
    name: Mapped[str] = mapped_column(String(120))
    description: Mapped[str] = mapped_column(Text, default="")
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    data: Mapped[dict] = mapped_column(JSON, default=dict)

    @classmethod
    def of_kind(cls, kind: str, *where, active_only: bool = True):
        """The rows of one kind (the active ones, unless `active_only` is False), by name: the
        active instance's where the rows are an instance's; `where`: further conditions."""
        if active_only:
            where = (cls.active.is_(True), *where)
        return db.session.scalars(
            select(cls).where(cls.kind == kind, *where).order_by(cls.name, cls.id)
        )


class SettingRow(NamedSetting, DivisionSetting, InstanceScoped, db.Model):
    """A setting of one of the instance's simpler admin screens (providers, event rules,
    booking calendars, actions, ...). The module's rules, rule interaction and add wizards may
    be one division's."""

    @classmethod
    def active_of(cls, instance_id: int, kind: str, *where, what=None):
        """The query of an instance's active rows of one kind (or `what` of them), read from
        any instance (jobs, mails, events); `where`: further conditions."""
        return (
            select(cls if what is None else what)
            .where(cls.instance_id == instance_id, cls.kind == kind, cls.active.is_(True), *where)
            .execution_options(all_instances=True)
        )


class GlobalSettingRow(NamedSetting, db.Model):
    """A setting of the global screens (properties, categories, service schedule): shared by
    every instance, changed only by holders of the screen's global role."""
