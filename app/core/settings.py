"""Settings an administrator enters that the whole product reads: holidays (app.core.workdays),
tags (app.preparation.tags), and the setting rows of the simpler admin screens (actions, providers, rules, wizards, ...).
They live below the features, which read them; the admin screens that write them are above."""

from datetime import date

from sqlalchemy import JSON, Boolean, Date, ForeignKey, Integer, String, Text
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


class SettingRow(DivisionSetting, InstanceScoped, db.Model):
    """A named, described setting of one of the instance's simpler admin screens (providers,
    event rules, booking calendars, actions, ...): `kind` is the screen, `data` its details.
    The module's rules, rule interaction and add wizards may be one division's."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(40), index=True)
    name: Mapped[str] = mapped_column(String(120))
    description: Mapped[str] = mapped_column(Text, default="")
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    data: Mapped[dict] = mapped_column(JSON, default=dict)


class GlobalSettingRow(db.Model):
    """The same for the global screens (properties, categories, service schedule): shared by
    every instance, changed only by holders of the screen's global role."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(40), index=True)
    name: Mapped[str] = mapped_column(String(120))
    description: Mapped[str] = mapped_column(Text, default="")
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    data: Mapped[dict] = mapped_column(JSON, default=dict)
