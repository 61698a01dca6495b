"""Locations act (issue 30): a vehicle's parking, key and delivery location, set on the vehicle
page, in the add/edit form and from a station phone; every move in its history; the overview's
filter and column; a location in use cannot be deleted; never another division's or instance's."""

import re

from sqlalchemy import select

from app.core.models import Division
from app.extensions import db
from app.preparation.models import Location, PreparationItem
from tests.helpers import page_text
from tests.preparation.manage_helpers import (
    alerts,
    demo_item,
    foreign_item,
    fresh_shell_caches,  # noqa: F401 - autouse
    in_seller_instance,
)
from tests.preparation.test_items import vehicle_form
from tests.preparation.test_station import VEHICLES, wash_item, wash_next


def place(name: str, division_id: int, kind: str = "parking", module: str = "begcare"):
    """A location of the seller's instance, made for the test."""
    in_seller_instance()
    row = Location(module=module, kind=kind, name=name, division_id=division_id)
    db.session.add(row)
    db.session.flush()
    return row


def other_division(item: PreparationItem) -> Division:
    in_seller_instance()
    return db.session.scalars(
        select(Division).where(Division.id != item.division_id).order_by(Division.id)
    ).first()


def fresh(item: PreparationItem) -> PreparationItem:
    db.session.expire_all()
    return db.session.get(PreparationItem, item.id)


def move(client, token, item, kind: str, location_id, **extra):
    return client.post(
        f"/{item.module}/items/{item.id}/locations/{kind}",
        data={"csrf_token": token, "location_id": "" if location_id is None else location_id}
        | extra,
    )


def history_rows(html: str) -> list[str]:
    rows = re.findall(r'<tr data-kind="location">(.*?)</tr>', html, re.S)
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", r)).strip() for r in rows]


def test_the_vehicle_page_moves_a_vehicle_and_its_keys_and_keeps_every_move(as_demo):
    client, token = as_demo("seller")
    item = demo_item(6)
    item.parking_location_id = item.key_location_id = None  # the demo parked it already
    p1, p2 = place("Plan 1", item.division_id), place("Plan 2", item.division_id)
    cabinet = place("Skåp 9", item.division_id, kind="key")
    page = page_text(client.get(f"/begcare/{item.id}", follow_redirects=True))
    assert 'id="locations"' in page and "Plan 1" in page and "Skåp 9" in page

    assert move(client, token, item, "parking", p1.id).status_code == 302
    assert move(client, token, item, "parking", p2.id).status_code == 302
    response = move(client, token, item, "key", cabinet.id)
    assert response.headers["Location"].endswith("#locations")
    moved = fresh(item)
    assert (moved.parking_location_id, moved.key_location_id) == (p2.id, cabinet.id)

    page = page_text(client.get(response.headers["Location"], follow_redirects=True))
    assert ("success", f"The keys of {item.regno} are in Skåp 9.") in alerts(page)
    history = history_rows(page)
    assert any("Keys put in Skåp 9" in row and "Sara" in row for row in history), history
    assert any("Parking location changed from Plan 1 to Plan 2" in row for row in history)
    assert any("Parked at Plan 1" in row for row in history)
    # The place is shown as the choice made.
    assert re.search(rf'<option value="{p2.id}" selected>Plan 2</option>', page)

    move(client, token, item, "key", None)
    page = page_text(client.get(f"/begcare/{item.id}", follow_redirects=True))
    assert fresh(item).key_location_id is None
    assert any("Keys taken from Skåp 9" in row for row in history_rows(page))


def test_another_divisions_or_instances_or_kinds_location_is_never_taken(as_demo):
    client, token = as_demo("seller")
    item = demo_item(6)
    before = (item.parking_location_id, item.key_location_id)
    elsewhere = place("Annan ort", other_division(item).id)
    key_place = place("Nyckel", item.division_id, kind="key")
    newcare_place = place("Nybil", item.division_id, module="newcare")
    foreign = db.session.scalars(
        select(Location)
        .where(Location.instance_id == foreign_item().instance_id, Location.kind == "parking")
        .execution_options(all_instances=True)
    ).first()
    for location_id in (elsewhere.id, key_place.id, newcare_place.id, foreign.id, 999_999):
        response = move(client, token, item, "parking", location_id)
        assert response.status_code == 302
        page = page_text(client.get(response.headers["Location"], follow_redirects=True))
        assert ("danger", "Choose one of the division's parking locations.") in alerts(page)
    assert (fresh(item).parking_location_id, fresh(item).key_location_id) == before
    # Another instance's vehicle is not found at all; a malformed id is a clear refusal.
    other = foreign_item()
    assert move(client, token, other, "parking", foreign.id).status_code == 404
    assert move(client, token, item, "parking", "P1").status_code == 422
    assert client.post(
        f"/begcare/items/{item.id}/locations/roof", data={"csrf_token": token}
    ).status_code in (404, 405)


