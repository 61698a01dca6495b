"""The ranking: the points rule, tiers and positions, seasons and the division summary.

The points rule (docs/decisions.md, "Ranking"), per division and season, counting each vehicle
once per kind:
- PREPARED (10): a vehicle that reached the showroom (state 6) during the season;
- ON_TIME (5 more): ... when it got there within ON_TIME_DAYS of its arrival (its first state
  event, else its creation);
- SOLD (20): a vehicle moved to sold (state 7) during the season;
- MARKET_SALE (15): a market advert of the vehicle marked sold during the season.
`newPoints` are the points of the last NEW_DAYS days. Every refresh recomputes from the events,
so a season's figures never drift from the history.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from flask import has_request_context
from sqlalchemy import and_, func, select
from sqlalchemy.orm import aliased

from app.auth.viewer import viewer
from app.core.localized import for_reader
from app.core.models import Division, Instance, utcnow
from app.extensions import db
from app.market.models import Advert
from app.preparation.models import ItemStateEvent, PreparationItem
from app.ranking.models import RankingPoints, RankingSeason, RankingTier

PREPARED, ON_TIME, SOLD, MARKET_SALE = 10, 5, 20, 15
ON_TIME_DAYS = 14
NEW_DAYS = 7
SHOWROOM, SOLD_STATE = 6, 7
ALL = {"all_instances": True}


# --- the points rule -----------------------------------------------------------------------


@dataclass(frozen=True)
class Showroom:
    """A vehicle's first move to the showroom in a period, and when it arrived."""

    division_id: int
    reached_at: datetime
    arrived_at: datetime


@dataclass
class Tally:
    """One division's scoring events in a period."""

    showroom: list[Showroom] = field(default_factory=list)
    sold: int = 0
    market_sales: int = 0


def points_of(tally: Tally) -> int:
    """The points rule over one division's events."""
    total = 0
    for event in tally.showroom:
        total += PREPARED
        if event.reached_at - event.arrived_at <= timedelta(days=ON_TIME_DAYS):
            total += ON_TIME
    return total + SOLD * tally.sold + MARKET_SALE * tally.market_sales


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def tallies(start: datetime, end: datetime) -> dict[int, Tally]:
    """The scoring events of every division of every instance in [start, end)."""
    result: dict[int, Tally] = defaultdict(Tally)
    E, V = ItemStateEvent, PreparationItem
    in_period = and_(E.created_at >= start, E.created_at < end)
    # The vehicle's first event, looked up per vehicle of the period by its index
    # (ix_state_event_item), not the first event of every vehicle ever (issue 34).
    first = aliased(ItemStateEvent)
    first_at = select(func.min(first.created_at)).where(first.item_id == V.id).scalar_subquery()
    showroom = (
        select(V.id, V.division_id, func.min(E.created_at), first_at, V.created_at)
        .join(E, E.item_id == V.id)
        .where(E.to_state == SHOWROOM, in_period)
        .group_by(V.id, V.division_id, V.created_at)
    )
    for _id, division_id, reached, first_at, created in db.session.execute(
        showroom.execution_options(**ALL)
    ):
        arrived = _aware(first_at or created)
        result[division_id].showroom.append(Showroom(division_id, _aware(reached), arrived))
    sold = (
        select(V.division_id, func.count(func.distinct(V.id)))
        .join(E, E.item_id == V.id)
        .where(E.to_state == SOLD_STATE, in_period)
        .group_by(V.division_id)
    )
    for division_id, count in db.session.execute(sold.execution_options(**ALL)):
        result[division_id].sold = count
    market = (
        select(V.division_id, func.count(func.distinct(Advert.id)))
        .join(V, V.id == Advert.item_id)
        .where(Advert.status == "sold", Advert.sold_at >= start, Advert.sold_at < end)
        .group_by(V.division_id)
    )
    for division_id, count in db.session.execute(market.execution_options(**ALL)):
        result[division_id].market_sales = count
    return result


# --- tiers and positions -------------------------------------------------------------------


def tiers() -> list[RankingTier]:
    """The tiers, lowest threshold first."""
    return db.session.scalars(select(RankingTier).order_by(RankingTier.min_points)).all()


