"""Seen markers on custom-list items (spec 02 sections 3, 4, 7 and 8)."""

import re

import pytest
from sqlalchemy import select

from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import CustomList, CustomListItem, CustomListSeen, PreparationItem
from tests.conftest import csrf_token
from tests.helpers import page_text
from tests.shell.conftest import demo_user

URL = "/api/preparation-custom-list-seen"


def seller_list_and_item():
    seller = demo_user("seller@demo.test")
    activate(seller.active_instance_id)
    custom_list = db.session.scalars(
        select(CustomList).where(CustomList.user_id == seller.id).order_by(CustomList.name)
    ).first()
    item_id = db.session.scalars(
        select(CustomListItem.item_id).where(CustomListItem.custom_list_id == custom_list.id)
    ).first()
    return custom_list, item_id


def body(list_id, item_id) -> dict:
    return {"customList": f"/preparation-custom-lists/{list_id}", "item": f"/preparation-items/{item_id}"}  # fmt: skip


def post(client, token, data):
    return client.post(URL, json=data, headers={"X-CSRFToken": token})


def delete(client, token, seen_id):
    return client.delete(f"{URL}/{seen_id}", headers={"X-CSRFToken": token})


def row_class(client, list_id, item_id) -> str:
    html = page_text(client.get(f"/custom-list/{list_id}/list"))
    return re.search(rf'<tr class="([^"]*)" data-item-id="{item_id}">', html).group(1)


def test_marking_seen_removes_the_highlight_and_unmarking_restores_it(as_demo):
    client, token = as_demo("seller")
    custom_list, item_id = seller_list_and_item()
    assert "row-unseen" in row_class(client, custom_list.id, item_id)

    response = post(client, token, body(custom_list.id, item_id))
    assert response.status_code == 200
    seen_id = response.get_json()["id"]
    assert seen_id > 0
    assert "row-unseen" not in row_class(client, custom_list.id, item_id)
    assert f'"seenId": {seen_id}' in page_text(client.get(f"/custom-list/{custom_list.id}/list"))

    response = delete(client, token, seen_id)
    assert response.status_code == 204
    assert "row-unseen" in row_class(client, custom_list.id, item_id)


def test_marking_twice_answers_422_with_the_existing_marker(as_demo):
    client, token = as_demo("seller")
    custom_list, item_id = seller_list_and_item()
    first = post(client, token, body(custom_list.id, item_id)).get_json()["id"]
    response = post(client, token, body(custom_list.id, item_id))
    assert response.status_code == 422
    data = response.get_json()
    assert data["seenId"] == first
    assert data["error"] == "You have already marked this vehicle as seen."
    assert db.session.scalar(
        select(db.func.count()).select_from(CustomListSeen).where(CustomListSeen.item_id == item_id)
    ) == 1  # fmt: skip


def test_deleting_a_marker_that_no_longer_exists_answers_422(as_demo):
    client, token = as_demo("seller")
    custom_list, item_id = seller_list_and_item()
    seen_id = post(client, token, body(custom_list.id, item_id)).get_json()["id"]
    assert delete(client, token, seen_id).status_code == 204
    response = delete(client, token, seen_id)
    assert response.status_code == 422
    assert "no longer exists" in response.get_json()["error"]
    assert delete(client, token, 987654321).status_code == 422


def test_markers_are_per_user(as_demo):
    client, token = as_demo("seller")
    custom_list, item_id = seller_list_and_item()
    seen_id = post(client, token, body(custom_list.id, item_id)).get_json()["id"]
    # Another user of the same instance can neither use the seller's list nor the marker.
    other, other_token = as_demo("divadmin")
    assert post(other, other_token, body(custom_list.id, item_id)).status_code == 404
    assert delete(other, other_token, seen_id).status_code == 404
    assert db.session.get(CustomListSeen, seen_id) is not None


