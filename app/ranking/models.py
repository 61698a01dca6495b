"""The ranking: seasons, tiers and each division's points per season (computed, see jobs)."""

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.core.models import Division, InstanceScoped, UTCDateTime, utcnow
from app.extensions import db


class RankingSeason(db.Model):
    """A period the divisions of every instance compete in: [start_at, end_at)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    identifier: Mapped[str] = mapped_column(String(50), unique=True)
    start_at: Mapped[datetime] = mapped_column(UTCDateTime)
    end_at: Mapped[datetime] = mapped_column(UTCDateTime)

    def to_api(self) -> dict:
        return {
            "identifier": self.identifier,
            "startAt": self.start_at.isoformat(),
            "endAt": self.end_at.isoformat(),
        }


class RankingTier(db.Model):
    """A tier: every division with at least `min_points` (and less than the next tier's)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(50), unique=True)
    # The name per language, {tag: text} (app.core.localized); `name` is the last fall-back.
    name_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    min_points: Mapped[int] = mapped_column(Integer, unique=True)


class RankingPoints(InstanceScoped, db.Model):
    """One division's standing in one season, as the last refresh computed it."""

    __table_args__ = (UniqueConstraint("season_id", "division_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    season_id: Mapped[int] = mapped_column(
        ForeignKey("ranking_season.id", ondelete="CASCADE"), index=True
    )
    division_id: Mapped[int] = mapped_column(
        ForeignKey("division.id", ondelete="CASCADE"), index=True
    )
    tier_id: Mapped[int | None] = mapped_column(ForeignKey("ranking_tier.id", ondelete="SET NULL"))
    points: Mapped[int] = mapped_column(Integer, default=0)
    new_points: Mapped[int] = mapped_column(Integer, default=0)
    progress: Mapped[int] = mapped_column(Integer, default=0)  # percent towards the next tier
    position: Mapped[int] = mapped_column(Integer, default=0)  # within the tier
    overall_position: Mapped[int] = mapped_column(Integer, default=0)
    computed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    season: Mapped[RankingSeason] = relationship()
    division: Mapped[Division] = relationship()
    tier: Mapped[RankingTier | None] = relationship()