def test_a_station_user_moves_the_keys_in_one_tap(as_demo):
    client, token = as_demo("station")
    item = wash_item()
    wash_next(item, "pending")
    cabinet = place("Skåp 1", item.division_id, kind="key")
    page = page_text(client.get(VEHICLES))
    card = page.split(f'data-item-id="{item.id}"', 1)[1].split("</article>", 1)[0]
    assert 'data-location-kind="key"' in card and "Skåp 1" in card
    response = move(client, token, item, "key", cabinet.id, next=VEHICLES)
    assert response.status_code == 302 and response.headers["Location"] == VEHICLES
    assert fresh(item).key_location_id == cabinet.id
    card = page_text(client.get(VEHICLES)).split(f'data-item-id="{item.id}"', 1)[1]
    pressed = re.search(r'aria-pressed="true"\s+aria-label="([^"]+)"', card)
    assert pressed and "Skåp 1" in pressed.group(1)


def test_the_add_and_edit_form_sets_the_places_and_refuses_another_divisions(as_demo):
    client, token = as_demo("seller")
    in_seller_instance()
    solna = db.session.scalars(select(Division).where(Division.name == "Nordbil Solna")).one()
    mine = place("Solna P9", solna.id)
    other = place("Annan P9", other_division(PreparationItem(division_id=solna.id)).id)
    response = client.post(
        "/begcare/manage/vehicle?action=add",
        data=vehicle_form(token, parking_location_id=str(other.id)),
    )
    assert response.status_code == 422
    html = page_text(response)
    assert "Choose one of the division's parking locations." in html
    assert 'value="XYZ12A"' in html or 'value="xyz 12a"' in html  # the input is kept
    response = client.post(
        "/begcare/manage/vehicle?action=add",
        data=vehicle_form(token, parking_location_id=str(mine.id)),
    )
    assert response.status_code == 302
    added = db.session.scalars(
        select(PreparationItem).where(PreparationItem.regno == "XYZ12A")
    ).one()
    assert added.parking_location_id == mine.id
    page = page_text(client.get(response.headers["Location"]))
    assert any("Parked at Solna P9" in row for row in history_rows(page))


def test_the_delivery_location_belongs_to_the_delivery_flow(as_demo):
    client, token = as_demo("seller")
    parked, delivering = demo_item(6), demo_item(8)
    page = page_text(client.get(f"/begcare/{parked.id}", follow_redirects=True))
    assert 'data-location-kind="delivery"' not in page
    page = page_text(client.get(f"/begcare/{delivering.id}", follow_redirects=True))
    assert 'data-location-kind="delivery"' in page
    bay = place("Bay 2", delivering.division_id, kind="delivery")
    assert move(client, token, delivering, "delivery", bay.id).status_code == 302
    assert fresh(delivering).delivery_location_id == bay.id
    edit = page_text(client.get(f"/begcare/manage/vehicle?action=edit&id={delivering.id}"))
    assert 'name="delivery_location_id"' in edit
    edit = page_text(client.get(f"/begcare/manage/vehicle?action=edit&id={parked.id}"))
    assert 'name="delivery_location_id"' not in edit


def test_the_overview_filters_by_location_and_shows_it(as_demo):
    client, token = as_demo("seller")
    item = demo_item(6)
    here = place("Filterplats", item.division_id)
    move(client, token, item, "parking", here.id)
    page = page_text(
        client.get(f"/begcare/overview?division=all&advancedFilter[parkingLocation]={here.id}")
    )
    rows = re.findall(r'<tr data-item-id="(\d+)"', page)
    assert rows == [str(item.id)]
    assert "Filterplats" in page.split("data-item-id", 1)[1]  # the column
    assert f'<option value="{here.id}" selected>' in page  # the filter shows its choice
    foreign = db.session.scalars(
        select(Location)
        .where(Location.instance_id == foreign_item().instance_id)
        .execution_options(all_instances=True)
    ).first()
    page = page_text(
        client.get(f"/begcare/overview?division=all&advancedFilter[parkingLocation]={foreign.id}")
    )
    assert not re.findall(r'<tr data-item-id="(\d+)"', page)
    assert ">Filterplats (" in page  # offered (with its division): the instance's own only
    assert foreign.name not in re.findall(r"<option[^>]*>([^<]+)</option>", page)


def test_a_location_in_use_cannot_be_deleted_and_says_by_how_many(as_demo):
    client, token = as_demo("admin")
    item = demo_item(6)
    spot = place("Upptagen", item.division_id)
    item.parking_location_id = spot.id
    db.session.flush()
    spot_id = spot.id
    path = f"/admin/begcare/locations/{spot_id}/delete"
    page = page_text(client.get(path))
    assert "1 vehicle is at this location." in page
    assert 'class="btn btn-danger"' not in page
    response = client.post(path, data={"csrf_token": token})
    assert response.status_code == 409
    assert db.session.get(Location, spot_id) is not None
    item.parking_location_id = None
    db.session.flush()
    assert client.post(path, data={"csrf_token": token}).status_code == 302
    db.session.expire_all()
    assert db.session.get(Location, spot_id) is None
