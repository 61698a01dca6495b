"""Custom lists (manager and list page) and the dynamic lists under My lists."""

import re
from html import unescape

import pytest
from sqlalchemy import event, func, select

from app.auth.viewer import SNAPSHOTS
from app.core.models import Division
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import CustomList, CustomListItem, DynamicList, PreparationItem
from tests.helpers import page_text
from tests.shell.conftest import demo_user


@pytest.fixture(autouse=True)
def _fresh_shell_cache():
    """Each test rolls back, so an instance's menu version repeats between tests; a snapshot
    cached by an earlier test under the same version would show that test's lists."""
    SNAPSHOTS.clear()


def seller_lists():
    seller = demo_user("seller@demo.test")
    activate(seller.active_instance_id)
    return list(
        db.session.scalars(
            select(CustomList).where(CustomList.user_id == seller.id).order_by(CustomList.name)
        )
    )


def list_regnos(custom_list: CustomList) -> set[str]:
    return set(
        db.session.scalars(
            select(PreparationItem.regno)
            .join(CustomListItem, CustomListItem.item_id == PreparationItem.id)
            .where(CustomListItem.custom_list_id == custom_list.id)
        )
    )


def foreign_item() -> PreparationItem:
    buyer = demo_user("buyer@demo.test")
    return db.session.scalars(
        select(PreparationItem)
        .where(PreparationItem.instance_id == buyer.active_instance_id)
        .execution_options(all_instances=True)
    ).first()


def row_regnos(html: str) -> list[str]:
    return re.findall(r'<tr class="[^"]*" data-item-id="\d+">\s*<th scope="row">([A-Z0-9]+)', html)


# --- the manager ---------------------------------------------------------------------------


def test_manager_shows_each_list_with_its_vehicles(as_demo):
    client, _ = as_demo("seller")
    lists = seller_lists()
    html = page_text(client.get("/custom-list"))
    for custom_list in lists:
        assert f'id="list-{custom_list.id}"' in html
        assert custom_list.name in html
        for regno in list_regnos(custom_list):
            assert regno in html
    assert "Kampanj vecka 48" in html and "8 vehicles" in html


def test_a_list_can_be_created_renamed_and_deleted(as_demo):
    client, token = as_demo("seller")
    response = client.post("/custom-list", data={"name": "  Demo   bilar ", "csrf_token": token})
    assert response.status_code == 302
    created = next(c for c in seller_lists() if c.name == "Demo bilar")
    page = page_text(client.get("/custom-list"))
    assert "The list Demo bilar was created." in page
    # The user menu links to the new list on the very next page.
    assert f'href="/custom-list/{created.id}/list">Demo bilar</a>' in page

    response = client.post(
        f"/custom-list/{created.id}/rename", data={"name": "Vårkampanj", "csrf_token": token}
    )
    assert response.status_code == 302
    page = page_text(client.get("/custom-list"))
    assert "The list is now called Vårkampanj." in page
    assert f'href="/custom-list/{created.id}/list">Vårkampanj</a>' in page

    response = client.post(f"/custom-list/{created.id}/delete", data={"csrf_token": token})
    assert response.status_code == 302
    assert all(c.id != created.id for c in seller_lists())
    assert client.get(f"/custom-list/{created.id}/list").status_code == 404


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("   ", "Enter a name for the list."),
        ("x" * 101, "The name can be at most 100 characters long."),
        ("leasingretur", "You already have a list called leasingretur."),
    ],
)
def test_a_bad_name_is_refused_with_a_message_and_keeps_the_input(as_demo, name, message):
    client, token = as_demo("seller")
    before = len(seller_lists())
    response = client.post("/custom-list", data={"name": name, "csrf_token": token})
    assert response.status_code == 422
    html = page_text(response)
    assert message in html
    assert 'aria-invalid="true"' in html
    if name.strip():
        assert f'value="{name}"' in html
    assert len(seller_lists()) == before


def test_renaming_to_another_lists_name_is_refused(as_demo):
    client, token = as_demo("seller")
    first, second = seller_lists()
    response = client.post(
        f"/custom-list/{first.id}/rename", data={"name": second.name, "csrf_token": token}
    )
    assert response.status_code == 422
    assert f"You already have a list called {second.name}." in page_text(response)
    db.session.expire_all()
    assert {c.name for c in seller_lists()} == {first.name, second.name}


