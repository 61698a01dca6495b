"""Fixtures of the market's tests."""

import pytest

from tests.core._rq import private_queue
from tests.mail._smtp import mail_through, smtp_stub
from tests.market._bid import new_address


@pytest.fixture
def bidder(demo_app):
    """A client of the demo database from an address of its own (the rate limit counts per
    address), signed in as no one."""
    client = demo_app.test_client()
    client.environ_base["REMOTE_ADDR"] = new_address()
    return client


@pytest.fixture
def rq_smtp(demo_app, monkeypatch):
    """The demo app's jobs go to RQ (a queue of the test's own, for jobs.make_worker(demo_app)
    to work in this process) and its mails to an SMTP stub: (queue, stub)."""
    with smtp_stub() as smtp, private_queue(demo_app, monkeypatch) as queue:
        mail_through(demo_app, smtp, monkeypatch)
        yield queue, smtp