def test_another_instances_lists_items_and_markers_are_not_found(as_demo):
    client, token = as_demo("seller")
    custom_list, item_id = seller_list_and_item()
    seen_id = post(client, token, body(custom_list.id, item_id)).get_json()["id"]
    buyer, buyer_token = as_demo("buyer")
    assert post(buyer, buyer_token, body(custom_list.id, item_id)).status_code == 404
    assert delete(buyer, buyer_token, seen_id).status_code == 404
    # The seller's list with another instance's item.
    buyer_user = demo_user("buyer@demo.test")
    foreign = db.session.scalars(
        select(PreparationItem.id)
        .where(PreparationItem.instance_id == buyer_user.active_instance_id)
        .execution_options(all_instances=True)
    ).first()
    client, token = as_demo("seller")
    assert post(client, token, body(custom_list.id, foreign)).status_code == 404


def test_an_item_not_on_the_list_is_not_found(as_demo):
    client, token = as_demo("seller")
    custom_list, _item = seller_list_and_item()
    elsewhere = db.session.scalars(
        select(PreparationItem.id).where(
            PreparationItem.id.not_in(
                select(CustomListItem.item_id).where(CustomListItem.custom_list_id == custom_list.id)
            )
        )
    ).first()  # fmt: skip
    response = post(client, token, body(custom_list.id, elsewhere))
    assert response.status_code == 404
    assert response.get_json() == {"message": "The page or item could not be found."}


def test_an_item_outside_the_users_divisions_is_not_found(as_demo):
    client, token = as_demo("station")
    station = demo_user("station@demo.test")
    activate(station.active_instance_id)
    own = CustomList(user_id=station.id, name="Mina", instance_id=station.active_instance_id)
    db.session.add(own)
    db.session.flush()
    other = db.session.scalars(
        select(PreparationItem.id).where(
            PreparationItem.division_id.not_in([d.id for d in station.divisions])
        )
    ).first()
    db.session.add(CustomListItem(custom_list_id=own.id, item_id=other))
    db.session.flush()
    assert post(client, token, body(own.id, other)).status_code == 404


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"customList": "/preparation-custom-lists/abc", "item": "/preparation-items/1"}, "customList"),
        ({"customList": "/preparation-custom-lists/1", "item": "/market-adverts/1"}, "item"),
        ({"customList": "/preparation-custom-lists/1"}, "item"),
        ({"customList": 5, "item": "/preparation-items/1"}, "customList"),
    ],
)  # fmt: skip
def test_malformed_references_are_refused_with_a_message(as_demo, data, field):
    client, token = as_demo("seller")
    response = post(client, token, data)
    assert response.status_code == 422
    answer = response.get_json()
    assert field in answer["errors"]
    assert answer["message"]


def test_the_calls_need_a_csrf_token_and_a_sign_in(as_demo, demo_client):
    custom_list, item_id = seller_list_and_item()
    anonymous_token = csrf_token(demo_client, "/login")
    assert post(demo_client, anonymous_token, body(custom_list.id, item_id)).status_code == 401
    client, _token = as_demo("seller")
    assert client.post(URL, json=body(custom_list.id, item_id)).status_code == 400


def test_removing_a_vehicle_from_the_list_forgets_its_marker(as_demo):
    client, token = as_demo("seller")
    custom_list, item_id = seller_list_and_item()
    seen_id = post(client, token, body(custom_list.id, item_id)).get_json()["id"]
    client.post(f"/custom-list/{custom_list.id}/items/{item_id}/remove", data={"csrf_token": token})
    assert db.session.get(CustomListSeen, seen_id) is None


def test_the_calls_are_in_the_openapi_document(as_demo):
    client, _ = as_demo("seller")
    paths = client.get("/api/openapi.json").get_json()["paths"]
    assert "post" in paths["/api/preparation-custom-list-seen"]
    assert "delete" in paths["/api/preparation-custom-list-seen/{seen_id}"]
