"""Webhooks as a receiver meets them: a real local HTTP server (http.server in a thread) gets
the events its endpoint subscribes to, signed; a 500 is retried with back-off; the delivery log
shows every attempt; "send again" sends once more; a failing endpoint is paused and its maker
told; loopback and private addresses are refused unless the configuration allows them."""

import json
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from sqlalchemy import select

import app.preparation  # noqa: F401  (first: the menu's imports form a cycle otherwise)
from app.automation.models import WebhookDelivery, WebhookEndpoint
from app.automation.webhooks import (
    BACKOFF,
    PAUSE_AFTER,
    SIGNATURE_HEADER,
    Refused,
    check_url,
    deliver,
    send_due,
    sign,
    verify,
)
from app.core import jobs
from app.core import roles as R
from app.core.api import openapi_document
from app.core.models import Division, utcnow
from app.core.settings import SettingRow
from app.core.tenancy import activate
from app.extensions import db
from app.mail.models import EmailMessage
from app.preparation.models import PreparationItem
from app.preparation.services import add_item
from tests.factories import make_instance, make_user
from tests.helpers import page_text, sign_in

ADMIN = ["ROLE_USER", R.ROLE_ADMIN, *R.ALL_TENANT_ROLES]
NEW = "/admin/general/webhooks/new"


class Receiver:
    """A local HTTP server answering the statuses in `answers` in turn (then 200)."""

    def __init__(self):
        self.received: list[tuple[dict, bytes]] = []
        self.answers: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.received.append((dict(self.headers), body))
                status = receiver.answers.pop(0) if receiver.answers else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hooks"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    found = Receiver()
    yield found
    found.close()


@pytest.fixture
def local_allowed(app, monkeypatch):
    monkeypatch.setitem(app.config, "WEBHOOK_ALLOWED_NETWORKS", "127.0.0.1/32")


@pytest.fixture
def admin():
    return make_user(make_instance(), roles=ADMIN, modules=["begcare"], all_divisions=True)


def new_vehicle(instance_id: int, regno: str = "ABC123") -> PreparationItem:
    activate(instance_id)
    division = db.session.scalars(select(Division)).first()
    item = add_item(
        PreparationItem(
            instance_id=instance_id, module="begcare", division_id=division.id, state=2,
            regno=regno, brand="Volvo", model="V60",
        )
    )  # fmt: skip
    activate(None)
    return item


def make_endpoint(client, csrf: str, url: str, events=("vehicle.added",)):
    return client.post(
        NEW,
        data={"csrf_token": csrf, "name": "DMS", "url": url, "events": list(events),
              "active": "y"},
    )  # fmt: skip


def only_delivery() -> WebhookDelivery:
    db.session.expire_all()
    return db.session.scalars(select(WebhookDelivery).execution_options(all_instances=True)).one()


def test_a_signed_event_reaches_the_receiver_a_500_is_retried_and_sent_again(
    client, admin, receiver, local_allowed
):
    csrf = sign_in(client, admin)
    assert make_endpoint(client, csrf, receiver.url).status_code == 302
    endpoint = db.session.scalars(
        select(WebhookEndpoint).execution_options(all_instances=True)
    ).one()
    receiver.answers = [500]
    new_vehicle(admin.active_instance_id)
    delivery = only_delivery()
    assert deliver(delivery.id) == "retrying"
    # The receiver got a body it can check: signed with the endpoint's secret, just now.
    headers, body = receiver.received[0]
    assert headers["Content-Type"] == "application/json"
    assert verify(endpoint.secret, body, headers[SIGNATURE_HEADER])
    assert not verify(endpoint.secret, body + b" ", headers[SIGNATURE_HEADER])  # altered
    stale = sign(endpoint.secret, body, int(time.time()) - 3600)
    assert not verify(endpoint.secret, body, stale)  # a replay, an hour later
    event = json.loads(body)
    assert event["type"] == "vehicle.added" and event["data"]["regno"] == "ABC123"
    # Retried after its back-off, not before.
    delivery = only_delivery()
    first_try = delivery.tries[0]
    assert delivery.next_attempt_at == first_try.at + timedelta(seconds=BACKOFF[0])
    assert send_due(now=first_try.at + timedelta(seconds=BACKOFF[0] - 1)) == 0
    assert send_due(now=first_try.at + timedelta(seconds=BACKOFF[0] + 1)) == 1
    jobs.dispatch()
    assert len(receiver.received) == 2 and only_delivery().status == "delivered"
    # The log shows every attempt with its answer and time; "send again" sends once more.
    log_url = f"/admin/general/webhooks/{endpoint.id}/deliveries"
    log = page_text(client.get(log_url))
    assert "HTTP 500" in log and "HTTP 200" in log and "Delivered" in log and " ms" in log
    again = client.post(
        f"{log_url}/{delivery.id}/send-again", data={"csrf_token": csrf}
    )  # the request's jobs run as it ends (no Redis here)
    assert again.status_code == 302
    assert len(receiver.received) == 3
    assert page_text(client.get(log_url)).count("HTTP 200") == 2


