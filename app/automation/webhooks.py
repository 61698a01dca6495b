"""Webhooks as Stripe and GitHub send them: a JSON payload signed with HMAC-SHA256 over
"{timestamp}.{body}" (`DealerCare-Signature: t=<unix time>,v1=<hex>`; a receiver refuses a
timestamp older than REPLAY_WINDOW), sent by a job, retried with back-off, every attempt logged.

Only addresses the one outbound guard passes are called (app.core.outbound: http(s) to public
addresses, or networks WEBHOOK_ALLOWED_NETWORKS allows); redirects are not followed. An endpoint
whose deliveries fail PAUSE_AFTER times in a row is paused and the administrator who made it is
told by e-mail.
"""

import hashlib
import hmac
import json
import time
from datetime import timedelta

import requests
from flask import current_app
from sqlalchemy import insert, select

from app.auth.models import User
from app.auth.services import mail_user
from app.automation.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from app.core import jobs
from app.core.models import Instance, utcnow
from app.core.outbound import Refused, check_url
from app.core.tenancy import activate
from app.extensions import db

SIGNATURE_HEADER = "DealerCare-Signature"
REPLAY_WINDOW = 300  # seconds a receiver should take a signature for
BACKOFF = (60, 300, 1800, 7200, 21600)  # seconds before each retry: 1 min ... 6 h
PAUSE_AFTER = 3  # deliveries failed in a row (every retry spent)
TIMEOUT = 10  # seconds for the receiver to answer


def sign(secret: str, body: bytes, timestamp: int | None = None) -> str:
    """The signature header's value for a body: `t=<timestamp>,v1=<HMAC-SHA256 hex>`."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def verify(secret: str, body: bytes, header: str, now: int | None = None) -> bool:
    """What a receiver does: the signature matches and its timestamp is within REPLAY_WINDOW."""
    parts = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    if not parts.get("t", "").isdigit() or "v1" not in parts:
        return False
    timestamp = int(parts["t"])
    now = int(time.time()) if now is None else now
    if abs(now - timestamp) > REPLAY_WINDOW:
        return False
    expected = sign(secret, body, timestamp).split("v1=", 1)[1]
    return hmac.compare_digest(expected, parts["v1"])


def queue_all(sends: list[tuple[WebhookEndpoint, str, dict]]) -> list[int]:
    """A delivery of each (endpoint, event, payload), sent by a job after the caller's commit;
    stored in one INSERT however many there are. Their ids."""
    if not sends:
        return []
    ids = db.session.scalars(
        insert(WebhookDelivery).returning(WebhookDelivery.id),
        [
            {"instance_id": endpoint.instance_id, "endpoint_id": endpoint.id, "event": event,
             "payload": payload}
            for endpoint, event, payload in sends
        ],
    ).all()  # fmt: skip
    for delivery_id in ids:
        jobs.enqueue("app.automation.webhooks:deliver", delivery_id)
    return list(ids)


def deliver(delivery_id: int) -> str:
    """The job: one attempt of a delivery that is due (pending, or retrying and its time has
    come); its outcome logged. Returns the delivery's status."""
    delivery = db.session.scalars(
        select(WebhookDelivery)
        .where(WebhookDelivery.id == delivery_id)
        .execution_options(all_instances=True)
    ).first()
    if delivery is None or delivery.status in ("delivered", "failed"):
        return delivery.status if delivery else "gone"
    endpoint = delivery.endpoint
    if not endpoint.active or endpoint.paused_at is not None:
        return delivery.status  # kept: "send again" sends it once the endpoint is resumed
    attempt = WebhookAttempt(delivery_id=delivery.id, at=utcnow(), error="")
    delivery.tries.append(attempt)
    delivery.attempts += 1
    body = json.dumps(delivery.payload, separators=(",", ":"), sort_keys=True).encode()
    started = time.monotonic()
    try:
        check_url(endpoint.url)
        answer = requests.post(
            endpoint.url,
            data=body,
            headers={
                "Content-Type": "application/json",
                "User-Agent": f"{current_app.config['APP_TITLE']}-Webhooks",
                SIGNATURE_HEADER: sign(endpoint.secret, body),
                "DealerCare-Event": delivery.event,
                "DealerCare-Delivery": str(delivery.id),
            },
            timeout=TIMEOUT,
            allow_redirects=False,
        )
        attempt.status_code = answer.status_code
    except Refused as exc:
        attempt.error = f"refused: {exc}"
    except requests.RequestException as exc:
        attempt.error = type(exc).__name__
    attempt.response_ms = int((time.monotonic() - started) * 1000)
    _settle(delivery, endpoint, attempt)
    db.session.commit()
    return delivery.status


def _settle(delivery: WebhookDelivery, endpoint: WebhookEndpoint, attempt) -> None:
    """After an attempt: delivered (2xx), retried after its back-off, or failed for good (an
    address refused is not retried); the endpoint paused after PAUSE_AFTER failures."""
    if attempt.status_code is not None and 200 <= attempt.status_code < 300:
        delivery.status, delivery.next_attempt_at = "delivered", None
        endpoint.failed_in_row = 0
        return
    retries_done = delivery.attempts - 1
    if retries_done < len(BACKOFF) and not attempt.error.startswith("refused"):
        delivery.status = "retrying"
        delivery.next_attempt_at = attempt.at + timedelta(seconds=BACKOFF[retries_done])
        return
    delivery.status, delivery.next_attempt_at = "failed", None
    endpoint.failed_in_row += 1
    if endpoint.failed_in_row >= PAUSE_AFTER and endpoint.paused_at is None:
        endpoint.paused_at = utcnow()
        _tell_maker(endpoint)


def _tell_maker(endpoint: WebhookEndpoint) -> None:
    maker = db.session.get(User, endpoint.created_by_id) if endpoint.created_by_id else None
    if maker is None or not maker.is_active:
        return
    instance = db.session.get(Instance, endpoint.instance_id)
    mail_user(
        maker,
        "webhook_paused",
        instance_id=endpoint.instance_id,
        endpoint_name=endpoint.name,
        url=endpoint.url,
        failures=endpoint.failed_in_row,
        company=instance.company_name if instance else "",
        log_url=f"{current_app.config['BASE_URL']}/admin/general/webhooks/{endpoint.id}/deliveries",
    )


def send_again(delivery: WebhookDelivery) -> None:
    """Send a delivery once more, now, whatever it came to (the caller commits); a paused
    endpoint is resumed by it."""
    delivery.status, delivery.next_attempt_at = "pending", None
    delivery.endpoint.paused_at = None
    jobs.enqueue("app.automation.webhooks:deliver", delivery.id)


def send_due(now=None) -> int:
    """The scheduled job: every retry whose time has come goes to its own job."""
    activate(None)
    now = now or utcnow()
    due = db.session.scalars(
        select(WebhookDelivery.id)
        .where(WebhookDelivery.status == "retrying", WebhookDelivery.next_attempt_at <= now)
        .order_by(WebhookDelivery.next_attempt_at)
        .limit(500)
        .execution_options(all_instances=True)
    ).all()
    for delivery_id in due:
        jobs.enqueue("app.automation.webhooks:deliver", delivery_id)
    db.session.commit()
    return len(due)
