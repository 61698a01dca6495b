"""The event engine: each announcement (app/core/happenings.py) goes to the webhook endpoints
that subscribe to its event, and through the instance's event rules (Administration > General >
Event engine): an e-mail to an address or to the users holding a role, or a webhook to a named
endpoint."""

import secrets
import time

from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field
from sqlalchemy import event, select
from sqlalchemy.orm import Session

from app.auth.models import User
from app.auth.services import active_members
from app.automation.models import WebhookEndpoint
from app.automation.webhooks import queue_all
from app.core.happenings import EVENTS, listener
from app.core.i18n import DEFAULT_LOCALE
from app.core.models import Instance, utcnow
from app.core.notifications import notify_all
from app.core.settings import SettingRow
from app.core.webhook_doc import declare_webhook
from app.extensions import db
from app.mail.services import send_mail

# The rule screen's names of the events (app/admin/settings.py EVENTS).
RULE_EVENTS = {
    "vehicle_added": "vehicle.added",
    "state_changed": "vehicle.state_changed",
    "vehicle_sold": "vehicle.sold",
    "advert_published": "advert.published",
    "advert_allocated": "advert.allocated",
    "task_overdue": "task.overdue",
    "bid_placed": "bid.placed",
    "rule_matched": "rule.matched",
    "task_approval_requested": "task.approval_requested",
}


# What each event is called on the screens and in the mails.
EVENT_NAMES = {
    "vehicle.added": _l("A vehicle is added"),
    "vehicle.state_changed": _l("A vehicle changes state"),
    "vehicle.sold": _l("A vehicle is sold"),
    "advert.published": _l("An advert is published"),
    "advert.allocated": _l("An advert is allocated"),
    "task.overdue": _l("A task is overdue"),
    "bid.placed": _l("A bid is placed"),
    "rule.matched": _l("A rule applies to a vehicle"),
    "task.approval_requested": _l("A task's estimate waits for approval"),
}

# Instances whose endpoints or event rules take bids, read at most every LISTENING_SECONDS per
# process (and at once after a change in this one): a bid without listeners reads nothing more.
LISTENING_SECONDS = 60
_bid_listeners: dict[int, tuple[float, bool]] = {}


class WebhookEvent(BaseModel):
    """The body of every webhook: which event, when, in which instance, and its facts."""

    id: str = Field(description="Unique per event: a receiver drops one it has seen")
    type: str = Field(json_schema_extra={"enum": list(EVENTS)})
    created: str = Field(description="When it happened (ISO 8601, UTC)")
    instance: int
    data: dict = Field(
        description="The event's facts: ids, names, numbers (vehicle: itemId, module, regno,"
        " state; advert: advertId, regno, currency, startPrice or price)"
    )


for _name in EVENTS:
    declare_webhook(_name, WebhookEvent)


def payload(name: str, instance_id: int, facts: dict) -> dict:
    return WebhookEvent(
        id=f"evt_{secrets.token_hex(12)}",
        type=name,
        created=utcnow().isoformat(),
        instance=instance_id,
        data=facts,
    ).model_dump()


@listener
def on_event(name: str, instance_id: int, many: list[dict]) -> None:
    """Queue what the instance's endpoints and rules ask for these events: both read once,
    however many things the announcement is about."""
    if name == "bid.placed" and not _takes_bids(instance_id):
        return
    endpoints = db.session.scalars(
        select(WebhookEndpoint)
        .where(WebhookEndpoint.instance_id == instance_id, WebhookEndpoint.active.is_(True))
        .execution_options(all_instances=True)
    ).all()
    rules = db.session.scalars(SettingRow.active_of(instance_id, "event")).all()
    subscribed = [e for e in endpoints if name in (e.events or [])]
    acting = [r for r in rules if RULE_EVENTS.get((r.data or {}).get("event")) == name]
    if not subscribed and not acting:
        return
    bodies = [payload(name, instance_id, facts) for facts in many]
    sends = [(endpoint, name, body) for body in bodies for endpoint in subscribed]
    for rule in acting:
        data = rule.data or {}
        sends += _act(
            rule, data, endpoints, [b for b in bodies if _over_threshold(data, b["data"])]
        )
    queue_all(sends)


