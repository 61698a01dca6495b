"""Vehicle preparation (begcare and newcare, one implementation with the module as a value)."""

import click
from flask import Blueprint

bp = Blueprint("preparation", __name__)
api_bp = Blueprint("preparation_api", __name__, url_prefix="/api")


@bp.cli.command("recount")
def recount_command() -> None:
    """Count the menus' vehicles per state and the statistics' monthly totals afresh from the
    rows: after rows were written past the app (a COPY, a restore, SQL by hand)."""
    from sqlalchemy import select

    from app.core.models import Instance
    from app.extensions import db
    from app.preparation import totals
    from app.preparation.services import recount

    for instance_id in db.session.scalars(select(Instance.id).order_by(Instance.id)):
        click.echo(f"instance {instance_id}: {recount(instance_id)} counters")
    totals.rebuild(db.session.connection())
    db.session.commit()
    click.echo("statistics' monthly totals rebuilt")


# Each area of the feature keeps its views in its own module; menu and viewer_parts add
# to the shell's menu and the viewer.
from app.preparation import (  # noqa: E402,F401
    admin,
    menu,
    routes_items,
    routes_lists,
    routes_locations,
    routes_manage,
    routes_overview,
    routes_recon,
    routes_salespeople,
    routes_specification,
    routes_statistics,
    routes_tags,
    viewer_parts,
)
