"""Selling a vehicle from its page (issue 37): the vehicle page offers "Sell on the market",
which opens the advert form filled from the vehicle, to a market seller who may add adverts;
once the vehicle has an advert that is not withdrawn, the page links to that advert instead."""

from dataclasses import dataclass

from flask import url_for
from sqlalchemy import select

from app.auth.viewer import viewer
from app.extensions import db
from app.market import bp
from app.market.models import Advert
from app.market.routes_adverts import may
from app.preparation.items import ARCHIVED
from app.preparation.models import PreparationItem

# An advert in any other status still holds the vehicle (a draft, on the market, or dealt).
ENDED = ("withdrawn",)


@dataclass(frozen=True)
class Sale:
    """What the vehicle page offers: `advert` set links to it, else `url` opens the form."""

    url: str
    advert: Advert | None = None


def live_advert(item_id: int) -> Advert | None:
    """The vehicle's newest advert of this instance that is not withdrawn."""
    return db.session.scalar(
        select(Advert)
        .where(Advert.item_id == item_id, Advert.status.not_in(ENDED))
        .order_by(Advert.id.desc())
        .limit(1)
    )


@bp.app_template_global("vehicle_sale")
def vehicle_sale(item: PreparationItem) -> Sale | None:
    """The vehicle page's market action, None for a viewer who may not sell this vehicle."""
    v = viewer()
    if (
        v is None
        or "market" not in v.modules
        or not may(v, "add")
        or item.state == ARCHIVED
        or item.division_id not in {d.id for d in v.visible_divisions}
    ):
        return None
    advert = live_advert(item.id)
    if advert is not None:
        return Sale(url_for("market.advert_page", advert_id=advert.id), advert)
    return Sale(url_for("market.advert_add", item_id=item.id))
