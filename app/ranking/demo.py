"""Demo ranking: four tiers, the current and the previous quarter as seasons, and the points of
every demo division computed from the demo vehicles' history."""

from datetime import UTC, datetime

from app.core.models import utcnow
from app.demo import seeder
from app.extensions import db
from app.ranking import services
from app.ranking.models import RankingSeason, RankingTier

TIERS = (("Bronze", 0), ("Silver", 100), ("Gold", 250), ("Platinum", 500))
# Each tier's name as the demo's administrators entered it in every language (app.core.localized).
TIER_TEXTS = {  # sv-SE, nb-NO, fi-FI, da-DK, de-DE, nl-NL; en-GB is the name
    "Bronze": ("Brons", "Bronse", "Pronssi", "Bronze", "Bronze", "Brons"),
    "Silver": ("Silver", "Sølv", "Hopea", "Sølv", "Silber", "Zilver"),
    "Gold": ("Guld", "Gull", "Kulta", "Guld", "Gold", "Goud"),
    "Platinum": ("Platina", "Platina", "Platina", "Platin", "Platin", "Platina"),
}
TEXT_TAGS = ("sv-SE", "nb-NO", "fi-FI", "da-DK", "de-DE", "nl-NL")


def quarter_start(moment: datetime, back: int = 0) -> datetime:
    index = (moment.year * 4 + (moment.month - 1) // 3) - back
    return datetime(index // 4, (index % 4) * 3 + 1, 1, tzinfo=UTC)


def quarter_name(start: datetime) -> str:
    return f"{start.year}-Q{(start.month - 1) // 3 + 1}"


@seeder(70)
def seed_ranking(ctx: dict) -> None:
    """Tiers, the previous and the current quarter as seasons, and every division's points."""
    db.session.add_all(
        RankingTier(
            name=n,
            min_points=p,
            name_texts={"en-GB": n, **dict(zip(TEXT_TAGS, TIER_TEXTS[n], strict=True))},
        )  # fmt: skip
        for n, p in TIERS
    )
    now = utcnow()
    for back in (1, 0):
        start, end = quarter_start(now, back), quarter_start(now, back - 1)
        db.session.add(RankingSeason(identifier=quarter_name(start), start_at=start, end_at=end))
    db.session.flush()
    services.refresh(now)
