"""Scheduled work: each job of the table does its work; the inline runner and RQ's cron
scheduler run the table."""

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from app.auth.models import PasswordResetToken
from app.core.models import utcnow
from app.extensions import db
from app.mail.models import EmailMessage
from app.market.endings import close_ended_adverts
from app.market.models import Advert
from app.preparation.models import ItemStationTask, PreparationItem
from app.schedule import runner
from app.schedule.jobs import purge_reset_tokens, refresh_overdue_warnings
from app.schedule.table import SCHEDULE, Scheduled
from tests.core._rq import needs_redis
from tests.factories import make_user
from tests.shell.conftest import demo_user

CALLS: list = []


def record() -> None:
    CALLS.append(utcnow())


@pytest.fixture(autouse=True)
def _no_calls():
    CALLS.clear()
    yield
    CALLS.clear()


def _all(stmt):
    return stmt.execution_options(all_instances=True)


# --- the jobs ---------------------------------------------------------------------------------


def test_the_overdue_refresh_sets_and_clears_warnings_in_every_instance(demo_app):
    with demo_app.app_context():
        task, item = db.session.execute(
            _all(
                select(ItemStationTask, PreparationItem)
                .join(PreparationItem, PreparationItem.id == ItemStationTask.item_id)
                .where(ItemStationTask.status == "active")
            )
        ).first()
        task.started_at = utcnow() - timedelta(minutes=task.target_minutes + 5)
        item.warning = False
        calm = db.session.scalars(
            _all(select(PreparationItem).where(PreparationItem.state == 9))
        ).first()
        calm.warning = True  # archived: no active task, so no warning
        db.session.commit()

        result = refresh_overdue_warnings()

        db.session.expire_all()
        assert db.session.get(PreparationItem, item.id).warning is True
        assert db.session.get(PreparationItem, calm.id).warning is False
        assert item.instance_id in result and calm.instance_id in result


def test_ended_adverts_are_closed_and_their_sellers_told_in_their_zone(demo_app):
    with demo_app.app_context():
        advert = db.session.scalars(
            _all(select(Advert).where(Advert.status == "published").order_by(Advert.id))
        ).first()
        ended = datetime(2026, 11, 20, 15, 30, tzinfo=UTC)
        advert.ends_at = ended
        open_one = db.session.scalars(
            _all(select(Advert).where(Advert.status == "published", Advert.id != advert.id))
        ).first()
        open_one.ends_at = utcnow() + timedelta(days=2)
        db.session.commit()

        assert close_ended_adverts() >= 1

        db.session.expire_all()
        assert db.session.get(Advert, advert.id).status == "closed"
        assert db.session.get(Advert, open_one.id).status == "published"
        seller = demo_user("seller@demo.test")
        mails = db.session.scalars(
            _all(
                select(EmailMessage).where(
                    EmailMessage.kind == "market_ended", EmailMessage.to_address == seller.email
                )
            )
        ).all()
        mine = [m for m in mails if advert.regno in m.subject]
        assert mine, "the seller is told"
        # The demo seller reads Stockholm time: 15:30 UTC is 16:30 there in November.
        assert "2026-11-20 16:30" in mine[0].body_text
        assert "2026-11-20 16:30 (Stockholm, CET)" in mine[0].body_text
        assert "http" in mine[0].body_text  # a link back to the advert

        # A second run finds nothing more to close for it, and tells nobody again.
        close_ended_adverts()
        again = db.session.scalars(
            _all(select(EmailMessage).where(EmailMessage.kind == "market_ended"))
        ).all()
        assert len([m for m in again if advert.regno in m.subject]) == len(mine)


