"""The ranking's admin screens at /admin/global/ranking/{seasons,tiers,leaderboard}. Read:
ROLE_GLOBAL_TIER_RANKING_READ (the menu's rule); change (and recompute the points): that role
and ROLE_ADMIN. A saved season is recomputed at once; a changed tier recomputes every season."""

from urllib.parse import quote

from flask import abort, flash, redirect, render_template
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup
from sqlalchemy import func, select

from app.admin.crud import Column, ConfirmForm, FormRefused, Screen, counts_by, guard, page_title
from app.core.audit import record
from app.core.models import Division, Instance
from app.core.times import moment
from app.extensions import db
from app.messages.forms import local, utc
from app.ranking import services as S
from app.ranking.forms import SeasonForm, TierForm
from app.ranking.jobs import refresh_rankings
from app.ranking.models import RankingPoints, RankingSeason, RankingTier
from app.ranking.routes import chosen_season

LEADERBOARD = "global/ranking/leaderboard"


def _unique(model, column, value, row, field: str, message: str) -> dict[str, str]:
    clash = db.session.scalar(select(model).where(column == value))
    return {field: message} if clash is not None and clash is not row else {}


# --- seasons ---------------------------------------------------------------------------------


def _season_name(season: RankingSeason, extra: dict):
    if season.id != extra.get("current"):
        return season.identifier
    return Markup('{} <span class="badge badge-success">{}</span>').format(
        season.identifier, _("Current")
    )


def _season_extra(rows, v) -> dict:
    ranked = counts_by(RankingPoints.season_id, rows, all_instances=True)
    current = S.current_season()
    return {"ranked": ranked, "current": current.id if current else None}


def _load_season(form: SeasonForm, season: RankingSeason) -> None:
    form.identifier.data = season.identifier
    form.start_at.data = local(season.start_at)
    form.end_at.data = local(season.end_at)


def _save_season(season: RankingSeason, form: SeasonForm, v) -> None:
    identifier = form.identifier.data.strip()
    clash = _unique(
        RankingSeason, func.lower(RankingSeason.identifier), identifier.lower(), season,
        "identifier", _("Another season has this identifier."),
    )  # fmt: skip
    if clash:
        raise FormRefused(clash)
    season.identifier = identifier
    season.start_at = utc(form.start_at.data)
    season.end_at = utc(form.end_at.data)


SEASONS = Screen(
    path="global/ranking/seasons",
    noun=_l("season"),
    model=RankingSeason,
    form=SeasonForm,
    columns=(
        Column(_l("Identifier"), _season_name, with_extra=True),
        Column(_l("Starts"), lambda s: moment(s.start_at), "nowrap"),
        Column(_l("Ends"), lambda s: moment(s.end_at), "nowrap"),
        Column(_l("Divisions ranked"), lambda s, e: e["ranked"].get(s.id, 0), "num", True),
    ),
    intro=_l(
        "In each season the divisions of every company collect points from their vehicles: prepared for the showroom (more when on time), sold, and sold on the market. The points are recomputed every few minutes."
    ),
    order_by=(RankingSeason.start_at.desc(), RankingSeason.id.desc()),
    label=lambda s: s.identifier,
    load=_load_season,
    save=_save_season,
    after_save=lambda season, created, v: S.refresh_season(season),
    delete_consequences=lambda s: [_("The points of its divisions are deleted with it.")],
    list_extra=_season_extra,
    row_links=(
        (
            _l("Leaderboard"),
            lambda s: f"/admin/{LEADERBOARD}?season={quote(s.identifier, safe='')}",
        ),
    ),
    list_actions=((_l("Recompute the points now"), "/admin/global/ranking/seasons/refresh"),),
    empty=_l("No seasons yet."),
)


def refresh_seasons():
    """Recompute the points of every season now (they are recomputed every few minutes)."""
    SEASONS.guard(write=True)
    if not ConfirmForm().validate_on_submit():
        abort(400)

    result = refresh_rankings(every_season=True)
    record("ranking.refresh", seasons=result)
    db.session.commit()
    flash(_("The points of every season are recomputed."), "success")
    return redirect(SEASONS.url)


# --- tiers -----------------------------------------------------------------------------------


def _refresh_all(*_args) -> None:
    """The tiers and positions of every season follow the new thresholds."""
    for season in S.seasons():
        S.refresh_season(season)


def _tier_extra(rows, v) -> dict:
    ordered = S.tiers()
    return {"up_to": {t.id: n.min_points - 1 for t, n in zip(ordered, ordered[1:], strict=False)}}


def _save_tier(tier: RankingTier, form: TierForm, v) -> None:
    name = form.name.data.strip()
    clashes = {
        **_unique(
            RankingTier, func.lower(RankingTier.name), name.lower(), tier,
            "name", _("Another tier has this name."),
        ),
        **_unique(
            RankingTier, RankingTier.min_points, form.min_points.data, tier,
            "min_points", _("Another tier starts at these points."),
        ),
    }  # fmt: skip
    if clashes:
        raise FormRefused(clashes)
    tier.name = name
    tier.name_texts = form.name_texts.data or {}
    tier.min_points = form.min_points.data


TIERS = Screen(
    path="global/ranking/tiers",
    noun=_l("tier"),
    model=RankingTier,
    form=TierForm,
    columns=(
        Column(_l("Name"), "name"),
        Column(_l("Points from"), "min_points", "num"),
        Column(_l("Points up to"), lambda t, e: e["up_to"].get(t.id), "num", True),
    ),
    intro=_l(
        "A division's tier follows its points in the season: from a tier's points up to the next tier's."
    ),
    order_by=(RankingTier.min_points,),
    save=_save_tier,
    after_save=_refresh_all,
    after_delete=_refresh_all,
    delete_consequences=lambda t: [_("Its divisions move to the tier below.")],
    list_extra=_tier_extra,
    empty=_l("No tiers yet."),
)


# --- leaderboard -------------------------------------------------------------------------------


def leaderboard():
    """Every division of every company in one season, best first, with the tier shares."""
    guard(LEADERBOARD)
    all_seasons = S.seasons()
    season = chosen_season(all_seasons)
    names = dict(
        db.session.execute(
            select(Division.id, Division.name).execution_options(all_instances=True)
        ).all()
    )
    companies = dict(db.session.execute(select(Instance.id, Instance.company_name)).all())
    return render_template(
        "ranking/leaderboard.html",
        screen_title=page_title(LEADERBOARD),
        seasons=all_seasons,
        season=season,
        rows=S.standings(season) if season else [],
        names=names,
        companies=companies,
        statistics=S.global_statistics(season),
        show_company=True,
        form_action=f"/admin/{LEADERBOARD}",
    )


RANKING_SCREENS = (SEASONS, TIERS)


def register_routes(bp) -> None:
    bp.add_url_rule(f"{SEASONS.url}/refresh", "ranking_refresh", refresh_seasons, methods=["POST"])
    bp.add_url_rule(f"/admin/{LEADERBOARD}", "ranking_leaderboard", leaderboard)
