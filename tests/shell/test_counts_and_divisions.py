"""Menu counts per state match the items, follow the division selector, and cost one query."""

import re

from sqlalchemy import event, func, select

from app.core.models import Division
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import ItemStateCount, PreparationItem
from app.preparation.services import add_item, move_item, recount, state_counts
from app.preparation.states import STATES
from tests.factories import make_instance, make_user
from tests.helpers import sign_in
from tests.shell.conftest import demo_user


def menu_counts(html: str, module: str) -> dict[str, int]:
    pattern = rf'data-menu-key="{module}\.items\.([a-z]+)"[^>]*>\s*<a[^>]*>\s*<span class="nav-title">[^<]*</span>\s*<span class="nav-count"[^>]*>(\d+)</span>'
    return {segment: int(n) for segment, n in re.findall(pattern, html)}


def item_counts(instance_id: int, module: str, division_ids=None) -> dict[str, int]:
    stmt = (
        select(PreparationItem.state, func.count())
        .where(PreparationItem.instance_id == instance_id, PreparationItem.module == module)
        .group_by(PreparationItem.state)
        .execution_options(all_instances=True)
    )
    if division_ids is not None:
        stmt = stmt.where(PreparationItem.division_id.in_(division_ids))
    found = dict(db.session.execute(stmt).all())
    return {s.segment: found.get(s.id, 0) for s in STATES}


def test_menu_counts_match_the_items_of_the_users_instance(as_demo):
    client, _ = as_demo("seller")
    seller = demo_user("seller@demo.test")
    html = client.get("/begcare").get_data(as_text=True)
    for module in ("begcare", "newcare"):
        assert menu_counts(html, module) == item_counts(seller.active_instance_id, module)
    assert sum(menu_counts(html, "begcare").values()) > 100


def test_division_selector_filters_the_counts(as_demo):
    client, token = as_demo("seller")
    seller = demo_user("seller@demo.test")
    activate(seller.active_instance_id)
    division = db.session.scalars(select(Division).order_by(Division.name)).first()
    response = client.post(
        "/division",
        data={"value": f"division-{division.id}", "next": "/begcare", "csrf_token": token},
    )
    assert response.headers["Location"] == "/begcare"
    html = client.get("/begcare").get_data(as_text=True)
    assert f'value="division-{division.id}" class="level-3" selected' in html
    expected = item_counts(seller.active_instance_id, "begcare", [division.id])
    assert menu_counts(html, "begcare") == expected
    assert sum(expected.values()) < sum(item_counts(seller.active_instance_id, "begcare").values())


def test_a_division_outside_the_users_rights_cannot_be_chosen(as_demo):
    client, token = as_demo("station")  # sees one division only
    other = db.session.scalars(
        select(Division)
        .where(Division.slug == "nordbil-goteborg")
        .execution_options(all_instances=True)
    ).one()
    response = client.post("/division", data={"value": f"division-{other.id}", "csrf_token": token})
    assert response.status_code == 422


def test_a_division_of_another_instance_cannot_be_chosen(as_demo):
    client, token = as_demo("seller")
    foreign = db.session.scalars(
        select(Division)
        .where(Division.slug == "fjordauto-bergen")
        .execution_options(all_instances=True)
    ).one()
    response = client.post(
        "/division", data={"value": f"division-{foreign.id}", "csrf_token": token}
    )
    assert response.status_code == 422


def test_station_user_counts_cover_only_their_division(as_demo):
    client, _ = as_demo("station")
    station = demo_user("station@demo.test")
    html = client.get("/begcare").get_data(as_text=True)
    ids = [d.id for d in station.divisions]
    assert menu_counts(html, "begcare") == item_counts(station.active_instance_id, "begcare", ids)


def test_counters_follow_adds_and_moves_and_equal_a_recount(ctx):
    instance = make_instance(divisions=2)
    activate(instance.id)
    division = db.session.scalars(select(Division)).first()
    items = []
    for n in range(6):
        item = PreparationItem(
            instance_id=instance.id, module="begcare", division_id=division.id, state=2,
            regno=f"ABC{n:03d}", brand="Volvo", model="V60",
        )  # fmt: skip
        items.append(add_item(item))
    move_item(items[0], 6)
    move_item(items[1], 6)
    move_item(items[1], 7)
    db.session.flush()
    counts = state_counts([division.id])["begcare"]
    assert counts[2] == 4 and counts[6] == 1 and counts[7] == 1
    before = {
        (r.module, r.division_id, r.state): r.count
        for r in db.session.scalars(select(ItemStateCount))
        if r.count
    }
    recount(instance.id)
    after = {
        (r.module, r.division_id, r.state): r.count
        for r in db.session.scalars(select(ItemStateCount))
    }
    assert before == after


def test_the_shell_page_costs_the_same_queries_with_many_items(client, app):
    instance = make_instance(divisions=2)
    user = make_user(instance, modules=["begcare", "newcare"], all_divisions=True)
    sign_in(client, user)
    activate(instance.id)
    # A first page draws the user's menus (sign_in's error page has none to draw).
    assert client.get("/begcare").status_code == 200
    division = db.session.scalars(select(Division)).first()

    def queries_for_page() -> int:
        statements = []
        listener = lambda *args: statements.append(args[2])  # noqa: E731
        event.listen(db.engine, "before_cursor_execute", listener)
        try:
            assert client.get("/begcare").status_code == 200
        finally:
            event.remove(db.engine, "before_cursor_execute", listener)
        return len(statements)

    add_item(
        PreparationItem(
            instance_id=instance.id,
            module="begcare",
            division_id=division.id,
            state=2,
            regno="A1",
            brand="Kia",
            model="Niro",
        )
    )
    db.session.flush()
    few = queries_for_page()
    assert 0 < few <= 12
    for n in range(200):
        add_item(
            PreparationItem(
                instance_id=instance.id, module="newcare" if n % 2 else "begcare",
                division_id=division.id, state=1 + n % 9, regno=f"B{n}", brand="Kia", model="EV6",
            )
        )  # fmt: skip
    db.session.flush()
    assert queries_for_page() == few
