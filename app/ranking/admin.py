"""Admin screens of the ranking at /admin/global/ranking/{seasons,tiers,leaderboard}. Read:
ROLE_GLOBAL_TIER_RANKING_READ; change (and refresh the points): that role and ROLE_ADMIN."""

from flask import abort, flash, redirect, render_template, request
from flask_babel import gettext as _
from sqlalchemy import func, select

from app.core.audit import record
from app.core.models import Division, Instance
from app.extensions import db
from app.messages.access import can_write, get_row, global_entry, guard
from app.messages.forms import local, utc
from app.preparation.admin_forms import ConfirmDeleteForm
from app.ranking import bp
from app.ranking import services as S
from app.ranking.forms import SeasonForm, TierForm
from app.ranking.models import RankingPoints, RankingSeason, RankingTier

SEASONS = "/admin/global/ranking/seasons"
TIERS = "/admin/global/ranking/tiers"
LEADERBOARD = "/admin/global/ranking/leaderboard"
FORM_METHODS = ["GET", "POST"]


def _page(template: str, path: str, v, **context):
    _, entry = global_entry(path)
    return render_template(
        template, screen_title=entry.title, list_url=path, can_change=can_write(v, path), **context
    )


def _found(model, object_id: int):
    obj = get_row(model, object_id)
    if obj is None:
        abort(404)
    return obj


def chosen_season(seasons: list[RankingSeason]) -> RankingSeason | None:
    """?season=<identifier>, else the current season, else the latest."""
    wanted = request.args.get("season")
    if wanted:
        found = next((s for s in seasons if s.identifier == wanted), None)
        if found is None:
            abort(404)
        return found
    return S.current_season() or (seasons[0] if seasons else None)


# --- seasons -------------------------------------------------------------------------------


@bp.get(SEASONS)
def seasons():
    v = guard(SEASONS)
    rows = S.seasons()
    ranked = dict(
        db.session.execute(
            select(RankingPoints.season_id, func.count())
            .group_by(RankingPoints.season_id)
            .execution_options(all_instances=True)
        ).all()
    )
    current = S.current_season()
    return _page(
        "ranking/admin_seasons.html",
        SEASONS,
        v,
        rows=rows,
        ranked=ranked,
        current_id=current.id if current else None,
        refresh_form=ConfirmDeleteForm(),
    )


def _season_unique(form: SeasonForm, season: RankingSeason | None) -> bool:
    identifier = form.identifier.data.strip()
    clash = db.session.scalar(
        select(RankingSeason).where(func.lower(RankingSeason.identifier) == identifier.lower())
    )
    if clash is not None and clash is not season:
        form.identifier.errors = [_("Another season has this identifier.")]
        return False
    return True


def _season_form(v, season: RankingSeason | None):
    form = SeasonForm()
    if season is not None and not form.is_submitted():
        form.identifier.data = season.identifier
        form.start_at.data = local(season.start_at)
        form.end_at.data = local(season.end_at)
    if form.validate_on_submit() and _season_unique(form, season):
        created = season is None
        season = season or RankingSeason()
        season.identifier = form.identifier.data.strip()
        season.start_at = utc(form.start_at.data)
        season.end_at = utc(form.end_at.data)
        db.session.add(season)
        db.session.flush()
        S.refresh_season(season)
        record(
            f"ranking.season.{'create' if created else 'update'}",
            season_id=season.id,
            identifier=season.identifier,
        )
        db.session.commit()
        flash(_("The season is saved."), "success")
        return redirect(SEASONS)
    subpage = _("New season") if season is None else _("Edit season")
    return _page("ranking/admin_form.html", SEASONS, v, form=form, subpage=subpage)


@bp.route(f"{SEASONS}/new", methods=FORM_METHODS)
def season_new():
    return _season_form(guard(SEASONS, write=True), None)


@bp.route(f"{SEASONS}/<int:season_id>/edit", methods=FORM_METHODS)
def season_edit(season_id: int):
    return _season_form(guard(SEASONS, write=True), _found(RankingSeason, season_id))


@bp.route(f"{SEASONS}/<int:season_id>/delete", methods=FORM_METHODS)
def season_delete(season_id: int):
    v = guard(SEASONS, write=True)
    season = _found(RankingSeason, season_id)
    form = ConfirmDeleteForm()
    if form.validate_on_submit():
        record("ranking.season.delete", season_id=season.id, identifier=season.identifier)
        db.session.delete(season)
        db.session.commit()
        flash(_("The season is deleted."), "success")
        return redirect(SEASONS)
    return _page(
        "ranking/admin_delete.html",
        SEASONS,
        v,
        form=form,
        subpage=_("Delete season"),
        name=season.identifier,
        consequence=_("The points of its divisions are deleted with it."),
    )