def test_vehicles_are_found_by_registration_number_added_and_removed(as_demo):
    client, token = as_demo("seller")
    target = seller_lists()[1]
    item = db.session.scalars(
        select(PreparationItem)
        .where(PreparationItem.state == 4, PreparationItem.id.not_in(
            select(CustomListItem.item_id).where(CustomListItem.custom_list_id == target.id)
        ))
    ).first()  # fmt: skip
    phrase = f"{item.regno[:3]} {item.regno[3:]}".lower()  # spaces and case do not matter
    html = page_text(client.get("/custom-list", query_string={"list": target.id, "q": phrase}))
    assert f"Vehicles matching {' '.join(phrase.split())}" in html
    assert f'name="item_id" value="{item.id}"' in html

    response = client.post(
        f"/custom-list/{target.id}/items", data={"item_id": item.id, "csrf_token": token}
    )
    assert response.status_code == 302
    assert item.regno in list_regnos(target)
    assert f"{item.regno} was added to {target.name}." in page_text(client.get("/custom-list"))

    response = client.post(
        f"/custom-list/{target.id}/items/{item.id}/remove", data={"csrf_token": token}
    )
    assert response.status_code == 302
    assert item.regno not in list_regnos(target)


def test_search_finds_nothing_outside_the_users_divisions(as_demo):
    client, _ = as_demo("station")
    station = demo_user("station@demo.test")
    activate(station.active_instance_id)
    own = CustomList(user_id=station.id, name="Mina", instance_id=station.active_instance_id)
    db.session.add(own)
    db.session.flush()
    other = db.session.scalars(
        select(PreparationItem).where(
            PreparationItem.division_id.not_in([d.id for d in station.divisions])
        )
    ).first()
    html = page_text(client.get("/custom-list", query_string={"list": own.id, "q": other.regno}))
    assert f'value="{other.id}"' not in html
    assert "No vehicle in your divisions" in html


# --- isolation -----------------------------------------------------------------------------


def test_another_users_list_is_not_found(as_demo):
    client, token = as_demo("divadmin")  # same instance as the seller, not the owner
    target = seller_lists()[0]
    item = db.session.scalars(select(PreparationItem)).first()
    assert client.get(f"/custom-list/{target.id}/list").status_code == 404
    for path, data in (
        (f"/custom-list/{target.id}/rename", {"name": "Mine now"}),
        (f"/custom-list/{target.id}/delete", {}),
        (f"/custom-list/{target.id}/items", {"item_id": item.id}),
        (f"/custom-list/{target.id}/items/{item.id}/remove", {}),
    ):
        assert client.post(path, data={**data, "csrf_token": token}).status_code == 404
    db.session.expire_all()
    assert target.name == "Kampanj vecka 48"


def test_another_instances_list_and_items_are_not_found(as_demo):
    client, token = as_demo("buyer")
    target = seller_lists()[0]
    assert client.get(f"/custom-list/{target.id}/list").status_code == 404
    assert (
        client.post(f"/custom-list/{target.id}/delete", data={"csrf_token": token}).status_code
        == 404
    )
    # The seller cannot put another instance's vehicle on a list.
    client, token = as_demo("seller")
    foreign = foreign_item()
    response = client.post(
        f"/custom-list/{target.id}/items", data={"item_id": foreign.id, "csrf_token": token}
    )
    assert response.status_code == 404
    assert foreign.regno not in list_regnos(target)
    response = client.post(
        f"/custom-list/{target.id}/items", data={"item_id": "not-a-number", "csrf_token": token}
    )
    assert response.status_code == 404


def test_a_vehicle_outside_the_users_divisions_cannot_be_added(as_demo):
    client, token = as_demo("station")
    station = demo_user("station@demo.test")
    activate(station.active_instance_id)
    own = CustomList(user_id=station.id, name="Mina", instance_id=station.active_instance_id)
    db.session.add(own)
    db.session.flush()
    other = db.session.scalars(
        select(PreparationItem).where(
            PreparationItem.division_id.not_in([d.id for d in station.divisions])
        )
    ).first()
    response = client.post(
        f"/custom-list/{own.id}/items", data={"item_id": other.id, "csrf_token": token}
    )
    assert response.status_code == 404
    # A vehicle put on the list elsewhere does not show when its division is out of reach.
    db.session.add(CustomListItem(custom_list_id=own.id, item_id=other.id))
    db.session.flush()
    assert other.regno not in page_text(client.get(f"/custom-list/{own.id}/list"))


