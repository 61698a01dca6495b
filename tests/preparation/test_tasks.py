"""Station tasks: start, finish, assign and reopen from the manage page; the overdue warning;
the audit trail; refused changes leave the task as it was."""

import re
from datetime import timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm.attributes import set_committed_value

from app.core.audit import AuditLog
from app.core.models import Instance, utcnow
from app.extensions import db
from app.preparation import tasks as task_services
from app.preparation.models import ItemStationTask, PreparationItem
from tests.helpers import page_text
from tests.preparation.manage_helpers import (
    alerts,
    demo_item,
    fresh_shell_caches,  # noqa: F401 - autouse
    in_seller_instance,
    set_tasks,
    tasks_of,
)
from tests.shell.conftest import demo_user


def post_action(client, token, item, task, action, **extra):
    return client.post(
        f"/begcare/items/{item.id}/tasks/{task.id}/{action}",
        data={"csrf_token": token, **extra},
        follow_redirects=True,
    )


def audit_rows(item_id: int) -> list[AuditLog]:
    rows = db.session.scalars(
        select(AuditLog).where(AuditLog.action.like("preparation.task.%")).order_by(AuditLog.id)
    ).all()
    return [r for r in rows if r.details.get("item_id") == item_id]


def test_start_then_finish_records_who_and_when(as_demo):
    client, token = as_demo("seller")
    seller = demo_user("seller@demo.test")
    item = demo_item(3)
    first = tasks_of(item)[0]
    before = utcnow()

    response = post_action(client, token, item, first, "start")
    html = page_text(response)
    assert ("success", f"{first.station.shown_name} started for {item.regno}.") in alerts(html)
    assert f'data-task-id="{first.id}" data-status="active"' in html
    task = tasks_of(item)[0]
    assert task.status == "active" and task.assigned_user_id == seller.id
    assert task.started_at >= before.replace(microsecond=0)

    html = page_text(post_action(client, token, item, task, "finish"))
    assert f'data-task-id="{first.id}" data-status="done"' in html
    task = tasks_of(item)[0]
    assert task.status == "done" and task.finished_at >= task.started_at
    rows = audit_rows(item.id)
    assert [r.action for r in rows] == ["preparation.task.start", "preparation.task.finish"]
    assert all(r.user_id == seller.id and r.created_at >= before for r in rows)
    assert rows[0].details["station"] == first.station.name


def test_assign_to_me_and_reopen(as_demo):
    client, token = as_demo("seller")
    seller = demo_user("seller@demo.test")
    item = demo_item(4)
    set_tasks(item, ["done", "pending"])
    done, pending = tasks_of(item)[:2]

    html = page_text(post_action(client, token, item, pending, "assign"))
    assert (
        "success",
        f"{pending.station.shown_name} for {item.regno} is assigned to you.",
    ) in alerts(html)
    assert tasks_of(item)[1].assigned_user_id == seller.id
    assert tasks_of(item)[1].status == "pending"

    post_action(client, token, item, done, "reopen")
    reopened = tasks_of(item)[0]
    assert reopened.status == "pending"
    assert reopened.started_at is None and reopened.finished_at is None
    assert audit_rows(item.id)[-1].details["before"]["status"] == "done"


@pytest.mark.parametrize(
    ("status", "action", "message"),
    [
        ("pending", "finish", "Only a started task can be finished."),
        ("active", "start", "Only a task that has not started can be started."),
        ("done", "start", "Only a task that has not started can be started."),
        ("pending", "reopen", "Only a finished task can be reopened."),
        ("done", "assign", "A finished task cannot be assigned."),
    ],
)
def test_an_action_that_does_not_fit_the_tasks_status_is_refused(as_demo, status, action, message):
    client, token = as_demo("seller")
    item = demo_item(4)
    set_tasks(item, [status])
    task = tasks_of(item)[0]
    html = page_text(post_action(client, token, item, task, action))
    assert ("danger", message) in alerts(html)
    assert tasks_of(item)[0].status == status
    assert audit_rows(item.id) == []


def test_a_double_start_changes_the_task_once(demo_app):
    """Two people press Start on the same task: the second is told, nothing is overwritten."""
    item = demo_item(3)
    task = tasks_of(item)[0]
    worker = task_services.Worker(demo_user("admin@demo.test"), None)
    stale = task_services.Worker(demo_user("seller@demo.test"), None)
    task_services.start_task(task, worker)
    db.session.flush()
    set_committed_value(task, "status", "pending")  # the second request read it before
    with pytest.raises(task_services.TaskError, match="Someone else changed this task"):
        task_services.start_task(task, stale)
    db.session.expire_all()
    assert tasks_of(item)[0].assigned_user_id == worker.user.id