def tier_for(points: int, ordered: list[RankingTier]) -> tuple[RankingTier | None, int]:
    """The tier a score falls in and the progress (percent) towards the next one."""
    current, following = None, None
    for tier in ordered:
        if tier.min_points <= points:
            current = tier
        elif following is None:
            following = tier
    if following is None:
        return current, 100
    low = current.min_points if current else 0
    span = max(following.min_points - low, 1)
    return current, max(0, min(99, (points - low) * 100 // span))


def positions(scores: dict[int, int]) -> dict[int, int]:
    """Standard competition ranking (1, 2, 2, 4): equal points share a position."""
    ordered = sorted(scores.values(), reverse=True)
    first = {}
    for index, value in enumerate(ordered, start=1):
        first.setdefault(value, index)
    return {key: first[value] for key, value in scores.items()}


# --- seasons -------------------------------------------------------------------------------


def current_season(now: datetime | None = None) -> RankingSeason | None:
    now = now or utcnow()
    return db.session.scalars(
        select(RankingSeason)
        .where(RankingSeason.start_at <= now, RankingSeason.end_at > now)
        .order_by(RankingSeason.start_at.desc())
    ).first()


def previous_season(now: datetime | None = None) -> RankingSeason | None:
    now = now or utcnow()
    return db.session.scalars(
        select(RankingSeason)
        .where(RankingSeason.end_at <= now)
        .order_by(RankingSeason.end_at.desc())
    ).first()


def seasons() -> list[RankingSeason]:
    return db.session.scalars(select(RankingSeason).order_by(RankingSeason.start_at.desc())).all()


# --- the refresh ---------------------------------------------------------------------------


def refresh_season(season: RankingSeason, now: datetime | None = None) -> int:
    """Recompute every enabled division's points, tier and positions in one season; return the
    number of divisions ranked."""
    now = now or utcnow()
    end = min(season.end_at, now)
    divisions = db.session.execute(
        select(Division.id, Division.instance_id)
        .join(Instance, Instance.id == Division.instance_id)
        .where(Division.disabled.is_(False), Instance.active.is_(True))
        .execution_options(**ALL)
    ).all()
    whole = tallies(season.start_at, end) if end > season.start_at else {}
    recent_start = max(season.start_at, end - timedelta(days=NEW_DAYS))
    recent = tallies(recent_start, end) if end > recent_start else {}
    scores = {d: points_of(whole.get(d, Tally())) for d, _i in divisions}
    ordered = tiers()
    overall = positions(scores)
    by_tier: dict[int | None, dict[int, int]] = defaultdict(dict)
    placed = {}
    for division_id, points in scores.items():
        tier, progress = tier_for(points, ordered)
        placed[division_id] = (tier, progress)
        by_tier[tier.id if tier else None][division_id] = points
    in_tier = {}
    for group in by_tier.values():
        in_tier.update(positions(group))
    existing = {
        p.division_id: p
        for p in db.session.scalars(
            select(RankingPoints)
            .where(RankingPoints.season_id == season.id)
            .execution_options(**ALL)
        )
    }
    instance_of = dict(divisions)
    for division_id, points in scores.items():
        row = existing.pop(division_id, None)
        if row is None:
            row = RankingPoints(
                season_id=season.id, division_id=division_id, instance_id=instance_of[division_id]
            )
            db.session.add(row)
        tier, progress = placed[division_id]
        row.points = points
        row.new_points = points_of(recent.get(division_id, Tally()))
        row.tier_id = tier.id if tier else None
        row.progress = progress
        row.position = in_tier[division_id]
        row.overall_position = overall[division_id]
        row.computed_at = now
    for stale in existing.values():  # a division disabled since the last refresh
        db.session.delete(stale)
    db.session.flush()
    return len(scores)


def refresh(now: datetime | None = None, every_season: bool = False) -> dict[str, int]:
    """Refresh the current and the previous season (or every season); return divisions ranked
    per season identifier."""
    now = now or utcnow()
    if every_season:
        chosen = seasons()
    else:
        chosen = [s for s in (current_season(now), previous_season(now)) if s is not None]
    return {s.identifier: refresh_season(s, now) for s in chosen}


# --- reading -------------------------------------------------------------------------------


def standings(season: RankingSeason, instance_id: int | None = None) -> list[RankingPoints]:
    """A season's rows, best first; limited to one instance when given (else every instance)."""
    stmt = (
        select(RankingPoints)
        .join(Division, Division.id == RankingPoints.division_id)
        .where(RankingPoints.season_id == season.id)
        .order_by(RankingPoints.overall_position, Division.name)
        .execution_options(**ALL)
    )
    if instance_id is not None:
        stmt = stmt.where(RankingPoints.instance_id == instance_id)
    return db.session.scalars(stmt).all()


def global_statistics(season: RankingSeason | None) -> list[dict]:
    """The share (percent, one decimal) of all ranked divisions in each tier, lowest tier first."""
    if season is None:
        return []
    counts = dict(
        db.session.execute(
            select(RankingPoints.tier_id, func.count())
            .where(RankingPoints.season_id == season.id)
            .group_by(RankingPoints.tier_id)
            .execution_options(**ALL)
        ).all()
    )
    total = sum(counts.values())
    return [
        {
            "tier": for_reader(t.name_texts, t.name),
            "percentage": round(100 * counts.get(t.id, 0) / total, 1) if total else 0,
        }
        for t in tiers()
    ]


def _entry(row: RankingPoints, name: str) -> dict:
    return {
        "name": name,
        "season": row.season.identifier,
        "tier": for_reader(row.tier.name_texts, row.tier.name) if row.tier else None,
        "progress": row.progress,
        "points": row.points,
        "newPoints": row.new_points,
        "position": row.position,
        "overallPosition": row.overall_position,
    }


def _visible_ids() -> Iterable[int] | None:
    """The divisions the signed-in user may see, when called in a request (else no limit)."""
    if not has_request_context():
        return None

    v = viewer()
    return None if v is None else {d.id for d in v.visible_divisions}


def division_summary(division_id: int) -> dict | None:
    """The ranking summary of one division of the active instance (None when the division is
    in another instance or outside the signed-in user's divisions): divisionData (the current
    and the previous season's standing, when ranked), seasonData and globalStatistics."""
    if not 0 < division_id < 2**31:  # beyond an integer id column
        return None
    division = db.session.scalars(select(Division).where(Division.id == division_id)).first()
    visible = _visible_ids()
    if division is None or (visible is not None and division.id not in visible):
        return None
    now = utcnow()
    current, previous = current_season(now), previous_season(now)
    entries = []
    for season in (current, previous):
        if season is None:
            continue
        row = db.session.scalars(
            select(RankingPoints).where(
                RankingPoints.season_id == season.id, RankingPoints.division_id == division.id
            )
        ).first()
        if row is not None:
            entries.append(_entry(row, division.name))
    return {
        "divisionData": entries,
        "seasonData": {
            "current": current.to_api() if current else None,
            "previous": previous.to_api() if previous else None,
        },
        "globalStatistics": global_statistics(current or previous),
    }
