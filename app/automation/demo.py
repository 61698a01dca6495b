"""The event engine's demo rows: Nordbil's webhook endpoint to a receiver on the developer's own
machine (README, "Webhooks and event rules"), inactive until they start one and allow it; and
Nordbil Göteborg's module rule, run once."""

from sqlalchemy import select

from app.auth.models import User
from app.automation.models import WebhookEndpoint
from app.automation.rules import evaluate, rules_changed
from app.core.models import Division
from app.core.settings import SettingRow, Tag
from app.core.tenancy import activate
from app.demo import seeder
from app.extensions import db
from app.preparation.demo_names import name_texts

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


@seeder(96)
def seed_rule(ctx: dict) -> None:
    """Nordbil Göteborg's rule "parked more than 21 days": a warning in the lists, the tag
    Prisöversyn and a notification to the division's administrators; run once, so that the
    demo shows its tags, history entries and notifications (in each reader's language)."""
    first = ctx["instances"][0]
    activate(first.id)
    gothenburg = db.session.scalars(
        select(Division).where(Division.name == "Nordbil Göteborg")
    ).one()
    tag = Tag(
        instance_id=first.id,
        name="Prisöversyn",
        name_texts=name_texts("Prisöversyn"),
        color="#b54708",
    )
    db.session.add(tag)
    db.session.flush()
    conditions = [
        {"field": "state", "op": "is", "value": "parked"},
        {"field": "days_in_state", "op": "gt", "value": 21},
    ]
    db.session.add(
        SettingRow(
            instance_id=first.id, kind="begcare.rule", name="Parkerad mer än 21 dagar",
            description="Bilar som stått parkerade länge får en prisöversyn.",
            division_id=gothenburg.id, active=True,
            data={"conditions": conditions, "warning": "Dags för prisöversyn",
                  "warning_texts": name_texts("Dags för prisöversyn"), "tag": str(tag.id),
                  "name_texts": name_texts("Parkerad mer än 21 dagar"),
                  "move": "", "notify": "ROLE_USER_DIVISION_ADMIN", "event": ""},
        )
    )  # fmt: skip
    db.session.flush()
    rules_changed(first.id)
    evaluate(first.id, "begcare")
    activate(None)
