"""Background jobs: RQ when REDIS_URL is set, inline otherwise.

A job is queued with `enqueue("module:function", *args)` inside a unit of work; it is sent only
after that unit commits (a rolled-back request sends nothing). Job functions take plain values
and run inside an application context; each one is one unit of work of its own.

Faults (tests/faults): when Redis cannot be reached while a job is sent, the job runs inline,
as without Redis, so none is lost and the request still answers. Every RQ job may be retried
(`RETRIES`): a job whose worker died (SIGKILL, out of memory, a lost machine) is found by the
next worker's maintenance once its heartbeat lapses (`make_worker`: after three missed beats; a
mail job, which beats only at its start, after MAIL_JOB_TIMEOUT_SECONDS + MAIL_JOB_GRACE_SECONDS)
and is queued again, so job functions must be idempotent: running one again after it was cut off
anywhere finishes the work exactly once.
"""

import importlib
import logging
import time

import click
from flask import Flask, current_app, g, has_request_context
from redis import Redis
from redis.exceptions import RedisError
from sqlalchemy import event
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from app.core.locking import immediate
from app.extensions import db

log = logging.getLogger(__name__)
QUEUE_NAME = "dealercare"
_PENDING, _READY = "jobs_pending", "jobs_ready"
RETRIES = 3  # attempts after the first, for a job that failed or whose worker died


def enqueue(func: str, *args) -> None:
    """Queue `func` ("package.module:function") to run after the current commit."""
    session = db.session()
    if not session.in_transaction():
        # Without a transaction a rollback sends no event, and the job would outlive it.
        session.begin()
    session.info.setdefault(_PENDING, []).append((func, args))


@event.listens_for(Session, "after_commit")
def _committed(session: Session) -> None:
    if session.info.get(_PENDING):
        session.info.setdefault(_READY, []).extend(session.info.pop(_PENDING))


@event.listens_for(Session, "after_soft_rollback")
def _rolled_back(session: Session, previous_transaction) -> None:
    session.info.pop(_PENDING, None)


def dispatch() -> int:
    """Send every committed job to RQ, or run it now when there is no Redis or Redis cannot be
    reached (and then the jobs those jobs queued, until none is left). Returns the count."""
    # lazy: rq takes ~0.2 s to load; web requests without Redis never need it
    from rq import Retry

    count = 0
    while ready := db.session.info.pop(_READY, []):
        count += len(ready)
        if current_app.config["REDIS_URL"]:
            try:  # one round trip for all of them (a MULTI/EXEC: all are queued, or none)
                pipe = redis_connection().pipeline()
                for func, args in ready:
                    queue().enqueue(
                        run,
                        func,
                        *args,
                        job_timeout=job_timeout(func),
                        retry=Retry(max=RETRIES),
                        pipeline=pipe,
                    )
                pipe.execute()
                continue
            except RedisError as exc:  # Redis is down: run them here rather than lose them
                log.warning("Redis unreachable (%s): %d jobs run inline", exc, len(ready))
        for func, args in ready:
            _inline(func, args)
    return count


def job_timeout(func: str) -> int:
    """The seconds `func` may run on a worker before RQ stops it."""
    if func in IN_PROCESS:
        return max(1, int(current_app.config["MAIL_JOB_TIMEOUT_SECONDS"]))
    return 300


def _inline(func: str, args) -> None:
    """Run one job here, as one unit of work that on SQLite holds the write lock from its
    start (app.core.locking.immediate): concurrent requests' jobs then wait for each other
    instead of being refused a write after another connection's commit. One still refused
    ("database is locked" after the busy timeout) is run again from the start, up to RETRIES
    times."""
    for attempt in range(RETRIES + 1):
        try:
            with immediate():
                call(func, *args)
            return
        except OperationalError as exc:
            locked = "database is locked" in str(exc.orig)
            if not locked or attempt == RETRIES:
                log.exception("inline job %s failed", func)
                return
            time.sleep(0.02 * (attempt + 1))
        except Exception:  # a failed inline job must not fail the request that queued it
            log.exception("inline job %s failed", func)
            return


def call(func: str, *args):
    """Run a job function in the current application context as one unit of work."""
    module, _, name = func.partition(":")
    target = getattr(importlib.import_module(module), name)
    try:
        result = target(*args)
        db.session.commit()
        return result
    except Exception:
        db.session.rollback()
        raise


_worker_app: Flask | None = None


