"""The market presence of a company: its instance group with buyer and seller flags."""

import secrets

from sqlalchemy import JSON, Boolean, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.models import InstanceScoped, TimestampMixin
from app.extensions import db


def public_hash() -> str:
    """A random token of 128 bits for public links."""
    return secrets.token_urlsafe(16)


class InstanceGroup(InstanceScoped, TimestampMixin, db.Model):
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    buyer: Mapped[bool] = mapped_column(Boolean, default=False)
    seller: Mapped[bool] = mapped_column(Boolean, default=False)
    currency: Mapped[str] = mapped_column(String(3))
    country_code: Mapped[str] = mapped_column(String(2))
    hash: Mapped[str] = mapped_column(String(32), unique=True, default=public_hash)
    options: Mapped[dict] = mapped_column(JSON, default=dict)

    @property
    def enable_vehicle_request(self) -> bool:
        return bool(((self.options or {}).get("market") or {}).get("enableVehicleRequest"))