def test_loopback_and_private_addresses_are_refused_unless_allowed(
    app, client, admin, receiver, monkeypatch
):
    csrf = sign_in(client, admin)
    refused = make_endpoint(client, csrf, receiver.url)
    assert refused.status_code in (200, 422)
    text = page_text(refused)
    assert "cannot receive webhooks" in text and receiver.url in text  # the input is kept
    assert db.session.scalars(select(WebhookEndpoint)).first() is None
    for url in ("http://127.0.0.1/", "http://localhost:8080/", "http://10.1.2.3/", "ftp://x/",
                "http://169.254.169.254/latest/meta-data", "http://[::1]/"):  # fmt: skip
        with pytest.raises(Refused):
            check_url(url)
    monkeypatch.setitem(app.config, "WEBHOOK_ALLOWED_NETWORKS", "127.0.0.1/32")
    check_url(receiver.url)  # allowed by the configuration
    assert make_endpoint(client, csrf, receiver.url).status_code == 302
    # Allowed no longer: the delivery is refused before anything is sent, and not retried.
    monkeypatch.setitem(app.config, "WEBHOOK_ALLOWED_NETWORKS", "")
    new_vehicle(admin.active_instance_id)
    assert deliver(only_delivery().id) == "failed"
    assert receiver.received == [] and "refused" in only_delivery().tries[0].error


def test_an_endpoint_that_keeps_failing_is_paused_and_its_maker_told(
    client, admin, receiver, local_allowed
):
    csrf = sign_in(client, admin)
    make_endpoint(client, csrf, receiver.url)
    receiver.answers = [500] * 100
    for n in range(PAUSE_AFTER):
        new_vehicle(admin.active_instance_id, regno=f"FAIL{n}")
        delivery = db.session.scalars(
            select(WebhookDelivery).order_by(WebhookDelivery.id.desc())
            .execution_options(all_instances=True)
        ).first()  # fmt: skip
        while deliver(delivery.id) == "retrying":
            pass
        assert len(delivery.tries) == 1 + len(BACKOFF)
    endpoint = db.session.scalars(
        select(WebhookEndpoint).execution_options(all_instances=True)
    ).one()
    assert endpoint.paused_at is not None
    mail = db.session.scalars(
        select(EmailMessage).where(EmailMessage.kind == "webhook_paused")
    ).one()
    assert mail.to_address == admin.email and "DMS" in mail.subject
    assert "Paused" in page_text(client.get("/admin/general/webhooks"))
    sent = len(receiver.received)
    new_vehicle(admin.active_instance_id, regno="WHILEPAUSED")
    paused = db.session.scalars(
        select(WebhookDelivery).order_by(WebhookDelivery.id.desc())
        .execution_options(all_instances=True)
    ).first()  # fmt: skip
    deliver(paused.id)
    assert len(receiver.received) == sent  # nothing goes out while paused


def test_an_event_rule_mails_its_recipient(admin):
    activate(admin.active_instance_id)
    db.session.add(
        SettingRow(kind="event", name="New stock", data={
            "event": "vehicle_added", "action": "email", "target": "stock@example.test"})
    )  # fmt: skip
    db.session.flush()
    activate(None)
    new_vehicle(admin.active_instance_id, regno="RULE1")
    mail = db.session.scalars(select(EmailMessage).where(EmailMessage.kind == "event_rule")).one()
    assert mail.to_address == "stock@example.test"
    assert "New stock" in mail.subject and "RULE1" in mail.body_text


def test_the_api_document_states_the_webhooks_and_their_body(app):
    with app.test_request_context():
        doc = openapi_document()
    hook = doc["webhooks"]["vehicle.added"]["post"]
    schema_ref = hook["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    body = doc["components"]["schemas"][schema_ref.rsplit("/", 1)[1]]
    assert {"id", "type", "created", "instance", "data"} <= set(body["properties"])
    assert "HMAC-SHA256" in hook["description"]


def test_a_station_task_going_overdue_reaches_its_subscriber_once(
    client, admin, receiver, local_allowed
):
    from app.preparation.models import ItemStationTask, Station
    from app.preparation.tasks import sync_overdue_warnings

    csrf = sign_in(client, admin)
    make_endpoint(client, csrf, receiver.url, events=("task.overdue",))
    item = new_vehicle(admin.active_instance_id, regno="SLOW1")
    activate(admin.active_instance_id)
    station = Station(module="begcare", name="Tvätt")
    db.session.add(station)
    db.session.flush()
    db.session.add(
        ItemStationTask(
            item_id=item.id, station_id=station.id, status="active", target_minutes=30,
            started_at=utcnow() - timedelta(hours=2),
        )
    )  # fmt: skip
    db.session.flush()
    assert sync_overdue_warnings() == (1, 0)
    assert sync_overdue_warnings() == (0, 0)  # flagged already: told once
    activate(None)
    delivery = only_delivery()
    assert deliver(delivery.id) == "delivered"
    event = json.loads(receiver.received[0][1])
    assert event["type"] == "task.overdue" and event["data"]["regno"] == "SLOW1"
