"""The leaderboard every user of an instance may open: /ranking (linked from the user menu)."""

from flask import abort, render_template, request
from flask_babel import gettext as _
from sqlalchemy import select

from app.auth.viewer import viewer
from app.core.models import Division
from app.extensions import db
from app.preparation.models import PreparationItem
from app.ranking import bp
from app.ranking import services as S
from app.ranking.models import RankingSeason


def chosen_season(seasons: list[RankingSeason]) -> RankingSeason | None:
    """?season=<identifier>, else the current season, else the latest."""
    wanted = request.args.get("season")
    if wanted:
        found = next((s for s in seasons if s.identifier == wanted), None)
        if found is None:
            abort(404)
        return found
    return S.current_season() or (seasons[0] if seasons else None)


@bp.get("/ranking")
def leaderboard():
    """The chosen season's standings of the divisions of the user's active instance, with their
    positions among every ranked division, and the share of divisions per tier."""
    v = viewer()
    all_seasons = S.seasons()
    season = chosen_season(all_seasons)
    instance_id = v.instance.id if v.instance else -1
    rows = S.standings(season, instance_id) if season else []
    names = dict(db.session.execute(select(Division.id, Division.name)).all())
    return render_template(
        "ranking/leaderboard.html",
        screen_title=_("Ranking"),
        subpage=_("Ranking"),
        seasons=all_seasons,
        season=season,
        rows=rows,
        names=names,
        companies={},
        statistics=S.global_statistics(season),
        show_company=False,
        form_action="/ranking",
        own=set(d.id for d in v.visible_divisions),
    )


@bp.app_context_processor
def _summary_props():
    return {"tier_summary_props": tier_summary_props}


def tier_summary_props() -> dict:
    """Props of the tier-summary island: the user's divisions (stop-showing marks them all)
    and, on an item-manage page, the item's division (the summary then runs for it)."""
    v = viewer()
    visible = [d.id for d in v.visible_divisions] if v else []
    manage = None
    if request.endpoint == "preparation.item_page" and request.view_args:
        division_id = db.session.scalar(
            select(PreparationItem.division_id).where(
                PreparationItem.id == request.view_args.get("item_id")
            )
        )
        manage = division_id if division_id in visible else None
    return {"divisionIds": visible, "manageDivisionId": manage}