def _act(rule: SettingRow, data: dict, endpoints, bodies: list[dict]) -> list[tuple]:
    """Do a rule's action for each event's body: mails stored, notifications added; the
    webhooks it asks for are returned as (endpoint, event, body), for the caller to queue."""
    target = (data.get("target") or "").strip()
    action = data.get("action")
    if not bodies:
        return []
    if action == "webhook":
        return [
            (endpoint, body["type"], body)
            for body in bodies
            for endpoint in endpoints
            if endpoint.name == target and body["type"] not in (endpoint.events or [])
        ]
    if action == "email":
        recipients = _recipients(rule.instance_id, target)
        for body in bodies:
            for address, language in recipients:
                _mail(rule, address, language, body)
    elif action == "notify":
        users = _users(rule.instance_id, target)
        event = {"msgid": EVENT_NAMES[bodies[0]["type"]]._args[0]}
        notify_all(
            rule.instance_id, [u.id for u in users], "event",
            [(_link(b), {"event": event, "rule": rule.name, "subject": _subject(b["data"])})
             for b in bodies],
        )  # fmt: skip
    return []


def _over_threshold(data: dict, facts: dict) -> bool:
    """A bid rule's threshold (in the advert's currency): a smaller bid is not its event."""
    threshold = data.get("threshold")
    if not threshold or "advertAmount" not in facts:
        return True
    return facts["advertAmount"] >= int(threshold)


def _takes_bids(instance_id: int) -> bool:
    cached = _bid_listeners.get(instance_id)
    if cached is not None and cached[0] > time.monotonic():
        return cached[1]
    endpoints = db.session.scalars(
        select(WebhookEndpoint.events)
        .where(WebhookEndpoint.instance_id == instance_id, WebhookEndpoint.active.is_(True))
        .execution_options(all_instances=True)
    ).all()
    rules = db.session.scalars(
        SettingRow.active_of(instance_id, "event", what=SettingRow.data)
    ).all()
    takes = any("bid.placed" in (e or []) for e in endpoints) or any(
        RULE_EVENTS.get((d or {}).get("event")) == "bid.placed" for d in rules
    )
    _bid_listeners[instance_id] = (time.monotonic() + LISTENING_SECONDS, takes)
    return takes


@event.listens_for(Session, "before_flush")
def _forget_listeners(session, _context, _instances) -> None:
    """An endpoint or event rule changed in this process: read the listeners again."""
    changed = (*session.new, *session.dirty, *session.deleted)
    if any(isinstance(o, WebhookEndpoint | SettingRow) for o in changed):
        _bid_listeners.clear()


def _subject(facts: dict) -> str:
    """What a notification names: the vehicle or advert's registration number, and its model."""
    parts = [facts.get("regno"), facts.get("brand"), facts.get("model")]
    return (
        " ".join(str(p) for p in parts if p) or f"#{facts.get('advertId') or facts.get('itemId')}"
    )


def _link(body: dict) -> str:
    facts = body["data"]
    if facts.get("itemId") and facts.get("module"):
        return f"/{facts['module']}/{facts['itemId']}"
    return ""


def _users(instance_id: int, target: str) -> list[User]:
    """The active users of the instance holding a role (its code), or with this e-mail."""
    members = db.session.scalars(active_members(instance_id)).all()
    if "@" in target:
        return [u for u in members if u.email.lower() == target.lower()]
    return [u for u in members if target and target in u.roles_in(instance_id)]


def _recipients(instance_id: int, target: str) -> list[tuple[str, str]]:
    """An e-mail address as it is, or the active users holding a role (a role's code) in the
    instance."""
    if "@" in target:
        return [(target, DEFAULT_LOCALE)]
    return [
        (user.email, (user.options or {}).get("language") or DEFAULT_LOCALE)
        for user in _users(instance_id, target)
        if user.login_type == "default"
    ]


def _mail(rule: SettingRow, address: str, language: str, body: dict) -> None:
    instance = db.session.get(Instance, rule.instance_id)
    send_mail(
        to=address,
        template="event_rule",
        kind="event_rule",
        language=language,
        instance_id=rule.instance_id,
        rule_name=rule.name,
        event=str(EVENT_NAMES[body["type"]]),
        facts=body["data"],
        company=instance.company_name if instance else "",
    )
