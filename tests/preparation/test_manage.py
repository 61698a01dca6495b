"""The item manage page: the right URL for the item's state, details, tasks, comments, history,
isolation between instances and divisions, and a constant number of queries."""

import io
import re
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from app.core.models import Instance, utcnow
from app.core.tenancy import activate
from app.core.workdays import day_counter
from app.extensions import db
from app.preparation.models import ItemComment, ItemFile, ItemStationTask, PreparationItem
from app.preparation.services import move_item
from app.preparation.states import BY_ID
from tests.helpers import page_text
from tests.preparation.manage_helpers import (
    QueryCounter,
    alerts,
    demo_item,
    foreign_item,
    fresh_shell_caches,  # noqa: F401 - autouse
    image_bytes,
    in_seller_instance,
    tasks_of,
)
from tests.shell.conftest import demo_user


def manage_url(item: PreparationItem) -> str:
    view = "stations-utilize" if item.state in (3, 5, 7) else "stations-manage"
    return f"/{item.module}/items/{BY_ID[item.state].segment}/{item.id}/{view}"


# --- the right URL for the item's state --------------------------------------------------------


@pytest.mark.parametrize("state", [2, 3, 4, 5, 6, 7])
def test_a_wrong_segment_or_view_redirects_to_the_items_page(as_demo, state):
    client, _ = as_demo("seller")
    item = demo_item(state)
    right = manage_url(item)
    wrong_view = "stations-manage" if "utilize" in right else "stations-utilize"
    for wrong in (
        f"/begcare/items/archived/{item.id}/{wrong_view}",
        f"/begcare/items/{BY_ID[item.state].segment}/{item.id}/{wrong_view}",
        f"/begcare/items/leads/{item.id}",
    ):
        response = client.get(wrong)
        assert response.status_code == 302, wrong
        assert response.headers["Location"] == right
    assert client.get(right).status_code == 200


def test_the_module_and_id_link_lands_on_the_page_of_the_items_state(as_demo):
    client, _ = as_demo("seller")
    item = demo_item(6)
    response = client.get(f"/begcare/{item.id}", follow_redirects=True)
    assert response.status_code == 200
    assert response.request.path == f"/begcare/items/showroom/{item.id}/stations-manage"
    assert item.regno in page_text(response)


def test_the_page_follows_the_item_when_it_moves(as_demo):
    client, _ = as_demo("seller")
    item = demo_item(4)
    old = manage_url(item)
    move_item(item, 5)
    db.session.flush()
    response = client.get(old)
    assert response.headers["Location"] == f"/begcare/items/parked/{item.id}/stations-utilize"


# --- what the page shows -----------------------------------------------------------------------


def test_the_page_shows_the_items_details_and_tasks_in_order(as_demo):
    client, _ = as_demo("seller")
    item = demo_item(4)
    html = page_text(client.get(manage_url(item)))
    for text in (item.regno, item.vin, item.full_model_name, item.division.name, "Flow"):
        assert text in html
    assert f"{item.mileage:,} km" in html  # grouped as en-GB writes it
    rows = re.findall(
        r'<tr data-task-id="(\d+)" data-status="(\w+)">\s*<th scope="row">([^<]+)', html
    )
    assert [int(r[0]) for r in rows] == [t.id for t in tasks_of(item)]
    assert [r[2].strip() for r in rows] == [t.station.name_texts["en-GB"] for t in tasks_of(item)]
    assert "<caption" in html and 'scope="col"' in html


def test_the_page_shows_days_in_state_and_the_warning(as_demo):
    client, _ = as_demo("seller")
    item = demo_item(4)
    for task in tasks_of(item):
        task.status, task.started_at = "pending", None
    item.warning = True
    item.state_changed_at = utcnow().replace(microsecond=0) - timedelta(days=12, hours=1)
    db.session.flush()
    html = page_text(client.get(manage_url(item)))
    days = day_counter(db.session.get(Instance, item.instance_id))(  # the demo's working days
        item.state_changed_at, utcnow(), item.division_id
    )
    assert 6 <= days <= 10 and f"{days} days in this state" in html
    # No task is overdue, so opening the page clears the stale warning.
    assert "data-item-warning" not in html
    db.session.refresh(item)
    assert item.warning is False


def test_an_overdue_task_shows_its_badge_and_warns(as_demo):
    client, _ = as_demo("seller")
    item = demo_item(4)
    task = tasks_of(item)[0]
    task.status = "active"
    task.started_at = utcnow() - timedelta(minutes=task.target_minutes + 30)
    item.warning = False
    db.session.flush()
    html = page_text(client.get(manage_url(item)))
    assert "data-item-warning" in html
    assert "Overdue" in html
    db.session.refresh(item)
    assert item.warning is True


# --- comments ----------------------------------------------------------------------------------


