"""The market: adverts, bids, invitations and the public pages for bidders and sellers."""

import click
from flask import Blueprint

bp = Blueprint("market", __name__)
api_bp = Blueprint("market_api", __name__, url_prefix="/api")


@bp.cli.command("recount-bids")
def recount_bids_command() -> None:
    """Count the bids per seller, buyer and month (the statistics' rows) afresh from the bids:
    after bids were written past the app (a COPY, a restore, SQL by hand)."""
    from sqlalchemy import func, select

    from app.extensions import db
    from app.market import bid_totals
    from app.market.models import AdvertBidMonth

    bid_totals.recount()
    db.session.commit()
    rows = db.session.scalar(
        select(func.count(AdvertBidMonth.id)).execution_options(all_instances=True)
    )
    click.echo(f"{rows} rows of bids per seller, buyer and month")


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
