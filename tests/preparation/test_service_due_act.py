"""Service schedules act (issue 30): a vehicle past its brand's interval (kilometres or months
since its last service, or since stock-in when unknown) is due: its preparation gets the
schedule's check-up tasks as station tasks, once, and the lists say "Service due"; finishing
the check-up records the service."""

import re
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import event, select

from app.core.settings import GlobalSettingRow
from app.extensions import db
from app.preparation import service_due, tasks
from app.preparation.models import ItemStationTask, PreparationItem
from app.schedule.jobs import evaluate_service_due
from app.schedule.table import SCHEDULE
from tests.helpers import page_text
from tests.preparation.manage_helpers import (
    alerts,
    demo_user,
    fresh_shell_caches,  # noqa: F401 - autouse
    in_seller_instance,
)


def schedule() -> GlobalSettingRow:
    return db.session.scalars(
        select(GlobalSettingRow).where(GlobalSettingRow.kind == "service_schedule")
    ).one()


def volvo(due: bool = False) -> PreparationItem:
    """A used Volvo in the flow of the seller's company, due or not."""
    in_seller_instance()
    return db.session.scalars(
        select(PreparationItem)
        .where(
            PreparationItem.brand == "Volvo", PreparationItem.module == "begcare",
            PreparationItem.state == 4, PreparationItem.service_due.is_(due),
            PreparationItem.last_service_mileage.is_not(None),
        )
        .order_by(PreparationItem.id)
    ).first()  # fmt: skip


def checkups(item) -> list[ItemStationTask]:
    db.session.expire_all()
    return list(
        db.session.scalars(
            select(ItemStationTask).where(
                ItemStationTask.item_id == item.id, ItemStationTask.checkup_task_id.is_not(None)
            )
        )
    )


def overview_ids(client, query: str) -> set[int]:
    page = page_text(client.get(f"/begcare/overview?division=all&{query}&lang=en-GB"))
    return {int(i) for i in re.findall(r'<tr data-item-id="(\d+)"', page)}


def test_a_shorter_interval_makes_a_vehicle_due_with_its_checkup_tasks_once(as_demo):
    client, token = as_demo("admin")
    item = volvo()
    run = item.mileage - item.last_service_mileage
    assert not item.service_due and not checkups(item)
    row = schedule()
    form = {
        "csrf_token": token, "name": row.name, "x_brand": "volvo ", "x_interval_km": str(max(run, 1)),
        "x_interval_months": "", "active": "y",
    }  # fmt: skip
    assert (
        client.post(f"/admin/global/service-schedule/{row.id}/edit", data=form).status_code == 302
    )
    db.session.expire_all()  # as a job's own session: the screen's save read afresh
    result = evaluate_service_due()  # the nightly job
    db.session.expire_all()
    item = db.session.get(PreparationItem, item.id)
    assert item.service_due is True and result[item.instance_id][0] >= 1
    given = checkups(item)
    names = {t.name for t in service_due.checkup_tasks(row.id)}
    assert len(given) == len(names) == 3
    assert {t.status for t in given} == {"pending"}
    first_station = min(
        (t.station for t in given), key=lambda s: (s.ordering, s.id)
    )  # the module's first station: the workshop in the demo
    assert {t.station_id for t in given} == {first_station.id}
    evaluate_service_due()  # again: nothing twice
    assert len(checkups(item)) == 3
    # The vehicle page lists them by name; the lists say "Service due" and filter on it.
    client, _token = as_demo("seller")
    page = page_text(client.get(f"/begcare/{item.id}?lang=en-GB", follow_redirects=True))
    assert "Engine oil and filter change" in page and "Brake inspection" in page
    assert "data-service-due>Service due</a>" in page
    assert item.id in overview_ids(client, "serviceDue=1")
    assert item.id not in overview_ids(client, "serviceDue=0")
    flow = page_text(client.get("/begcare/items/list?lang=en-GB"))
    row_html = re.search(rf'<tr data-item-id="{item.id}".*?</tr>', flow, re.S)
    if row_html:  # on the first page of the flow
        assert "Service due" in row_html.group(0)
    # A longer interval: no longer due (the open tasks stay for the workshop to decide).
    form["x_interval_km"] = str(run + 100_000)
    client, token = as_demo("admin")
    form["csrf_token"] = token
    assert (
        client.post(f"/admin/global/service-schedule/{row.id}/edit", data=form).status_code == 302
    )
    db.session.expire_all()
    evaluate_service_due()
    assert db.session.get(PreparationItem, item.id).service_due is False


def test_due_by_months_counts_from_the_last_service_or_the_stock_in():
    rule = service_due.Schedule(1, "volvo", None, 12)
    item = PreparationItem(
        state=4, brand="Volvo", mileage=100, created_at=datetime(2025, 3, 10, tzinfo=UTC)
    )
    assert service_due.is_due(item, rule, date(2026, 3, 9)) is False
    assert service_due.is_due(item, rule, date(2026, 3, 10)) is True  # a year after stock-in
    item.last_service_on = date(2026, 1, 31)
    assert service_due.is_due(item, rule, date(2027, 1, 30)) is False
    assert service_due.is_due(item, rule, date(2027, 1, 31)) is True
    for state in (1, 9):  # a lead (not bought yet) or archived: never
        item.state = state
        assert service_due.is_due(item, rule, date(2030, 1, 1)) is False
    by_km = service_due.Schedule(1, "volvo", 15_000, None)
    item = PreparationItem(
        state=4, brand="Volvo", mileage=14_999, created_at=datetime(2020, 1, 1, tzinfo=UTC)
    )
    assert service_due.is_due(item, by_km, date(2026, 1, 1)) is False
    item.mileage = 15_000
    assert service_due.is_due(item, by_km, date(2026, 1, 1)) is True  # unknown: since 0 km
    item.last_service_mileage = 10_000
    assert service_due.is_due(item, by_km, date(2026, 1, 1)) is False
    assert service_due.is_due(item, None, date(2026, 1, 1)) is False  # no schedule for the brand


