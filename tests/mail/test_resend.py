"""The resend sweep (mail-resend): a mail whose delivery job was never sent is delivered once,
later; fresh mails, mails already delivered (or failed) and the rest of a backlog are left."""

from datetime import timedelta

import pytest
from sqlalchemy import select

from app.core import jobs
from app.core.models import utcnow
from app.extensions import db
from app.mail.jobs import resend_after
from app.mail.models import EmailMessage
from app.schedule import runner
from app.schedule.table import SCHEDULE
from tests.core._rq import needs_redis
from tests.mail._smtp import subjects_received

SWEEP = next(entry for entry in SCHEDULE if entry.name == "mail-resend")


@pytest.fixture
def smtp(app, smtp_server, monkeypatch):
    host, port = smtp_server.server_address
    monkeypatch.setitem(app.config, "MAIL_URL", f"smtp://{host}:{port}")
    return smtp_server


def stored_mail(subject: str, age: timedelta, status: str = "queued") -> int:
    """A mail stored `age` ago whose delivery job was never sent (nothing queued); its id."""
    mail = EmailMessage(
        to_address="stuck@example.test", subject=subject, body_text=subject,
        body_html=f"<p>{subject}</p>", language="en-GB", kind="test", status=status,
        created_at=utcnow() - age,
    )  # fmt: skip
    db.session.add(mail)
    db.session.commit()
    return mail.id


def sweep() -> list[str]:
    """One run of the table's mail-resend line, as the inline scheduler runs it."""
    return runner.run_due({}, utcnow(), (SWEEP,))


def resend(*limit: int) -> int:
    """One run of the job (one unit of work) and the deliveries it queued; how many it queued."""
    count = jobs.call(SWEEP.func, *limit)
    jobs.dispatch()
    return count


def status(mail_id: int) -> str:
    return db.session.scalar(select(EmailMessage.status).where(EmailMessage.id == mail_id))


def test_a_mail_queued_past_the_threshold_is_sent_once(app, smtp):
    with app.app_context():
        mail_id = stored_mail("Stuck", resend_after() + timedelta(minutes=1))
        assert sweep() == ["mail-resend"]
        assert status(mail_id) == "sent"
        assert subjects_received(smtp) == ["Stuck"]

        assert resend() == 0  # the next run finds it sent
        assert subjects_received(smtp) == ["Stuck"]
        assert status(mail_id) == "sent"


def test_a_mail_queued_for_less_than_the_threshold_is_left_alone(app, smtp):
    with app.app_context():
        mail_id = stored_mail("Fresh", resend_after() - timedelta(minutes=1))
        assert resend() == 0
        assert status(mail_id) == "queued"
        assert smtp.received == []


@pytest.mark.parametrize("done", ["sent", "stored", "failed"])
def test_a_mail_already_delivered_or_failed_is_left_alone(app, smtp, done):
    with app.app_context():
        mail_id = stored_mail("Done", resend_after() + timedelta(hours=1), status=done)
        assert resend() == 0
        assert status(mail_id) == done
        assert smtp.received == []


def test_one_run_sends_at_most_its_limit_oldest_first(app, smtp):
    with app.app_context():
        old = resend_after() + timedelta(minutes=5)
        # Stored newest first, so that the oldest are not simply the lowest ids.
        ids = [stored_mail(f"Backlog {n}", old - timedelta(minutes=n)) for n in (2, 1, 0)][::-1]
        assert resend(2) == 2
        assert subjects_received(smtp) == ["Backlog 0", "Backlog 1"]
        assert [status(mail_id) for mail_id in ids] == ["sent", "sent", "queued"]

        assert resend(2) == 1  # the rest, at the next run
        assert subjects_received(smtp) == ["Backlog 0", "Backlog 1", "Backlog 2"]


@needs_redis
def test_a_mail_whose_first_delivery_job_is_only_slow_is_sent_once(app, smtp, rq_queue):
    # Its first job still waits in RQ's queue past the threshold when the sweep queues a
    # second: the worker runs both, and the second finds the mail sent.
    with app.test_request_context():
        mail_id = stored_mail("Slow", resend_after() + timedelta(minutes=1))
        jobs.enqueue("app.mail.services:deliver", mail_id)
        db.session.commit()
        assert jobs.dispatch() == 1
        assert jobs.call(SWEEP.func) == 1
        assert jobs.dispatch() == 1
    assert [job.args for job in rq_queue.jobs] == [("app.mail.services:deliver", mail_id)] * 2
    assert jobs.make_worker(app).work(burst=True)
    assert subjects_received(smtp) == ["Slow"]
    assert status(mail_id) == "sent"
    assert rq_queue.failed_job_registry.count == 0
