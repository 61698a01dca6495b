"""Two delivery jobs of one mail at once, through real parallel database connections (not the
rolled-back test transaction): the mail is sent once. A job run again after it was cut off
queues its mail's delivery again while the mail is still queued (app.mail.services.redeliver),
and the first delivery job may be sending it just then. PostgreSQL only (TEST_DATABASE_URL, a
database of its own): in production jobs run there; SQLite runs them inline, one at a time."""

import threading
import time

import pytest

from app.core import jobs
from app.extensions import db
from app.mail.models import EmailMessage
from tests.conftest import TEST_DATABASE_URL, database_url, make_app
from tests.mail._smtp import SMTPStub, mail_through, smtp_stub, subjects_received

pytestmark = pytest.mark.skipif(
    not TEST_DATABASE_URL, reason="TEST_DATABASE_URL is not set: SQLite has no row locks"
)


@pytest.fixture(autouse=True)
def _transaction():
    """These tests commit for real on their own database: no rolled-back test transaction
    (this replaces the autouse fixture of tests/conftest.py for this module)."""
    yield


class SlowSMTP(SMTPStub):
    """An SMTP server that takes a second to accept a mail: both jobs are under way at once."""

    def reply(self, line: str) -> None:
        if line.startswith("250 queued"):
            time.sleep(1)
        super().reply(line)


@pytest.fixture(scope="module")
def race_app(tmp_path_factory):
    return make_app(database_url(tmp_path_factory, "mailrace"))


def test_two_delivery_jobs_of_one_mail_at_once_send_it_once(race_app, monkeypatch):
    with smtp_stub(SlowSMTP) as smtp:
        mail_through(race_app, smtp, monkeypatch)
        with race_app.app_context():
            mail = EmailMessage(
                to_address="race@example.test", subject="One mail", body_text="Once.",
                body_html="<p>Once.</p>", language="en-GB", kind="test",
            )  # fmt: skip
            db.session.add(mail)
            db.session.commit()
            mail_id = mail.id
            db.session.remove()
        results, start = [], threading.Barrier(2)

        def deliver() -> None:
            with race_app.app_context():
                start.wait()
                results.append(jobs.call("app.mail.services:deliver", mail_id))
                db.session.remove()

        threads = [threading.Thread(target=deliver) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    assert results == ["sent", "sent"]  # the second found it sent
    assert subjects_received(smtp) == ["One mail"]
    with race_app.app_context():
        assert db.session.get(EmailMessage, mail_id).status == "sent"
        db.session.remove()