def test_expired_and_used_reset_tokens_are_purged(app):
    user = make_user()
    now = utcnow()

    def token(name, expires, used=None):
        row = PasswordResetToken(
            user_id=user.id, token_hash=name.ljust(64, "0"), created_at=now - timedelta(days=3),
            expires_at=expires, used_at=used,
        )  # fmt: skip
        db.session.add(row)
        return row

    old = token("old", now - timedelta(days=2))
    used = token("used", now + timedelta(hours=1), used=now - timedelta(days=2))
    fresh = token("fresh", now + timedelta(minutes=30))
    just_expired = token("just", now - timedelta(minutes=5))
    db.session.flush()
    assert purge_reset_tokens() == 2
    left = set(db.session.scalars(select(PasswordResetToken.id)))
    assert left == {fresh.id, just_expired.id}
    assert old.id not in left and used.id not in left


# --- the runners ------------------------------------------------------------------------------

TEST_SCHEDULE = (
    Scheduled("every-minute", "tests.schedule.test_schedule:record", every=60),
    Scheduled("hourly", "tests.schedule.test_schedule:record", cron="0 * * * *"),
)


def test_the_inline_runner_runs_each_entry_when_it_is_due(app):
    due: dict = {}
    start = datetime(2026, 11, 24, 10, 20, tzinfo=UTC)
    with app.app_context():
        assert runner.run_due(due, start, TEST_SCHEDULE) == ["every-minute"]
        assert runner.run_due(due, start + timedelta(seconds=30), TEST_SCHEDULE) == []
        assert runner.run_due(due, start + timedelta(seconds=60), TEST_SCHEDULE) == ["every-minute"]
        ran = runner.run_due(due, due["hourly"], TEST_SCHEDULE)
    assert "hourly" in ran
    assert len(CALLS) == 2 + len(ran)
    assert due["hourly"].minute == 0 and due["hourly"] > start


def test_a_failing_job_does_not_stop_the_others(app, caplog):
    schedule = (
        Scheduled("broken", "tests.core.test_jobs:explode", every=60),
        Scheduled("fine", "tests.schedule.test_schedule:record", every=60),
    )
    with app.app_context():
        ran = runner.run_due({}, utcnow(), schedule)
    assert ran == ["broken", "fine"]
    assert len(CALLS) == 1
    assert "scheduled job broken failed" in caplog.text


def test_the_scheduler_command_runs_the_table_inline_without_redis(app, monkeypatch):
    monkeypatch.setattr(runner, "SCHEDULE", TEST_SCHEDULE)
    monkeypatch.setattr(runner.run_inline, "__defaults__", (TEST_SCHEDULE, False))
    result = app.test_cli_runner().invoke(args=["scheduler", "--once"])
    assert result.exit_code == 0, result.output
    assert len(CALLS) == 1  # the interval entry at once; the hourly one at its hour


def test_the_table_is_registered_with_rqs_cron_scheduler(app):
    with app.app_context():
        scheduler = runner.cron_scheduler()
    registered = {job.name: job for job in scheduler.get_jobs()}
    assert set(registered) == {entry.name for entry in SCHEDULE}
    for entry in SCHEDULE:
        job = registered[entry.name]
        assert job.func_name == "app.core.jobs.run"
        assert job.args == (entry.func,)
        assert (job.interval, job.cron) == (entry.every, entry.cron)


@needs_redis
def test_with_redis_rqs_cron_scheduler_queues_the_jobs_and_a_worker_runs_them(app, rq_queue):
    from rq import SimpleWorker

    with app.app_context():
        scheduler = runner.cron_scheduler(TEST_SCHEDULE[:1])
        enqueued = scheduler.enqueue_jobs()
    assert [job.name for job in enqueued] == ["every-minute"]
    assert rq_queue.count == 1
    assert rq_queue.jobs[0].args == ("tests.schedule.test_schedule:record",)
    worker = SimpleWorker([rq_queue], connection=rq_queue.connection)
    assert worker.work(burst=True)
    assert len(CALLS) == 1
    with app.app_context():
        assert scheduler.enqueue_jobs() == []  # not due again before its interval
