"""Running the schedule: RQ's CronScheduler with Redis, a small inline loop without it."""

import logging
import time
from datetime import UTC, datetime, timedelta

import click
from croniter import croniter
from flask import Flask, current_app

from app.core import jobs
from app.extensions import db
from app.schedule.table import SCHEDULE, Scheduled

log = logging.getLogger(__name__)


def cron_scheduler(schedule: tuple[Scheduled, ...] = SCHEDULE):
    """An RQ CronScheduler with every line of the table registered: each job is enqueued on
    the app's queue as `app.core.jobs.run(func)` and run by `flask --app wsgi worker`."""
    # lazy: rq takes ~0.2 s to load; only the scheduler command needs it
    from rq.cron import CronScheduler

    scheduler = CronScheduler(connection=jobs.redis_connection(), name="dealercare-scheduler")
    for entry in schedule:
        scheduler.register(
            jobs.run,
            queue_name=jobs.QUEUE_NAME,
            args=(entry.func,),
            interval=entry.every,
            cron=entry.cron,
            job_timeout=entry.timeout,
            name=entry.name,
        )
    return scheduler


def next_run(entry: Scheduled, after: datetime) -> datetime:
    """When an inline entry is due next after `after` (UTC)."""
    if entry.every:
        return after + timedelta(seconds=entry.every)
    local = after.astimezone().replace(tzinfo=None)  # cron fields are local time, as in RQ
    return croniter(entry.cron, local).get_next(datetime).astimezone(UTC)


def run_due(due: dict[str, datetime], now: datetime, schedule=SCHEDULE) -> list[str]:
    """Run (inline) every entry that is due at `now`; move its next time on. Returns the
    names run. A failing job is logged and tried again at its next time."""
    ran = []
    for entry in schedule:
        if due.setdefault(entry.name, now if entry.every else next_run(entry, now)) > now:
            continue
        try:
            result = jobs.call(entry.func)
            jobs.dispatch()  # mails the job queued run now, as after a request
            log.info("scheduled job %s done: %s", entry.name, result)
        except Exception:
            log.exception("scheduled job %s failed", entry.name)
        finally:
            db.session.remove()
        ran.append(entry.name)
        due[entry.name] = next_run(entry, now)
    return ran


def run_inline(schedule=SCHEDULE, once: bool = False) -> None:
    """Without Redis: run the table in this process (there is no RQ scheduler to do it)."""
    due: dict[str, datetime] = {}
    log.info("running the schedule inline: %s", ", ".join(e.name for e in schedule))
    while True:
        run_due(due, datetime.now(UTC), schedule)
        if once:
            return
        wait = (min(due.values()) - datetime.now(UTC)).total_seconds()
        time.sleep(min(max(wait, 1), 60))


def init_app(app: Flask) -> None:
    @app.cli.command("scheduler")
    @click.option("--once", is_flag=True, help="Without Redis: run what is due now and stop.")
    def scheduler_command(once: bool) -> None:
        """Run the scheduled jobs: RQ's cron scheduler with REDIS_URL, inline without it."""
        if current_app.config["REDIS_URL"]:
            cron_scheduler().start()
        else:
            run_inline(once=once)
