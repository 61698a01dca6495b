"""What the market adds to the viewer (app.auth.viewer): the instance's market flags."""

from dataclasses import dataclass

from sqlalchemy import select

from app.auth.viewer import menu_sources, snapshot_part
from app.extensions import db
from app.market.models import InstanceGroup


@dataclass(frozen=True)
class MarketFlags:
    buyer: bool
    seller: bool
    enable_vehicle_request: bool


@snapshot_part("market_group")
def market_group(user, instance) -> MarketFlags | None:
    """The instance's market group's flags (`v.market_group`), None without one."""
    group = db.session.scalars(select(InstanceGroup).order_by(InstanceGroup.id)).first()
    return MarketFlags(group.buyer, group.seller, group.enable_vehicle_request) if group else None


menu_sources(InstanceGroup)
