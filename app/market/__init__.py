"""The market: adverts, bids, invitations and the public pages for bidders and sellers."""

from flask import Blueprint

bp = Blueprint("market", __name__)
api_bp = Blueprint("market_api", __name__, url_prefix="/api")

# Each area of the feature keeps its views in its own module; viewer_parts adds to the viewer.
from app.market import (  # noqa: E402,F401
    formatting,
    public_bid,
    public_bid_calls,
    public_invite,
    public_reserve,
    routes_admin,
    routes_advert_form,
    routes_adverts,
    routes_passport,
    routes_watch,
    vehicle_sale,
    viewer_parts,
)