def test_a_comment_is_added_with_its_author(as_demo):
    client, token = as_demo("seller")
    item = demo_item(4)
    response = client.post(
        f"/begcare/items/{item.id}/comments",
        data={"content": "Ny vindruta beställd", "csrf_token": token},
        follow_redirects=True,
    )
    html = page_text(response)
    assert ("success", "The comment is added.") in alerts(html)
    assert "Ny vindruta beställd" in html
    assert "Sara Lindqvist" in html
    assert db.session.scalar(select(func.count()).where(ItemComment.item_id == item.id)) == 1


def test_an_empty_comment_is_refused_and_nothing_stored(as_demo):
    client, token = as_demo("seller")
    item = demo_item(4)
    response = client.post(
        f"/begcare/items/{item.id}/comments", data={"content": "   ", "csrf_token": token}
    )
    assert response.status_code == 422
    assert "Write a comment or add an image." in page_text(response)
    assert db.session.scalar(select(func.count()).where(ItemComment.item_id == item.id)) == 0


def test_a_too_long_comment_is_refused_and_the_text_kept(as_demo):
    client, token = as_demo("seller")
    item = demo_item(4)
    text = "Lång text " * 600
    response = client.post(
        f"/begcare/items/{item.id}/comments", data={"content": text, "csrf_token": token}
    )
    assert response.status_code == 422
    html = page_text(response)
    assert 'data-message-key="FIELD_TOO_LONG"' in html
    assert text.strip() in html
    assert db.session.scalar(select(func.count()).where(ItemComment.item_id == item.id)) == 0


def test_an_own_comment_can_be_edited_but_not_someone_elses(as_demo):
    client, token = as_demo("seller")
    item = demo_item(4)
    seller, admin = demo_user("seller@demo.test"), demo_user("admin@demo.test")
    hour_ago = utcnow() - timedelta(hours=1)
    mine = ItemComment(
        item_id=item.id, user_id=seller.id, content="Däck byts", created_at=hour_ago,
        modified_at=hour_ago,
    )  # fmt: skip
    theirs = ItemComment(item_id=item.id, user_id=admin.id, content="Kontrollera bromsar")
    db.session.add_all([mine, theirs])
    db.session.flush()
    html = page_text(client.get(manage_url(item)))
    assert f'action="/begcare/items/{item.id}/comments/{mine.id}"' in html
    assert f'action="/begcare/items/{item.id}/comments/{theirs.id}"' not in html

    client.post(
        f"/begcare/items/{item.id}/comments/{mine.id}",
        data={"content": "Däck byts till vinterdäck", "csrf_token": token},
    )
    refused = client.post(
        f"/begcare/items/{item.id}/comments/{theirs.id}",
        data={"content": "Ändrat av någon annan", "csrf_token": token},
        follow_redirects=True,
    )
    assert ("danger", "You can only edit your own comments.") in alerts(page_text(refused))
    db.session.refresh(mine)
    db.session.refresh(theirs)
    assert mine.content == "Däck byts till vinterdäck"
    assert theirs.content == "Kontrollera bromsar"
    html = page_text(client.get(manage_url(item)))
    mine_html = html.split(f'id="comment-{mine.id}"', 1)[1].split("</li>", 1)[0]
    assert "edited" in mine_html and "Däck byts till vinterdäck" in mine_html


# --- history -----------------------------------------------------------------------------------


def test_the_history_shows_state_changes_and_task_events_with_who(as_demo):
    client, token = as_demo("seller")
    item = demo_item(3)
    move_item(item, 4, user_id=demo_user("seller@demo.test").id)
    db.session.flush()
    first = tasks_of(item)[0]
    client.post(f"/begcare/items/{item.id}/tasks/{first.id}/start", data={"csrf_token": token})
    html = page_text(client.get(manage_url(item)))
    history = html.split('id="history"', 1)[1].split("</section>", 1)[0]
    rows = re.findall(r'<tr data-kind="(\w+)">(.*?)</tr>', history, re.S)
    kinds = [kind for kind, _ in rows]
    assert kinds[:2] == ["task", "state"]
    assert (
        f"{first.station.name_texts['en-GB']} started" in rows[0][1]
        and "Sara Lindqvist" in rows[0][1]
    )
    assert "Moved from Awaiting to Flow" in rows[1][1] and "Sara Lindqvist" in rows[1][1]
    assert "Added in" in rows[-1][1]


# --- isolation ---------------------------------------------------------------------------------