def test_a_station_user_works_only_the_tasks_of_their_stations(as_demo):
    client, token = as_demo("station")
    item = demo_item(3, division="Nordbil Solna")
    first = tasks_of(item)[0]  # Mekanisk kontroll: not the station user's
    assert first.station.name != "Tvätt"
    html = page_text(client.get(f"/begcare/items/awaiting/{item.id}/stations-utilize"))
    assert f'tasks/{first.id}/start"' not in html
    response = post_action(client, token, item, first, "start")
    assert ("danger", "This task belongs to a station you do not work at.") in alerts(
        page_text(response)
    )
    assert tasks_of(item)[0].status == "pending"


def test_an_action_without_the_csrf_token_is_refused(as_demo):
    client, _ = as_demo("seller")
    item = demo_item(3)
    task = tasks_of(item)[0]
    response = client.post(f"/begcare/items/{item.id}/tasks/{task.id}/start")
    assert response.status_code == 400
    assert tasks_of(item)[0].status == "pending"


def test_a_task_of_another_item_is_not_found(as_demo):
    client, token = as_demo("seller")
    item, other = demo_item(3), demo_item(4)
    task = tasks_of(other)[0]
    response = client.post(
        f"/begcare/items/{item.id}/tasks/{task.id}/start", data={"csrf_token": token}
    )
    assert response.status_code == 404


# --- overdue -----------------------------------------------------------------------------------


def test_an_overdue_active_task_warns_and_finishing_it_clears_the_warning(as_demo):
    client, token = as_demo("seller")
    item = demo_item(4)
    set_tasks(item, ["done", "pending"])
    item.warning = False
    db.session.flush()
    task = tasks_of(item)[1]
    post_action(client, token, item, task, "start")
    db.session.refresh(item)
    assert item.warning is False  # just started: within its target

    task = tasks_of(item)[1]
    task.started_at = utcnow() - timedelta(minutes=task.target_minutes + 1)
    db.session.flush()
    assert task_services.is_overdue(task)
    html = page_text(client.get(f"/begcare/items/list/{item.id}/stations-manage"))
    assert "Overdue" in html
    db.session.refresh(item)
    assert item.warning is True

    post_action(client, token, item, task, "finish")
    db.session.refresh(item)
    assert item.warning is False


def test_the_sweep_sets_and_clears_warnings_across_the_instance(demo_app):
    in_instance = demo_item(4)
    set_tasks(in_instance, ["active"], minutes_ago=10_000)
    in_instance.warning = False
    calm = demo_item(6)
    calm.warning = True
    db.session.flush()
    set_count, cleared = task_services.sync_overdue_warnings()
    assert set_count >= 1 and cleared >= 1
    db.session.refresh(in_instance)
    db.session.refresh(calm)
    assert in_instance.warning is True and calm.warning is False
    overdue_ids = {
        t.item_id
        for t in db.session.scalars(
            select(ItemStationTask).where(ItemStationTask.status == "active")
        )
        if task_services.is_overdue(t)
    }
    flagged = set(
        db.session.scalars(select(PreparationItem.id).where(PreparationItem.warning.is_(True)))
    )
    assert flagged == overdue_ids


def test_the_sync_warnings_command_covers_every_instance(demo_app):
    item = demo_item(4)
    set_tasks(item, ["active"], minutes_ago=10_000)
    item.warning = False
    db.session.flush()
    result = demo_app.test_cli_runner().invoke(args=["preparation", "sync-warnings"])
    assert result.exit_code == 0, result.output
    instances = db.session.scalar(select(func.count()).select_from(Instance))
    assert (
        len(re.findall(r"instance \d+: \d+ warnings set, \d+ cleared", result.output)) == instances
    )
    in_seller_instance()
    db.session.refresh(item)
    assert item.warning is True


def test_minutes_taken_and_overdue_follow_the_target():
    class Task:
        status, target_minutes = "active", 30
        started_at = utcnow() - timedelta(minutes=45)
        finished_at = None

    assert task_services.is_overdue(Task) is True
    assert task_services.minutes_taken(Task) == 45
    Task.status, Task.finished_at = "done", Task.started_at + timedelta(minutes=20)
    assert task_services.is_overdue(Task) is False
    assert task_services.minutes_taken(Task) == 20


