"""My lists: saving the overview's filters as a list, renaming and deleting it."""

from sqlalchemy import select

from app.extensions import db
from app.preparation.models import DynamicList
from tests.factories import make_user
from tests.helpers import page_text, sign_in
from tests.shell.conftest import demo_user


def _save(client, token, title, **filters):
    return client.post(
        "/my-lists", data={"csrf_token": token, "module": "begcare", "title": title, **filters}
    )


def test_the_overview_offers_to_save_its_current_filters(as_demo):
    client, _token = as_demo("seller")
    text = page_text(client.get("/begcare/overview?brand=Volvo&enum[state]=4"))
    assert "Save these filters as a list under My lists" in text
    assert 'name="brand" value="Volvo"' in text
    assert 'name="enum[state]" value="4"' in text


def test_saved_filters_become_a_list_that_finds_the_same_vehicles(as_demo):
    client, token = as_demo("seller")
    response = _save(client, token, "  Volvo   i flödet ", brand="Volvo", **{"enum[state]": "4"})
    assert response.status_code == 302
    seller = demo_user("seller@demo.test")
    dynamic = db.session.scalars(
        select(DynamicList).where(
            DynamicList.user_id == seller.id, DynamicList.title == "Volvo i flödet"
        )
    ).one()
    assert response.headers["Location"] == f"/my-lists/{dynamic.uuid}"
    assert dynamic.filters == {"brand": "Volvo", "enum[state]": "4"}
    assert client.get(f"/my-lists/{dynamic.uuid}").status_code == 200
    # It shows in the menu and in GET /api/me at once.
    assert "Volvo i flödet" in page_text(client.get("/my-lists"))
    items = client.get("/api/me").get_json()["dynamicListMenuItems"]
    assert {"dynamicList": {"title": "Volvo i flödet", "uuid": dynamic.uuid}} in items


def test_a_list_needs_a_unique_name_and_readable_filters_and_keeps_the_input(as_demo):
    client, token = as_demo("seller")
    empty = _save(client, token, "  ", brand="Volvo")
    assert empty.status_code == 422
    assert "Enter a name for the list." in page_text(empty)
    assert 'name="brand" value="Volvo"' in page_text(empty)
    taken = _save(client, token, "elbilar i lager", brand="Volvo")  # the demo's own list
    assert taken.status_code == 422
    assert "You already have a list called" in page_text(taken)
    bad = _save(client, token, "Nya", **{"advancedFilter[mileageFrom]": "many"})
    assert bad.status_code == 422
    assert 'value="Nya"' in page_text(bad)


def test_a_list_can_be_renamed_and_deleted(as_demo):
    client, token = as_demo("seller")
    _save(client, token, "Tillfällig", brand="Saab")
    dynamic = db.session.scalars(select(DynamicList).where(DynamicList.title == "Tillfällig")).one()
    renamed = client.post(
        f"/my-lists/{dynamic.uuid}/rename", data={"csrf_token": token, "title": "Saabar"}
    )
    assert renamed.status_code == 302
    db.session.refresh(dynamic)
    assert dynamic.title == "Saabar"
    refused = client.post(
        f"/my-lists/{dynamic.uuid}/rename", data={"csrf_token": token, "title": ""}
    )
    assert refused.status_code == 422
    deleted = client.post(f"/my-lists/{dynamic.uuid}/delete", data={"csrf_token": token})
    assert deleted.status_code == 302
    assert (
        db.session.scalars(select(DynamicList).where(DynamicList.id == dynamic.id)).first() is None
    )
    assert client.get(f"/my-lists/{dynamic.uuid}").status_code == 404


def test_another_users_and_another_instances_lists_answer_404(as_demo):
    client, token = as_demo("seller")
    seller = demo_user("seller@demo.test")
    colleague = demo_user("divadmin@demo.test")  # same company
    theirs = DynamicList(
        user_id=colleague.id, title="Hennes", module="begcare", filters={},
        instance_id=seller.active_instance_id,
    )  # fmt: skip
    buyer = demo_user("buyer@demo.test")  # another company
    foreign = DynamicList(
        user_id=seller.id, title="Fel bolag", module="begcare", filters={},
        instance_id=buyer.active_instance_id,
    )  # fmt: skip
    db.session.add_all([theirs, foreign])
    db.session.flush()
    for dynamic in (theirs, foreign):
        assert client.get(f"/my-lists/{dynamic.uuid}").status_code == 404
        for action in ("rename", "delete"):
            response = client.post(
                f"/my-lists/{dynamic.uuid}/{action}", data={"csrf_token": token, "title": "X"}
            )
            assert response.status_code == 404
    titles = {
        i["dynamicList"]["title"] for i in client.get("/api/me").get_json()["dynamicListMenuItems"]
    }
    assert "Hennes" not in titles and "Fel bolag" not in titles


def test_a_module_the_user_lacks_is_refused(client):
    user = make_user(modules=["begcare"])
    token = sign_in(client, user)
    response = client.post(
        "/my-lists", data={"csrf_token": token, "module": "newcare", "title": "X"}
    )
    assert response.status_code == 404