def test_the_last_service_on_the_vehicle_page_evaluates_it_at_once(as_demo):
    client, token = as_demo("seller")
    item = volvo()
    path = f"/begcare/items/{item.id}/last-service?lang=en-GB"
    response = client.post(
        path,
        data={"csrf_token": token, "last_service_on": "2999-01-01", "last_service_mileage": "12x"},
    )
    page = page_text(response)
    assert response.status_code == 422
    assert "Enter a date that has passed" in page and "Enter a whole number from 0 to" in page
    assert 'value="12x"' in page and 'value="2999-01-01"' in page  # kept as typed
    today = date.today()
    response = client.post(
        path,
        data={
            "csrf_token": token,
            "last_service_on": str(today - timedelta(days=400)),
            "last_service_mileage": "0",
        },
    )
    assert response.status_code == 302 and response.headers["Location"].endswith("#service")
    db.session.expire_all()
    item = db.session.get(PreparationItem, item.id)
    assert item.service_due is True and len(checkups(item)) == 3
    page = page_text(client.get(response.headers["Location"], follow_redirects=True))
    assert ("success", f"The last service of {item.regno} is saved.") in alerts(page)
    # Finishing every check-up task records the service: no longer due, nothing new given.
    worker = tasks.Worker.of(demo_user("seller@demo.test"), [])
    for task in checkups(item):
        tasks.work_task(item, task, "start", worker)
        tasks.work_task(item, task, "finish", worker)
    db.session.flush()
    db.session.expire_all()
    item = db.session.get(PreparationItem, item.id)
    assert item.service_due is False
    assert item.last_service_on is not None and item.last_service_mileage == item.mileage
    service_due.evaluate(item)
    assert len(checkups(item)) == 3


def test_a_checkup_task_s_schedule_is_a_choice_and_the_job_is_scheduled(as_demo):
    client, token = as_demo("admin")
    response = client.post(
        "/admin/global/service-schedule/checkup-tasks/new",
        data={"csrf_token": token, "name": "Wiper check", "x_schedule": "999999", "active": "y"},
    )
    assert response.status_code == 422 and "Not a valid choice" in page_text(response)
    page = page_text(client.get("/admin/global/service-schedule/checkup-tasks"))
    assert "<td>Volvo</td>" in page  # the schedule by its name, not its id
    assert any(entry.func == "app.schedule.jobs:evaluate_service_due" for entry in SCHEDULE)


def test_a_vehicle_added_past_its_interval_is_due_at_once(as_demo):
    client, token = as_demo("seller")
    item = volvo()
    form = {
        "csrf_token": token, "division_id": str(item.division_id), "regno": "SRV123",
        "brand": "Volvo", "model": "XC60", "mileage": "45 000",
    }  # fmt: skip
    response = client.post("/begcare/manage/vehicle?action=add", data=form)
    assert response.status_code == 302, page_text(response)
    added = db.session.scalars(
        select(PreparationItem).where(PreparationItem.regno == "SRV123")
    ).one()
    assert added.service_due is True and len(checkups(added)) == 3


class Reads:
    """Count the SELECT statements sent while active (the writes a night makes are one per
    row on SQLite, batched on PostgreSQL)."""

    def __init__(self) -> None:
        self.count = 0

    def __enter__(self):
        event.listen(db.engine, "before_cursor_execute", self._seen)
        return self

    def __exit__(self, *exc) -> None:
        event.remove(db.engine, "before_cursor_execute", self._seen)

    def _seen(self, _conn, _cursor, statement, *_args) -> None:
        self.count += statement.lstrip().upper().startswith("SELECT")


def test_the_night_reads_the_check_up_tasks_once_not_once_per_vehicle(as_demo):
    """The nightly job's reads do not grow with the vehicles it evaluates, the night it gives
    them their tasks nor the nights after (issue 34: it read two to four times per due
    vehicle, tens of thousands of statements a night on a dealer group's million vehicles)."""
    client, token = as_demo("admin")
    row = schedule()
    form = {
        "csrf_token": token, "name": row.name, "x_brand": "volvo", "x_interval_km": "1",
        "x_interval_months": "", "active": "y",
    }  # fmt: skip
    assert (
        client.post(f"/admin/global/service-schedule/{row.id}/edit", data=form).status_code == 302
    )
    db.session.expire_all()
    with Reads() as first_reads:
        first = evaluate_service_due()  # every Volvo in stock with a mileage is due: tasks given
    due = sum(d for d, _added in first.values())
    assert due >= 5 and sum(added for _d, added in first.values()) >= due
    db.session.expire_all()
    with Reads() as again_reads:
        again = evaluate_service_due()
    assert again == {i: (d, 0) for i, (d, _added) in first.items()}  # nothing given twice
    assert first_reads.count < due and again_reads.count < due