def run(func: str, *args):
    """Entry point of an RQ job: run `func` inside this worker's application."""
    global _worker_app
    if _worker_app is None:
        # lazy: the composition root imports this module
        from app import create_app

        _worker_app = create_app()
    with _worker_app.app_context():
        try:
            return call(func, *args)
        finally:
            dispatch()
            db.session.remove()


def redis_connection():
    """The app's Redis client (one connection pool per process), or None without REDIS_URL."""
    url = current_app.config["REDIS_URL"]
    if not url:
        return None
    client = current_app.extensions.get("redis")
    if client is None:
        # Short timeouts: a Redis that is down or hangs costs a request seconds, not minutes.
        client = current_app.extensions["redis"] = Redis.from_url(
            url, socket_connect_timeout=2, socket_timeout=5
        )
    return client


def queue():
    """Return the RQ queue (only when REDIS_URL is set)."""
    # lazy: rq takes ~0.2 s to load; only with REDIS_URL
    from rq import Queue

    if "rq_queue" not in g:
        g.rq_queue = Queue(QUEUE_NAME, connection=redis_connection())
    return g.rq_queue


def init_app(app: Flask) -> None:
    @app.after_request
    def _dispatch_jobs(response):
        if has_request_context():
            dispatch()
        return response

    @app.cli.command("worker")
    @click.option("--burst", is_flag=True, help="Stop when the queue is empty.")
    def worker(burst: bool) -> None:
        """Run an RQ worker for the background jobs (needs REDIS_URL)."""
        if not app.config["REDIS_URL"]:
            raise click.ClickException("REDIS_URL is not set: jobs run inline, no worker needed.")
        global _worker_app
        _worker_app = app  # made once here, inherited by every forked work horse
        make_worker(app).work(burst=burst)


# Jobs that a worker runs in its own process instead of a forked work horse: the short mail
# jobs (render and store one mail; hand one to SMTP). A horse costs more than such a job: some
# 60 ms of CPU per fork against 2.5 ms for the job itself (measured in one run, bench/PAGES.md),
# and a bidding war sends a mail per bid. Imports, exports and the saved-search matching still
# run in a horse each, which takes a job's memory with it and may be killed alone. Nothing beats
# for an in-process job while it runs, so its one heartbeat, at its start, lasts its timeout
# (MAIL_JOB_TIMEOUT_SECONDS) plus MAIL_JOB_GRACE_SECONDS (a minute: RQ's SimpleWorker rule).
IN_PROCESS = frozenset({"app.mail.services:deliver", "app.market.bidder_mail:deliver"})


def make_worker(app: Flask):
    """An RQ worker whose jobs' heartbeats lapse after JOB_HEARTBEAT_SECONDS x 3 (RQ's own
    floor is a minute) and whose maintenance, which queues the jobs of dead workers again,
    runs every JOB_MAINTENANCE_SECONDS (RQ's default: 10 minutes); IN_PROCESS jobs run in the
    worker's own process, and their heartbeats lapse MAIL_JOB_GRACE_SECONDS after their timeout."""
    # lazy: rq takes ~0.2 s to load; only the worker command needs it
    from rq import SimpleWorker, Worker

    beat = max(1, int(app.config["JOB_HEARTBEAT_SECONDS"]))
    maintenance = max(1, int(app.config["JOB_MAINTENANCE_SECONDS"]))
    grace = max(1, int(app.config["MAIL_JOB_GRACE_SECONDS"]))

    def in_process(job) -> bool:
        return bool(job.args) and job.args[0] in IN_PROCESS  # run(func, *args)

    class JobWorker(Worker):
        def execute_job(self, job, queue):
            if in_process(job):
                return SimpleWorker.execute_job(self, job, queue)
            return super().execute_job(job, queue)

        def main_work_horse(self, job, queue):
            # The horse must not use the database connections it inherited from this process
            # (an in-process job opened them): a pool of its own, the parent's left alone.
            with app.app_context():
                for engine in db.engines.values():
                    engine.dispose(close=False)
            return super().main_work_horse(job, queue)

        def get_heartbeat_ttl(self, job, working_time: float = 0.0) -> int:
            if not in_process(job):
                return 3 * self.job_monitoring_interval
            if job.timeout and job.timeout > 0:  # dispatch() gives every job one
                return int(job.timeout) + grace
            return SimpleWorker.get_heartbeat_ttl(self, job, working_time)

    return JobWorker(
        [QUEUE_NAME],
        connection=Redis.from_url(app.config["REDIS_URL"]),
        job_monitoring_interval=beat,
        maintenance_interval=maintenance,
        # The idle wait for a job ends this often, so that maintenance runs on time.
        worker_ttl=maintenance + 15,
    )
