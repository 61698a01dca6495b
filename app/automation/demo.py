"""The event engine's demo rows: Nordbil's webhook endpoint to a receiver on the developer's own
machine (README, "Webhooks and event rules"), inactive until they start one and allow it."""

from sqlalchemy import select

from app.auth.models import User
from app.automation.models import WebhookEndpoint
from app.demo import seeder
from app.extensions import db

LOCAL_RECEIVER = "http://127.0.0.1:8001/"


@seeder(95)
def seed_webhook(ctx: dict) -> None:
    """One endpoint for the vehicle events, made by the administrator, switched off."""
    first = ctx["instances"][0]
    admin = db.session.scalars(select(User).where(User.email == "admin@demo.test")).one()
    db.session.add(
        WebhookEndpoint(
            instance_id=first.id, name="Lokal mottagare", url=LOCAL_RECEIVER,
            events=["vehicle.added", "vehicle.state_changed", "vehicle.sold"], active=False,
            created_by_id=admin.id,
        )
    )  # fmt: skip
    db.session.flush()
