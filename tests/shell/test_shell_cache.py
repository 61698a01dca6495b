"""The shell's caches never show stale menus or counts: every change is seen on the next page."""

from sqlalchemy import select

from app.core.models import Division
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import CustomList, PreparationItem
from app.preparation.services import add_item, move_item
from tests.shell.conftest import demo_user
from tests.shell.test_counts_and_divisions import menu_counts


def test_a_new_custom_list_appears_in_the_menus_on_the_next_page(as_demo):
    client, _ = as_demo("seller")
    seller = demo_user("seller@demo.test")
    assert "Säljmöte fredag" not in client.get("/user").get_data(as_text=True)
    activate(seller.active_instance_id)
    db.session.add(CustomList(user_id=seller.id, name="Säljmöte fredag"))
    db.session.flush()
    assert "Säljmöte fredag" in client.get("/user").get_data(as_text=True)


def test_a_new_role_shows_its_menu_entry_on_the_next_page(as_demo):
    client, _ = as_demo("buyer")
    assert 'data-menu-key="market.settings"' not in client.get("/user").get_data(as_text=True)
    buyer = demo_user("buyer@demo.test")
    buyer.roles = [*buyer.roles, "ROLE_CCMARKET_ADMIN"]
    db.session.flush()
    assert 'data-menu-key="market.settings"' in client.get("/user").get_data(as_text=True)


def test_moving_a_vehicle_changes_the_counts_on_the_next_page(as_demo):
    client, _ = as_demo("seller")
    seller = demo_user("seller@demo.test")
    before = menu_counts(client.get("/begcare").get_data(as_text=True), "begcare")
    activate(seller.active_instance_id)
    division = db.session.scalars(select(Division)).first()
    item = add_item(
        PreparationItem(
            instance_id=seller.active_instance_id, module="begcare", division_id=division.id,
            state=2, regno="NEW123", brand="Volvo", model="EX30",
        )
    )  # fmt: skip
    db.session.flush()
    after_add = menu_counts(client.get("/begcare").get_data(as_text=True), "begcare")
    assert after_add["incoming"] == before["incoming"] + 1
    move_item(item, 6)
    db.session.flush()
    after_move = menu_counts(client.get("/begcare").get_data(as_text=True), "begcare")
    assert after_move["incoming"] == before["incoming"]
    assert after_move["showroom"] == before["showroom"] + 1


def test_the_active_entry_is_marked_on_each_page_from_the_cached_menu(as_demo):
    client, _ = as_demo("seller")
    first = client.get("/begcare/items/parked").get_data(as_text=True)
    second = client.get("/newcare/items/sold").get_data(as_text=True)
    assert '<a href="/begcare/items/parked" aria-current="page"' in first
    assert '<a href="/newcare/items/sold" aria-current="page"' in second
    assert '<a href="/begcare/items/parked" aria-current="page"' not in second
    assert "\x1e" not in first and "\x1e" not in second
