"""The station user's screens: the vehicles waiting at their stations, started and finished
from there, and their profile with today's finished tasks."""

import re

from sqlalchemy import select

from app.core.models import Division
from app.extensions import db
from app.preparation.models import (
    ItemStationTask,
    PreparationItem,
    StationPackageStep,
    user_stations,
)
from app.preparation.services import move_item
from app.preparation.tasks import station_queue
from tests.helpers import page_text
from tests.preparation.manage_helpers import (
    QueryCounter,
    alerts,
    demo_item,
    fresh_shell_caches,  # noqa: F401 - autouse
    set_tasks,
    station_named,
    tasks_of,
)
from tests.shell.conftest import demo_user

VEHICLES = "/begcare/station/vehicles"


def queue_items(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'class="station-card[^"]*" data-item-id="(\d+)"', html)]


def wash_item(division: str = "Nordbil Solna", state: int = 4) -> PreparationItem:
    """A begcare item of `division` whose package has the wash (Tvätt) after another station."""
    wash = station_named("Tvätt")
    for item in db.session.scalars(
        select(PreparationItem)
        .join(Division, Division.id == PreparationItem.division_id)
        .where(
            Division.name == division,
            PreparationItem.module == "begcare",
            PreparationItem.state == state,
            PreparationItem.package_id.is_not(None),
        )
        .order_by(PreparationItem.id)
    ):
        stations = [t.station_id for t in tasks_of(item)]
        if wash.id in stations and stations.index(wash.id) > 0:
            return item
    raise AssertionError("no demo item with a wash task")


def wash_task(item) -> ItemStationTask:
    wash = station_named("Tvätt")
    return next(t for t in tasks_of(item) if t.station_id == wash.id)


def wash_next(item, status: str) -> None:
    """Every task before the wash done, the wash `status`, the rest pending."""
    index = [t.id for t in tasks_of(item)].index(wash_task(item).id)
    set_tasks(item, ["done"] * index + [status] + ["pending"] * 5)


def test_the_queue_holds_the_vehicles_whose_next_task_is_at_the_users_station(as_demo):
    client, _ = as_demo("station")
    demo_item()  # the seller's instance is active for the set-up below
    waiting, not_yet, working = wash_item(), wash_item(state=3), wash_item(state=2)
    wash_next(waiting, "pending")
    set_tasks(not_yet, ["pending"] * 5)  # the mechanical check comes first
    wash_next(working, "active")
    elsewhere = wash_item(division="Nordbil Göteborg")
    wash_next(elsewhere, "pending")

    html = page_text(client.get(VEHICLES))
    shown = queue_items(html)
    assert waiting.id in shown and working.id in shown
    assert not_yet.id not in shown and elsewhere.id not in shown
    assert shown.index(working.id) < shown.index(waiting.id)  # the one in progress first
    card = html.split(f'data-item-id="{waiting.id}"', 1)[1].split("</li>", 1)[0]
    assert waiting.regno in card and "Wash" in card and "Waiting" in card
    assert f'/tasks/{wash_task(waiting).id}/start"' in card


def test_a_vehicle_is_started_and_finished_from_the_queue(as_demo):
    client, token = as_demo("station")
    station_user = demo_user("station@demo.test")
    demo_item()
    item = wash_item()
    wash_next(item, "pending")
    task = wash_task(item)

    response = client.post(
        f"/begcare/items/{item.id}/tasks/{task.id}/start",
        data={"csrf_token": token, "next": VEHICLES},
    )
    assert response.headers["Location"] == VEHICLES
    html = page_text(client.get(VEHICLES))
    assert ("success", f"Wash started for {item.regno}.") in alerts(html)
    card = html.split(f'data-item-id="{item.id}"', 1)[1].split("</li>", 1)[0]
    assert "In progress" in card and f'/tasks/{task.id}/finish"' in card

    client.post(
        f"/begcare/items/{item.id}/tasks/{task.id}/finish",
        data={"csrf_token": token, "next": VEHICLES},
    )
    assert item.id not in queue_items(page_text(client.get(VEHICLES)))
    done = wash_task(item)
    assert done.status == "done" and done.assigned_user_id == station_user.id

    profile = page_text(client.get("/begcare/station/profile"))
    assert item.regno in profile and "Finished today" in profile


def test_the_next_station_sees_the_vehicle_once_the_wash_is_done(as_demo):
    client, token = as_demo("station")
    demo_item()
    item = wash_item()
    wash_next(item, "active")
    wash_index = [t.id for t in tasks_of(item)].index(wash_task(item).id)
    after = tasks_of(item)[wash_index + 1]  # the interior clean comes after the wash
    assert item.id in queue_items(page_text(client.get(VEHICLES)))
    client.post(
        f"/begcare/items/{item.id}/tasks/{wash_task(item).id}/finish",
        data={"csrf_token": token},
    )
    assert item.id not in queue_items(page_text(client.get(VEHICLES)))
    # Whoever works at the next station now has it in their queue.
    rows = station_queue([after.station_id], [item.division_id])
    assert item.id in [r.item.id for r in rows]


def test_only_items_being_prepared_are_in_the_queue(as_demo):
    client, _ = as_demo("station")
    demo_item()
    item = wash_item()
    wash_next(item, "pending")
    move_item(item, 5)  # parked: no one works on it now
    db.session.flush()
    assert item.id not in queue_items(page_text(client.get(VEHICLES)))


def test_the_profile_lists_the_users_stations(as_demo):
    client, _ = as_demo("station")
    html = page_text(client.get("/begcare/station/profile"))
    assert "Wash" in html and "Reconditioning" in html  # Tvätt, Rekond
    assert "Stefan Berg" in html


def test_station_pages_are_for_station_users(as_demo):
    client, _ = as_demo("seller")
    assert client.get(VEHICLES).status_code == 404
    assert client.get("/begcare/station/profile").status_code == 404


def test_a_station_user_with_no_station_is_told_so(as_demo):
    station_user = demo_user("station@demo.test")
    db.session.execute(user_stations.delete().where(user_stations.c.user_id == station_user.id))
    db.session.flush()
    client, _ = as_demo("station")
    html = page_text(client.get(VEHICLES))
    assert "You are not placed at any station yet" in html


def test_the_queue_costs_the_same_queries_with_many_vehicles(as_demo):
    client, _ = as_demo("station")
    demo_item()
    client.get(VEHICLES)  # warm the shell's caches

    def queries() -> tuple[int, int]:
        with QueryCounter() as counter:
            html = page_text(client.get(VEHICLES))
        return counter.count, len(queue_items(html))

    few, shown = queries()
    wash = station_named("Tvätt")
    solna = [
        i
        for i in db.session.scalars(
            select(PreparationItem)
            .join(Division, Division.id == PreparationItem.division_id)
            .join(StationPackageStep, StationPackageStep.package_id == PreparationItem.package_id)
            .where(
                Division.name == "Nordbil Solna",
                PreparationItem.module == "begcare",
                PreparationItem.state.in_([2, 3, 4]),
                StationPackageStep.station_id == wash.id,
            )
        )
    ]
    for item in solna:
        index = [t.station_id for t in tasks_of(item)].index(wash.id)
        set_tasks(item, ["done"] * index + ["active"] + ["pending"] * 5)
    many, shown_after = queries()
    assert shown_after > shown
    assert many == few
