"""The resend sweep (mail-resend): a mail whose delivery job was never sent is delivered once,
later; fresh mails, mails already delivered (or failed) and the rest of a backlog are left.
An SMTP error that may pass (no server, a 4xx reply) leaves a mail queued for the sweep to try
again after a backoff, five attempts in all; a 5xx reply fails it at once."""

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
from tests.mail._smtp import SMTPStub, free_port, mail_through, smtp_stub, subjects_received

SWEEP = next(entry for entry in SCHEDULE if entry.name == "mail-resend")


@pytest.fixture
def smtp(app, smtp_server, monkeypatch):
    mail_through(app, smtp_server, monkeypatch)
    return smtp_server


def stored_mail(subject: str, age: timedelta, status: str = "queued", retry_at=None) -> int:
    """A mail stored `age` ago whose delivery job was never sent (nothing queued); its id.
    Due to the sweep resend_after() after it was stored, as send_mail sets it, or at retry_at."""
    created_at = utcnow() - age
    mail = EmailMessage(
        to_address="stuck@example.test", subject=subject, body_text=subject,
        body_html=f"<p>{subject}</p>", language="en-GB", kind="test", status=status,
        created_at=created_at, retry_at=retry_at or created_at + resend_after(),
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


def the_mail(mail_id: int) -> EmailMessage:
    db.session.expire_all()
    return db.session.get(EmailMessage, mail_id)


def deliver(mail_id: int) -> str:
    """One delivery job of the mail, run now; the mail's status."""
    return jobs.call("app.mail.services:deliver", mail_id)


def make_due(mail_id: int) -> None:
    """Time passes until the mail's retry_at."""
    the_mail(mail_id).retry_at = utcnow() - timedelta(seconds=1)
    db.session.commit()


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


# --- SMTP errors that may pass -----------------------------------------------------------------


class BusyAtRcpt(SMTPStub):
    answers = {"RCPT": "451 4.3.0 Busy, try again later"}


class BusyAtData(SMTPStub):
    answers = {"DATA": "451 4.3.0 Busy, try again later"}


class UnknownRecipient(SMTPStub):
    answers = {"RCPT": "550 5.1.1 No such user"}


def test_a_mail_the_server_was_down_for_is_sent_by_the_sweep_once_it_is_back(
    app, smtp_server, monkeypatch
):
    with app.app_context():
        mail_id = stored_mail("Outage", timedelta(0))
        monkeypatch.setitem(app.config, "MAIL_URL", f"smtp://127.0.0.1:{free_port()}")
        tried = utcnow()
        assert deliver(mail_id) == "queued"
        mail = the_mail(mail_id)
        assert mail.attempts == 1
        assert tried + timedelta(minutes=5) <= mail.retry_at <= utcnow() + timedelta(minutes=5)
        assert mail.error

        mail_through(app, smtp_server, monkeypatch)  # the server is back
        assert resend() == 0  # not yet due
        make_due(mail_id)
        assert sweep() == ["mail-resend"]
        assert status(mail_id) == "sent"
        assert subjects_received(smtp_server) == ["Outage"]
        assert the_mail(mail_id).attempts == 2


@pytest.mark.parametrize("handler", [BusyAtRcpt, BusyAtData])
def test_a_4xx_reply_leaves_the_mail_queued_to_be_tried_again(app, monkeypatch, handler):
    with smtp_stub(handler) as server, app.app_context():
        mail_through(app, server, monkeypatch)
        mail_id = stored_mail("Busy", timedelta(0))
        assert deliver(mail_id) == "queued"
        mail = the_mail(mail_id)
        assert mail.attempts == 1
        assert "451" in mail.error
        assert mail.retry_at > utcnow() + timedelta(minutes=4)
        assert server.received == []


def test_a_5xx_reply_fails_the_mail_at_once(app, monkeypatch):
    with smtp_stub(UnknownRecipient) as server, app.app_context():
        mail_through(app, server, monkeypatch)
        mail_id = stored_mail("Unknown", timedelta(0))
        assert deliver(mail_id) == "failed"
        mail = the_mail(mail_id)
        assert mail.attempts == 1
        assert "550" in mail.error
        make_due(mail_id)
        assert resend() == 0  # never tried again
        assert server.received == []


def test_the_fifth_passing_error_fails_the_mail_after_backoffs_of_5_15_45_135_minutes(
    app, monkeypatch
):
    with smtp_stub(BusyAtRcpt) as server, app.app_context():
        mail_through(app, server, monkeypatch)
        mail_id = stored_mail("Always busy", resend_after() + timedelta(minutes=1))
        waits = []
        for _ in range(4):
            before = utcnow()
            assert resend() == 1
            mail = the_mail(mail_id)
            assert mail.status == "queued"
            waits.append(round((mail.retry_at - before) / timedelta(minutes=1)))
            make_due(mail_id)
        assert waits == [5, 15, 45, 135]
        assert resend() == 1
        mail = the_mail(mail_id)
        assert (mail.status, mail.attempts) == ("failed", 5)
        assert "451" in mail.error
        assert resend() == 0


def test_a_queued_mail_whose_retry_at_is_ahead_is_left_alone(app, smtp):
    with app.app_context():
        mail_id = stored_mail(
            "Later", resend_after() + timedelta(hours=1), retry_at=utcnow() + timedelta(minutes=3)
        )
        assert resend() == 0
        assert status(mail_id) == "queued"
        assert smtp.received == []
