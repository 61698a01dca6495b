"""Background jobs: inline after commit (never after a rollback), and RQ when REDIS_URL is set."""

import logging
import os

import pytest
from sqlalchemy import select

from app.core import jobs
from app.extensions import db
from app.mail.models import EmailMessage
from tests.conftest import csrf_token
from tests.core._rq import cut_off_once, needs_redis
from tests.factories import make_user

CALLS: list = []


def record(*args) -> None:
    """A job that notes its arguments."""
    CALLS.append(args)


def explode(*args) -> None:
    raise RuntimeError("the job failed")


@pytest.fixture(autouse=True)
def _no_calls():
    CALLS.clear()
    yield
    CALLS.clear()
    db.session.info.pop("jobs_pending", None)
    db.session.info.pop("jobs_ready", None)


# --- inline ------------------------------------------------------------------------------------


def test_an_inline_job_runs_after_the_commit(app):
    jobs.enqueue("tests.core.test_jobs:record", 1, "a")
    assert jobs.dispatch() == 0  # nothing before the commit
    assert CALLS == []
    db.session.commit()
    assert jobs.dispatch() == 1
    assert CALLS == [(1, "a")]
    assert jobs.dispatch() == 0  # and only once


def test_an_inline_job_does_not_run_after_a_rollback(app):
    jobs.enqueue("tests.core.test_jobs:record", 2)
    db.session.rollback()
    db.session.commit()
    assert jobs.dispatch() == 0
    assert CALLS == []


def test_a_failing_inline_job_is_logged_and_does_not_stop_the_others(app, caplog):
    jobs.enqueue("tests.core.test_jobs:explode")
    jobs.enqueue("tests.core.test_jobs:record", 3)
    db.session.commit()
    with caplog.at_level(logging.ERROR, logger="app.core.jobs"):
        assert jobs.dispatch() == 2
    assert CALLS == [(3,)]
    assert any("tests.core.test_jobs:explode" in r.getMessage() for r in caplog.records)


def test_a_request_runs_its_mail_job_inline(client):
    user = make_user()
    response = client.post(
        "/api/auth/forgot-password",
        json={"email": user.email},
        headers={"X-CSRFToken": csrf_token(client)},
    )
    assert response.status_code == 200
    mail = db.session.scalars(select(EmailMessage).where(EmailMessage.to_address == user.email))
    assert mail.one().status == "stored"


# --- RQ ----------------------------------------------------------------------------------------


@needs_redis
def test_with_redis_the_mail_job_goes_to_the_queue_and_a_worker_sends_it(client, rq_queue):
    from rq import SimpleWorker

    queue = rq_queue
    user = make_user()
    response = client.post(
        "/api/auth/forgot-password",
        json={"email": user.email},
        headers={"X-CSRFToken": csrf_token(client)},
    )
    assert response.status_code == 200
    mail = db.session.scalars(
        select(EmailMessage).where(EmailMessage.to_address == user.email)
    ).one()
    assert mail.status == "queued"  # not run inline

    queued = queue.jobs
    assert len(queued) == 1
    assert queued[0].func_name == "app.core.jobs.run"
    assert queued[0].args == ("app.mail.services:deliver", mail.id)

    worker = SimpleWorker([queue], connection=queue.connection)
    assert worker.work(burst=True)
    db.session.expire_all()
    assert db.session.get(EmailMessage, mail.id).status == "stored"
    assert queue.count == 0


@needs_redis
def test_with_redis_a_rolled_back_request_queues_nothing(app, rq_queue):
    queue = rq_queue
    with app.test_request_context():
        jobs.enqueue("tests.core.test_jobs:record", 4)
        db.session.rollback()
        db.session.commit()
        assert jobs.dispatch() == 0
    assert queue.count == 0


def pid_here(path: str) -> None:
    """A job that writes down the process that ran it (as an in-process job)."""
    with open(path, "a") as out:
        out.write(f"here {os.getpid()}\n")


def pid_there(path: str) -> None:
    """The same, as a job run in a work horse."""
    with open(path, "a") as out:
        out.write(f"there {os.getpid()}\n")


@needs_redis
def test_the_worker_runs_mail_jobs_itself_and_other_jobs_in_a_work_horse(
    app, rq_queue, monkeypatch, tmp_path
):
    # The mail jobs are IN_PROCESS (a forked horse cost 25 times the job); the test's stand-in
    # for one is pid_here.
    assert {"app.mail.services:deliver", "app.market.bidder_mail:deliver"} <= jobs.IN_PROCESS
    monkeypatch.setattr(jobs, "IN_PROCESS", frozenset({"tests.core.test_jobs:pid_here"}))
    path = str(tmp_path / "pids")
    with app.test_request_context():
        jobs.enqueue("tests.core.test_jobs:pid_here", path)
        jobs.enqueue("tests.core.test_jobs:pid_there", path)
        db.session.commit()
        assert jobs.dispatch() == 2
    assert rq_queue.count == 2
    assert jobs.make_worker(app).work(burst=True)
    ran = dict(line.split() for line in (tmp_path / "pids").read_text().splitlines())
    assert ran["here"] == str(os.getpid())  # in the worker's own process
    assert ran["there"] != str(os.getpid())  # in a forked horse
    assert rq_queue.count == 0
    assert rq_queue.failed_job_registry.count == 0


def note_job() -> None:
    """A job that notes the RQ job that runs it."""
    from rq import get_current_job

    CALLS.append(get_current_job().id)


@needs_redis
def test_a_job_cut_off_after_its_commit_runs_again_as_the_same_job(app, rq_queue, monkeypatch):
    # Why every job function must be idempotent, and what a job can recognise itself by.
    monkeypatch.setattr(jobs, "IN_PROCESS", frozenset({"tests.core.test_jobs:note_job"}))
    cut = cut_off_once(monkeypatch, "tests.core.test_jobs:note_job", after_sending=False)
    with app.test_request_context():
        jobs.enqueue("tests.core.test_jobs:note_job")
        db.session.commit()
        assert jobs.dispatch() == 1
    [job] = rq_queue.jobs
    assert jobs.make_worker(app).work(burst=True)
    assert cut == [job.id]
    ran = list(CALLS)
    assert ran == [job.id, job.id]  # run again, under the same id
    assert rq_queue.fetch_job(job.id).get_status() == "finished"