def test_items_of_another_instance_are_not_found(as_demo):
    client, token = as_demo("seller")
    other = foreign_item()
    other_task = db.session.scalars(
        select(ItemStationTask)
        .where(ItemStationTask.item_id == other.id)
        .execution_options(all_instances=True)
    ).first()
    for path in (
        f"/begcare/{other.id}",
        f"/begcare/items/incoming/{other.id}",
        f"/begcare/items/{BY_ID[other.state].segment}/{other.id}/stations-manage",
    ):
        response = client.get(path, follow_redirects=True)
        assert response.status_code == 404, path
    activate(other.instance_id)
    foreign_comment = ItemComment(
        item_id=other.id, user_id=demo_user("buyer@demo.test").id, content="Hej",
        instance_id=other.instance_id,
    )  # fmt: skip
    db.session.add(foreign_comment)
    db.session.flush()
    own_item = demo_item(4)
    for path in (
        f"/begcare/items/{other.id}/comments",
        f"/begcare/items/{other.id}/comments/{foreign_comment.id}",
        f"/begcare/items/{own_item.id}/comments/{foreign_comment.id}",
        f"/begcare/items/{other.id}/files",
        f"/begcare/items/{other.id}/tasks/{other_task.id}/start",
        f"/begcare/items/{own_item.id}/tasks/{other_task.id}/start",
    ):
        response = client.post(path, data={"csrf_token": token, "content": "Ändrat"})
        assert response.status_code == 404, path
    db.session.refresh(foreign_comment)
    assert foreign_comment.content == "Hej"


def test_items_of_a_division_outside_the_users_rights_are_not_found(as_demo):
    client, token = as_demo("station")  # Nordbil Solna only
    item = demo_item(4, division="Nordbil Göteborg")
    task = tasks_of(item)[0]
    assert client.get(manage_url(item)).status_code == 404
    response = client.post(
        f"/begcare/items/{item.id}/tasks/{task.id}/start", data={"csrf_token": token}
    )
    assert response.status_code == 404
    assert tasks_of(item)[0].status == task.status


def test_an_item_of_a_module_the_user_lacks_is_not_found(as_demo):
    client, _ = as_demo("station")  # begcare only
    item = demo_item(4, module="newcare", division="Nordbil Solna")
    assert client.get(f"/newcare/items/list/{item.id}/stations-manage").status_code == 404
    # Nor under the other module's name.
    assert client.get(f"/begcare/items/list/{item.id}/stations-manage").status_code == 404


def test_unknown_items_are_not_found(as_demo):
    client, _ = as_demo("seller")
    assert client.get("/begcare/items/list/999999999/stations-manage").status_code == 404
    assert client.get("/begcare/99999999999999999999999").status_code == 404


# --- queries -----------------------------------------------------------------------------------


def test_the_page_costs_the_same_queries_with_many_comments_files_and_events(as_demo):
    client, token = as_demo("seller")
    item = demo_item(4)
    url = manage_url(item)
    seller = demo_user("seller@demo.test")
    client.get(url)  # warm the shell's caches

    def queries() -> int:
        with QueryCounter() as counter:
            assert client.get(url).status_code == 200
        return counter.count

    db.session.add(ItemComment(item_id=item.id, user_id=seller.id, content="1"))
    db.session.flush()
    client.post(f"/begcare/items/{item.id}/files", data={"csrf_token": token, "title": "a",
                "file": (io.BytesIO(image_bytes()), "a.png")})  # fmt: skip
    few = queries()
    in_seller_instance()
    for n in range(15):
        db.session.add(ItemComment(item_id=item.id, user_id=seller.id, content=f"c{n}"))
    db.session.flush()
    for n in range(4):
        client.post(f"/begcare/items/{item.id}/files", data={"csrf_token": token, "title": f"f{n}",
                    "file": (io.BytesIO(image_bytes()), f"f{n}.png")})  # fmt: skip
    for task in tasks_of(item):
        client.post(f"/begcare/items/{item.id}/tasks/{task.id}/assign", data={"csrf_token": token})
    assert db.session.scalar(select(func.count()).where(ItemFile.item_id == item.id)) == 5
    assert queries() == few


def test_newcare_items_have_the_same_page(as_demo):
    client, _ = as_demo("seller")
    item = demo_item(4, module="newcare")
    response = client.get(f"/newcare/{item.id}", follow_redirects=True)
    assert response.request.path == f"/newcare/items/list/{item.id}/stations-manage"
    html = page_text(response)
    assert item.regno in html and "New vehicles" in html
    assert [t.station.name_texts["en-GB"] for t in tasks_of(item)][0] in html


def test_the_edit_link_is_offered_to_users_who_may_add_vehicles(as_demo):
    item = demo_item(4, division="Nordbil Solna")
    edit = f"/begcare/manage/vehicle?action=edit&amp;id={item.id}"
    client, _ = as_demo("seller")
    assert edit in client.get(manage_url(item)).get_data(as_text=True)
    station_client, _ = as_demo("station")
    assert edit not in station_client.get(manage_url(item)).get_data(as_text=True)