def test_undo_takes_back_ones_own_finish_of_today_and_history_says_so(as_demo):
    client, token = as_demo("seller")
    item = demo_item(3)
    first = tasks_of(item)[0]
    post_action(client, token, item, first, "start")
    post_action(client, token, item, tasks_of(item)[0], "finish")
    started = tasks_of(item)[0].started_at

    html = page_text(post_action(client, token, item, tasks_of(item)[0], "undo"))
    assert (
        "success",
        f"{first.station.shown_name} for {item.regno} is in progress again.",
    ) in alerts(html)
    task = tasks_of(item)[0]
    assert (task.status, task.finished_at, task.started_at) == ("active", None, started)
    assert audit_rows(item.id)[-1].action == "preparation.task.undo"
    assert f"{first.station.shown_name} finish taken back" in html  # the vehicle's history


@pytest.mark.parametrize(
    ("finished_by_me", "days_ago", "message"),
    [
        (False, 0, "Only a task you finished today can be taken back."),
        (True, 1, "Only a task you finished today can be taken back."),
    ],
)
def test_undo_refuses_someone_elses_or_an_earlier_days_finish(
    as_demo, finished_by_me, days_ago, message
):
    client, token = as_demo("seller")
    item = demo_item(4)
    set_tasks(item, ["done"])
    task = tasks_of(item)[0]
    task.assigned_user_id = demo_user("seller@demo.test").id if finished_by_me else None
    task.finished_at = utcnow() - timedelta(days=days_ago, hours=1 if days_ago else 0)
    db.session.commit()
    html = page_text(post_action(client, token, item, task, "undo"))
    assert ("danger", message) in alerts(html)
    assert tasks_of(item)[0].status == "done"


def overdue_vehicles(n: int, start: int) -> list[PreparationItem]:
    """`n` new vehicles of the seller's instance, each with a task at a station two days over
    its target."""
    model = demo_item(4)
    task = tasks_of(model)[0]
    items = [
        PreparationItem(
            module="begcare", division_id=model.division_id, state=4, regno=f"OVD{start + k:03d}",
            brand="Volvo", model="V60",
        )
        for k in range(n)
    ]  # fmt: skip
    db.session.add_all(items)
    db.session.flush()
    db.session.add_all(
        ItemStationTask(
            item_id=item.id, station_id=task.station_id, status="active",
            target_minutes=task.target_minutes, started_at=utcnow() - timedelta(days=2),
        )
        for item in items
    )  # fmt: skip
    db.session.flush()
    return items


def test_the_sweep_sends_as_many_statements_for_50_overdue_vehicles_as_for_5(demo_app):
    from sqlalchemy import event

    from app.automation.models import WebhookDelivery, WebhookEndpoint
    from app.core.notifications import Notification
    from app.core.settings import SettingRow

    in_seller_instance()
    db.session.add_all([
        WebhookEndpoint(name="DMS", url="https://dms.example.test/", events=["task.overdue"]),
        SettingRow(kind="event", name="Late", active=True, data={
            "event": "task_overdue", "action": "notify", "target": "admin@demo.test"}),
    ])  # fmt: skip
    db.session.flush()
    task_services.sync_overdue_warnings()  # the demo's own warnings brought up to date first
    admin = demo_user("admin@demo.test")

    def sweep(items):
        statements = []
        listener = lambda *args: statements.append(args[2])  # noqa: E731
        event.listen(db.engine, "before_cursor_execute", listener)
        try:
            assert task_services.sync_overdue_warnings() == (len(items), 0)
        finally:
            event.remove(db.engine, "before_cursor_execute", listener)
        ids = [i.id for i in items]
        flagged = db.session.scalars(
            select(PreparationItem.id).where(PreparationItem.warning.is_(True))
        ).all()
        assert set(ids) <= set(flagged)
        told = db.session.scalars(
            select(WebhookDelivery).where(WebhookDelivery.event == "task.overdue")
        ).all()
        assert sorted(
            d.payload["data"]["itemId"] for d in told if d.payload["data"]["itemId"] in ids
        ) == sorted(ids)
        notes = db.session.scalars(
            select(Notification).where(Notification.user_id == admin.id)
        ).all()
        assert {f"/begcare/{i}" for i in ids} <= {n.link for n in notes}
        return len(statements)

    five = sweep(overdue_vehicles(5, 0))
    fifty = sweep(overdue_vehicles(50, 5))
    assert fifty == five
