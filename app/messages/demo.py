"""Demo system messages: one active alert and one active dialog for every user."""

from datetime import timedelta

from app.core.models import utcnow
from app.demo import seeder
from app.messages import services
from app.messages.models import SystemMessage

ALERT = {
    "type": "info",
    "message": "Planned maintenance on Sunday 06:00–07:00 UTC: DealerCare may be unavailable.",
    "description": "<p>We update the servers. Vehicles and bids are not affected.</p>",
    "show_as": "alert",
    "audience": "all",
}
MODAL = {
    "type": "success",
    "message": "New: the ranking of your divisions",
    "description": (
        "<p>Every division now collects points in a <strong>ranking season</strong>: vehicles "
        "prepared for the showroom (more when on time), sold vehicles and market sales.</p>"
        "<p>See where your divisions stand under <em>Ranking</em> in the user menu.</p>"
        "<ul><li>Points are recomputed every few minutes.</li>"
        "<li>A new season starts every quarter.</li></ul>"
    ),
    "show_as": "modal",
    "audience": "all",
}


@seeder(60)
def seed_system_messages(ctx: dict) -> None:
    """An active alert message and an active modal message, shown to everyone."""
    admin = ctx.get("users", {}).get("admin@demo.test")
    start = utcnow().replace(minute=0, second=0, microsecond=0) - timedelta(days=1)
    for values in (ALERT, MODAL):
        services.save(
            SystemMessage(),
            {**values, "started_at": start, "ended_at": start + timedelta(days=90)},
            admin.id if admin else None,
        )
