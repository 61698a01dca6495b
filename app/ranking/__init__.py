"""The ranking: seasons, tiers, points per division, the leaderboard and the summary call."""

import click
from flask import Blueprint

from app.ranking.jobs import refresh_rankings

bp = Blueprint("ranking", __name__)
api_bp = Blueprint("ranking_api", __name__, url_prefix="/api")


@bp.cli.command("refresh")
@click.option("--every-season", is_flag=True, help="Recompute every season, not only the "
              "current and the previous one.")  # fmt: skip
def refresh_command(every_season: bool) -> None:
    """Recompute the ranking's points, tiers and positions."""
    for season, count in refresh_rankings(every_season).items():
        click.echo(f"{season}: {count} divisions ranked")


# Each area of the feature keeps its views in its own module.
from app.ranking import api, routes  # noqa: E402,F401