# --- the list page -------------------------------------------------------------------------


def test_list_page_shows_the_vehicles_with_state_division_days_and_stations(as_demo):
    client, _ = as_demo("seller")
    target = seller_lists()[0]
    response = client.get(f"/custom-list/{target.id}/list")
    assert response.status_code == 200
    html = page_text(response)
    assert '<h1 class="page-title">Kampanj vecka 48</h1>' in html
    assert sorted(row_regnos(html)) == sorted(list_regnos(target))
    assert "Showroom" in html  # the demo list holds showroom vehicles
    assert re.search(r"\d+ of \d+ done", html)
    assert re.search(r"<td>\d+ days?</td>", html)
    assert 'data-island="custom-list"' in html
    # Nothing is seen yet: every row is highlighted and marked.
    assert html.count("row-unseen") == len(list_regnos(target))


def test_warning_rows_are_styled_red(as_demo):
    client, _ = as_demo("seller")
    target = seller_lists()[0]
    item = db.session.scalars(
        select(PreparationItem)
        .join(CustomListItem, CustomListItem.item_id == PreparationItem.id)
        .where(CustomListItem.custom_list_id == target.id)
    ).first()
    item.warning = True
    db.session.flush()
    html = page_text(client.get(f"/custom-list/{target.id}/list"))
    assert re.search(rf'<tr class="row-warning[^"]*" data-item-id="{item.id}">', html)


def test_list_rows_link_to_stations_utilize_for_states_3_5_and_7(as_demo):
    client, _ = as_demo("seller")
    target = seller_lists()[0]
    first, second = db.session.scalars(
        select(PreparationItem)
        .join(CustomListItem, CustomListItem.item_id == PreparationItem.id)
        .where(CustomListItem.custom_list_id == target.id)
        .order_by(PreparationItem.id)
        .limit(2)
    ).all()
    first.state, second.state = 5, 6
    db.session.flush()
    html = page_text(client.get(f"/custom-list/{target.id}/list"))
    assert f'href="/{first.module}/items/parked/{first.id}/stations-utilize"' in html
    assert f'href="/{second.module}/items/showroom/{second.id}/stations-manage"' in html


def test_the_list_page_costs_the_same_queries_with_more_vehicles(as_demo, demo_app):
    client, _ = as_demo("seller")
    target = seller_lists()[0]

    def queries() -> int:
        statements = []
        listener = lambda *args: statements.append(args[2])  # noqa: E731
        with demo_app.app_context():
            engine = db.engine
        event.listen(engine, "before_cursor_execute", listener)
        try:
            assert client.get(f"/custom-list/{target.id}/list").status_code == 200
            assert client.get("/custom-list").status_code == 200
        finally:
            event.remove(engine, "before_cursor_execute", listener)
        return len(statements)

    queries()  # warm the shell's caches
    few = queries()
    on_list = select(CustomListItem.item_id).where(CustomListItem.custom_list_id == target.id)
    more = db.session.scalars(select(PreparationItem.id).where(PreparationItem.id.not_in(on_list)).limit(40)).all()  # fmt: skip
    db.session.add_all(CustomListItem(custom_list_id=target.id, item_id=i) for i in more)
    db.session.flush()
    assert len(row_regnos(page_text(client.get(f"/custom-list/{target.id}/list")))) >= 48
    assert queries() == few


def test_global_users_have_no_custom_lists(as_demo):
    client, _ = as_demo("global")
    assert client.get("/custom-list").status_code == 404
    assert client.get("/my-lists").status_code == 404


# --- dynamic lists -------------------------------------------------------------------------


def test_my_lists_shows_the_saved_filters_with_counts(as_demo):
    client, _ = as_demo("seller")
    seller = demo_user("seller@demo.test")
    activate(seller.active_instance_id)
    dynamic = db.session.scalars(select(DynamicList).where(DynamicList.user_id == seller.id)).one()
    electric = db.session.scalars(
        select(PreparationItem).where(
            PreparationItem.module == "begcare", PreparationItem.fuel_type == "Electric"
        )
    ).all()
    html = page_text(client.get("/my-lists"))
    assert f'href="/my-lists/{dynamic.uuid}">Elbilar i lager</a>' in html
    assert f"<td>{len(electric)}</td>" in html


