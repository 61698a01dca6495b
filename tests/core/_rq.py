"""RQ in the tests that run jobs on a real Redis (jobs, mail, market, schedule): a queue of the
test's own, and a job's first run cut off after its commit. The fixture `rq_queue`
(tests/conftest.py) gives a test its private queue."""

import os
import uuid
from contextlib import contextmanager

import pytest

from app.core import jobs

REDIS_URL = os.environ.get("REDIS_URL")
needs_redis = pytest.mark.skipif(
    not REDIS_URL, reason="REDIS_URL is not set: the RQ path is tested where Redis runs (CI)"
)


@contextmanager
def private_queue(app, monkeypatch):
    """`app` sends jobs to a queue of this test's own in the real Redis, and a worker made by
    jobs.make_worker(app) runs them in this test's database; all removed afterwards."""
    from redis import Redis
    from rq import Queue

    name = f"dealercare-test-{uuid.uuid4().hex[:12]}"
    monkeypatch.setitem(app.config, "REDIS_URL", REDIS_URL)
    monkeypatch.setattr(jobs, "QUEUE_NAME", name)
    monkeypatch.setattr(jobs, "_worker_app", app)  # the worker sees this test's database
    connection = Redis.from_url(REDIS_URL)
    queue = Queue(name, connection=connection)
    before = set(connection.scan_iter(match="rq:*"))
    try:
        yield queue
    finally:
        # Everything RQ wrote for this test: the queue, its jobs, results, the worker's record.
        created = set(connection.scan_iter(match="rq:*")) - before
        created |= set(connection.scan_iter(match=f"*{name}*"))
        if created:
            connection.delete(*created)
        connection.srem("rq:queues", f"rq:queue:{name}")
        connection.close()


def cut_off_once(monkeypatch, func: str, *, after_sending: bool) -> list[str]:
    """The first RQ run of a `func` job is cut off in the dispatch() of app.core.jobs.run's
    `finally`, after its commit, as when the job's time limit fires there: RQ fails the job
    and runs it again (the same job). `after_sending`: the cut comes once dispatch() has sent
    the jobs of that run, else before it sent any (they are lost). Returns the ids of the jobs
    cut off. (A worker killed at that point leaves the same: its maintenance runs the job
    again once the heartbeat lapses; tests/faults kills one.)"""
    from rq import get_current_job
    from rq.timeouts import JobTimeoutException

    dispatch, cut = jobs.dispatch, []

    def cut_dispatch() -> int:
        job = get_current_job()
        if job is None or job.args[0] != func or cut:
            return dispatch()
        cut.append(job.id)
        if after_sending:
            dispatch()
        raise JobTimeoutException("the job's time limit, in its dispatch()")

    monkeypatch.setattr(jobs, "dispatch", cut_dispatch)
    return cut
