"""Tags act (issue 30): the company's tags on vehicles, set on the vehicle page and for every
vehicle of a custom list; the overview filters by tag and the tables show coloured labels with
their name in a colour that reads; another company's tag is never offered or taken."""

import re

from sqlalchemy import select

from app.core.settings import Tag
from app.extensions import db
from app.preparation import tags
from app.preparation.models import CustomList, CustomListItem, ItemTag
from tests.helpers import page_text
from tests.preparation.manage_helpers import (
    alerts,
    demo_item,
    foreign_item,
    fresh_shell_caches,  # noqa: F401 - autouse
    in_seller_instance,
)
from tests.shell.conftest import demo_user


def tag(name: str, color: str = "#c0392b") -> Tag:
    in_seller_instance()
    row = Tag(name=name, color=color)
    db.session.add(row)
    db.session.flush()
    return row


def foreign_tag() -> Tag:
    return db.session.scalars(
        select(Tag)
        .where(Tag.instance_id == foreign_item().instance_id)
        .execution_options(all_instances=True)
    ).first()


def tag_ids(item) -> set[int]:
    db.session.expire_all()
    return set(db.session.scalars(select(ItemTag.tag_id).where(ItemTag.item_id == item.id)))


def test_the_vehicle_page_sets_any_number_of_tags(as_demo):
    client, token = as_demo("seller")
    item = demo_item(6)
    first, second = tag("Vinterdäck"), tag("Leasing", "#f1c40f")
    page = page_text(client.get(f"/begcare/{item.id}", follow_redirects=True))
    assert 'id="tags"' in page and "Vinterdäck" in page and "Leasing" in page
    path = f"/begcare/items/{item.id}/tags"
    response = client.post(path, data={"csrf_token": token, "tag_id": [first.id, second.id]})
    assert response.status_code == 302 and response.headers["Location"].endswith("#tags")
    assert {first.id, second.id} <= tag_ids(item)
    page = page_text(client.get(response.headers["Location"], follow_redirects=True))
    assert ("success", f"The tags of {item.regno} are saved.") in alerts(page)
    assert re.search(rf'value="{first.id}" checked', page)
    client.post(path, data={"csrf_token": token, "tag_id": [second.id]})
    assert first.id not in tag_ids(item) and second.id in tag_ids(item)
    client.post(path, data={"csrf_token": token})
    assert not tag_ids(item)


def test_another_companys_tag_is_never_taken_or_offered(as_demo):
    client, token = as_demo("seller")
    item = demo_item(6)
    before = tag_ids(item)
    other = foreign_tag()
    response = client.post(
        f"/begcare/items/{item.id}/tags", data={"csrf_token": token, "tag_id": [other.id]}
    )
    page = page_text(client.get(response.headers["Location"], follow_redirects=True))
    assert ("danger", "Choose among the tags of your company.") in alerts(page)
    assert tag_ids(item) == before
    assert f'name="tag_id" value="{other.id}"' not in page
    # Another company's vehicle is not found; the overview's tag filter finds nothing with it.
    assert (
        client.post(
            f"/begcare/items/{foreign_item().id}/tags", data={"csrf_token": token}
        ).status_code
        == 404
    )
    page = page_text(client.get(f"/begcare/overview?division=all&advancedFilter[tag]={other.id}"))
    assert not re.findall(r'<tr data-item-id="(\d+)"', page)


def test_the_overview_filters_by_tag_and_shows_the_label(as_demo):
    client, token = as_demo("seller")
    item = demo_item(6)
    mark = tag("Filtertagg", "#1a1a2e")
    client.post(f"/begcare/items/{item.id}/tags", data={"csrf_token": token, "tag_id": mark.id})
    page = page_text(client.get(f"/begcare/overview?division=all&advancedFilter[tag]={mark.id}"))
    assert re.findall(r'<tr data-item-id="(\d+)"', page) == [str(item.id)]
    row = page.split(f'<tr data-item-id="{item.id}"', 1)[1].split("</tr>", 1)[0]
    # The label: its name as text on its colour, white text on a dark colour.
    assert 'fill="#1a1a2e"' in row and "tag-on-dark" in row and ">Filtertagg<" in row
    assert f'<option value="{mark.id}" selected>Filtertagg</option>' in page


def test_every_label_reads_on_its_colour():
    for color in ("#c0392b", "#2c7a7b", "#f1c40f", "#ffffff", "#000000", "#4a6fa5", "#7f8c8d"):
        text = tags.text_color(color)
        assert tags.contrast(color, text) >= 4.5, (color, text)


def test_a_custom_list_tags_every_vehicle_in_it(as_demo):
    client, token = as_demo("seller")
    seller = demo_user("seller@demo.test")
    in_seller_instance()
    chosen = db.session.scalars(
        select(CustomList).where(CustomList.user_id == seller.id).order_by(CustomList.id)
    ).first()
    listed = set(
        db.session.scalars(
            select(CustomListItem.item_id).where(CustomListItem.custom_list_id == chosen.id)
        )
    )
    mark = tag("Kampanj v49")
    page = page_text(client.get(f"/custom-list/{chosen.id}/list"))
    assert "Tag every vehicle in the list" in page
    response = client.post(
        f"/custom-list/{chosen.id}/tags", data={"csrf_token": token, "tag_id": mark.id}
    )
    assert response.status_code == 302
    db.session.expire_all()
    tagged = set(db.session.scalars(select(ItemTag.item_id).where(ItemTag.tag_id == mark.id)))
    assert tagged == listed
    page = page_text(client.get(response.headers["Location"]))
    assert ("success", f"{len(listed)} vehicles got the tag.") in alerts(page)
    other = foreign_tag()
    client.post(f"/custom-list/{chosen.id}/tags", data={"csrf_token": token, "tag_id": other.id})
    db.session.expire_all()
    assert not db.session.scalars(select(ItemTag).where(ItemTag.tag_id == other.id)).all()
    # Someone else's list is not found.
    client, token = as_demo("admin")
    assert (
        client.post(
            f"/custom-list/{chosen.id}/tags", data={"csrf_token": token, "tag_id": mark.id}
        ).status_code
        == 404
    )