def test_a_dynamic_list_shows_its_vehicles_page_by_page(as_demo):
    client, _ = as_demo("seller")
    seller = demo_user("seller@demo.test")
    activate(seller.active_instance_id)
    dynamic = db.session.scalars(select(DynamicList).where(DynamicList.user_id == seller.id)).one()
    electric = db.session.scalars(
        select(PreparationItem.regno).where(
            PreparationItem.module == "begcare", PreparationItem.fuel_type == "Electric"
        )
    ).all()
    html = page_text(client.get(f"/my-lists/{dynamic.uuid}"))
    assert '<h1 class="page-title">Elbilar i lager</h1>' in html
    shown = re.findall(r'<th scope="row"><a href="/begcare/items/[a-z]+/\d+/stations-[a-z]+">([A-Z0-9]+)</a>', html)  # fmt: skip
    assert len(shown) == min(50, len(electric))
    assert set(shown) <= set(electric)
    assert f"of {len(electric)} in the divisions you have chosen" in html


def test_a_dynamic_list_opens_in_the_overview_with_its_filter(as_demo):
    client, _ = as_demo("seller")
    seller = demo_user("seller@demo.test")
    activate(seller.active_instance_id)
    dynamic = db.session.scalars(select(DynamicList).where(DynamicList.user_id == seller.id)).one()
    electric = db.session.scalar(
        select(func.count()).where(
            PreparationItem.module == "begcare", PreparationItem.fuel_type == "Electric"
        )
    )
    html = page_text(client.get(f"/my-lists/{dynamic.uuid}"))
    link = re.search(r'<a href="([^"]+)">Open in the overview</a>', html).group(1)
    assert link.startswith("/begcare/overview?")
    overview = page_text(client.get(unescape(link)))
    assert f"of {electric} vehicles" in overview


def test_a_dynamic_list_follows_the_division_selector(as_demo):
    client, token = as_demo("seller")
    seller = demo_user("seller@demo.test")
    activate(seller.active_instance_id)
    dynamic = db.session.scalars(select(DynamicList).where(DynamicList.user_id == seller.id)).one()
    division = db.session.scalars(select(Division).order_by(Division.name)).first()
    client.post("/division", data={"value": f"division-{division.id}", "csrf_token": token})
    expected = db.session.scalars(
        select(PreparationItem.regno).where(
            PreparationItem.module == "begcare", PreparationItem.fuel_type == "Electric",
            PreparationItem.division_id == division.id,
        )
    ).all()  # fmt: skip
    html = page_text(client.get(f"/my-lists/{dynamic.uuid}"))
    assert f"of {len(expected)} in the divisions" in html or (
        not expected and "No vehicle matches" in html
    )


def test_another_users_or_instances_dynamic_list_is_not_found(as_demo):
    seller = demo_user("seller@demo.test")
    dynamic = db.session.scalars(select(DynamicList).where(DynamicList.user_id == seller.id)).one()
    for name in ("divadmin", "buyer"):
        client, _ = as_demo(name)
        assert client.get(f"/my-lists/{dynamic.uuid}").status_code == 404
        assert "Elbilar i lager" not in page_text(client.get("/my-lists"))
    client, _ = as_demo("seller")
    assert client.get("/my-lists/00000000-0000-0000-0000-000000000000").status_code == 404


def test_a_saved_filter_that_no_longer_reads_says_so(as_demo):
    client, _ = as_demo("seller")
    seller = demo_user("seller@demo.test")
    broken = DynamicList(
        user_id=seller.id, title="Trasig", module="begcare", filters={"enum[state]": "42"},
        instance_id=seller.active_instance_id,
    )  # fmt: skip
    db.session.add(broken)
    db.session.flush()
    assert "Filter no longer valid" in page_text(client.get("/my-lists"))
    response = client.get(f"/my-lists/{broken.uuid}")
    assert response.status_code == 200
    assert "can no longer be read" in page_text(response)