@bp.post(f"{SEASONS}/refresh")
def seasons_refresh():
    guard(SEASONS, write=True)
    if not ConfirmDeleteForm().validate_on_submit():
        abort(400)
    from app.ranking.jobs import refresh_rankings

    result = refresh_rankings(every_season=True)
    record("ranking.refresh", seasons=result)
    db.session.commit()
    flash(_("The points of every season are recomputed."), "success")
    return redirect(SEASONS)


# --- tiers ---------------------------------------------------------------------------------


@bp.get(TIERS)
def tiers():
    v = guard(TIERS)
    return _page("ranking/admin_tiers.html", TIERS, v, rows=S.tiers())


def _tier_unique(form: TierForm, tier: RankingTier | None) -> bool:
    ok = True
    name = form.name.data.strip()
    clash = db.session.scalar(
        select(RankingTier).where(func.lower(RankingTier.name) == name.lower())
    )
    if clash is not None and clash is not tier:
        form.name.errors = [_("Another tier has this name.")]
        ok = False
    clash = db.session.scalar(
        select(RankingTier).where(RankingTier.min_points == form.min_points.data)
    )
    if clash is not None and clash is not tier:
        form.min_points.errors = [_("Another tier starts at these points.")]
        ok = False
    return ok


def _refresh_all() -> None:
    for season in S.seasons():
        S.refresh_season(season)


def _tier_form(v, tier: RankingTier | None):
    form = TierForm()
    if tier is not None and not form.is_submitted():
        form.name.data = tier.name
        form.min_points.data = tier.min_points
    if form.validate_on_submit() and _tier_unique(form, tier):
        created = tier is None
        tier = tier or RankingTier()
        tier.name = form.name.data.strip()
        tier.min_points = form.min_points.data
        db.session.add(tier)
        db.session.flush()
        _refresh_all()  # the tiers and positions of every season follow the new thresholds
        record(
            f"ranking.tier.{'create' if created else 'update'}",
            tier_id=tier.id,
            name=tier.name,
            min_points=tier.min_points,
        )
        db.session.commit()
        flash(_("The tier is saved."), "success")
        return redirect(TIERS)
    subpage = _("New tier") if tier is None else _("Edit tier")
    return _page("ranking/admin_form.html", TIERS, v, form=form, subpage=subpage)


@bp.route(f"{TIERS}/new", methods=FORM_METHODS)
def tier_new():
    return _tier_form(guard(TIERS, write=True), None)


@bp.route(f"{TIERS}/<int:tier_id>/edit", methods=FORM_METHODS)
def tier_edit(tier_id: int):
    return _tier_form(guard(TIERS, write=True), _found(RankingTier, tier_id))


@bp.route(f"{TIERS}/<int:tier_id>/delete", methods=FORM_METHODS)
def tier_delete(tier_id: int):
    v = guard(TIERS, write=True)
    tier = _found(RankingTier, tier_id)
    form = ConfirmDeleteForm()
    if form.validate_on_submit():
        record("ranking.tier.delete", tier_id=tier.id, name=tier.name)
        db.session.delete(tier)
        db.session.flush()
        _refresh_all()
        db.session.commit()
        flash(_("The tier is deleted."), "success")
        return redirect(TIERS)
    return _page(
        "ranking/admin_delete.html",
        TIERS,
        v,
        form=form,
        subpage=_("Delete tier"),
        name=tier.name,
        consequence=_("Its divisions move to the tier below."),
    )


# --- leaderboard ---------------------------------------------------------------------------


@bp.get(LEADERBOARD)
def admin_leaderboard():
    """Every division of every company in one season, best first, with the tier shares."""
    v = guard(LEADERBOARD)
    all_seasons = S.seasons()
    season = chosen_season(all_seasons)
    rows = S.standings(season) if season else []
    names = dict(
        db.session.execute(
            select(Division.id, Division.name).execution_options(all_instances=True)
        ).all()
    )
    companies = dict(db.session.execute(select(Instance.id, Instance.company_name)).all())
    return _page(
        "ranking/leaderboard.html",
        LEADERBOARD,
        v,
        seasons=all_seasons,
        season=season,
        rows=rows,
        names=names,
        companies=companies,
        statistics=S.global_statistics(season),
        show_company=True,
        form_action=LEADERBOARD,
    )
