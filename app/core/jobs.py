"""Background jobs: RQ when REDIS_URL is set, inline otherwise.

A job is queued with `enqueue("module:function", *args)` inside a unit of work; it is sent only
after that unit commits (a rolled-back request sends nothing). Job functions take plain values
and run inside an application context; each one is one unit of work of its own.
"""

import importlib
import logging

import click
from flask import Flask, current_app, g, has_request_context
from sqlalchemy import event
from sqlalchemy.orm import Session

from app.extensions import db

log = logging.getLogger(__name__)
QUEUE_NAME = "dealercare"
_PENDING, _READY = "jobs_pending", "jobs_ready"


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
    """Send every committed job to RQ, or run it now when there is no Redis (and then the jobs
    those jobs queued, until none is left). Returns the count."""
    count = 0
    while ready := db.session.info.pop(_READY, []):
        count += len(ready)
        for func, args in ready:
            if current_app.config["REDIS_URL"]:
                queue().enqueue(run, func, *args, job_timeout=300)
            else:
                try:
                    call(func, *args)
                except Exception:  # a failed inline job must not fail the request that queued it
                    log.exception("inline job %s failed", func)
                    db.session.rollback()
    return count


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
        from redis import Redis

        client = current_app.extensions["redis"] = Redis.from_url(url)
    return client


def queue():
    """Return the RQ queue (only when REDIS_URL is set)."""
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
        from rq import Worker

        if not app.config["REDIS_URL"]:
            raise click.ClickException("REDIS_URL is not set: jobs run inline, no worker needed.")
        Worker([queue()], connection=queue().connection).work(burst=burst)
