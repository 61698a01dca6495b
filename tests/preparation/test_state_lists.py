"""The nine state lists: the right vehicles, sorting, pages, the division selector, time in
state, station progress, row styling, links, isolation and a constant number of queries."""

import re
from datetime import timedelta

import pytest
from sqlalchemy import event, func, select

from app.core.models import Division, Instance, utcnow
from app.core.tenancy import activate
from app.core.workdays import day_counter
from app.extensions import db
from app.preparation.items import active_advert_ids
from app.preparation.models import ItemStationTask, PreparationItem
from app.preparation.services import add_item
from app.preparation.states import STATES
from app.shell.layout import COUNTS
from tests.factories import make_instance, make_user
from tests.helpers import page_text, sign_in
from tests.preparation.manage_helpers import foreign_item, in_seller_instance
from tests.shell.conftest import demo_user

ROW = re.compile(r'<tr data-item-id="(\d+)" class="([^"]*)">(.*?)</tr>', re.S)


@pytest.fixture(autouse=True)
def _fresh_counts_cache():
    """The shell caches counts per instance and counts_version; a rolled-back test leaves
    entries whose version the next test reaches again with other data."""
    yield
    COUNTS.clear()


def rows(response) -> list[tuple[int, str, str]]:
    """(item id, row classes, row html) of the item table."""
    return [(int(i), c, html) for i, c, html in ROW.findall(response.get_data(as_text=True))]


def items_in(state: int, module: str = "begcare", division_ids=None) -> list[PreparationItem]:
    in_seller_instance()
    stmt = select(PreparationItem).where(
        PreparationItem.state == state, PreparationItem.module == module
    )
    if division_ids is not None:
        stmt = stmt.where(PreparationItem.division_id.in_(division_ids))
    return list(db.session.scalars(stmt))


@pytest.mark.parametrize("state", STATES, ids=lambda s: s.segment)
def test_each_state_list_shows_the_vehicles_in_that_state(as_demo, state):
    client, _ = as_demo("seller")
    response = client.get(f"/begcare/items/{state.segment}")
    assert response.status_code == 200
    expected = {i.id for i in items_in(state.id)}
    shown = {i for i, _, _ in rows(response)}
    assert shown and shown <= expected
    assert len(shown) == min(25, len(expected))
    text = page_text(response)
    assert f"of {len(expected)} vehicles" in text
    assert f'<h1 class="page-title">{state.title}</h1>' in text


def test_rows_show_days_in_state_progress_and_link_to_the_items_page(as_demo):
    client, _ = as_demo("seller")
    for state, view in ((4, "stations-manage"), (3, "stations-utilize"), (7, "stations-utilize")):
        segment = next(s.segment for s in STATES if s.id == state)
        response = client.get(f"/begcare/items/{segment}")
        by_id = {i.id: i for i in items_in(state)}
        item_id, _, html = rows(response)[0]
        item = by_id[item_id]
        assert f'href="/begcare/items/{segment}/{item.id}/{view}"' in html
        count_days = day_counter(db.session.get(Instance, item.instance_id))  # the demo's
        days = count_days(item.state_changed_at, utcnow(), item.division_id)  # working days
        assert re.search(rf'<td class="num">{days}</td>', html)
        tasks = db.session.scalars(
            select(ItemStationTask).where(ItemStationTask.item_id == item.id)
        ).all()
        done = sum(t.status == "done" for t in tasks)
        assert f">{done}/{len(tasks)}<" in html


def test_warning_rows_are_marked_red_and_say_so(as_demo):
    client, _ = as_demo("seller")
    response = client.get("/begcare/items/list?sort=regno")
    listed = rows(response)
    by_id = {i.id: i for i in items_in(4)}
    warned = [(i, c, h) for i, c, h in listed if by_id[i].warning]
    calm = [(i, c, h) for i, c, h in listed if not by_id[i].warning]
    assert warned and calm
    assert all("row-warning" in c and ">Warning</span>" in h for _, c, h in warned)
    assert all("row-warning" not in c and ">Warning</span>" not in h for _, c, h in calm)
    assert not any("row-advert" in c for _, c, _ in listed)  # no adverts in the model yet


@pytest.mark.parametrize(
    ("sort", "key", "reverse"),
    [
        ("regno", lambda i: i.regno, False),
        ("-regno", lambda i: i.regno, True),
        ("mileage", lambda i: i.mileage, False),
        ("-price", lambda i: i.sales_price, True),
        ("days", lambda i: -i.state_changed_at.timestamp(), False),
    ],
)
def test_the_list_sorts_by_the_chosen_column(as_demo, sort, key, reverse):
    client, _ = as_demo("seller")
    response = client.get(f"/begcare/items/showroom?sort={sort}")
    by_id = {i.id: i for i in items_in(6)}
    shown = [by_id[i] for i, _, _ in rows(response)]
    expected = sorted(by_id.values(), key=lambda i: (key(i), i.id if not reverse else -i.id))
    if reverse:
        expected = sorted(by_id.values(), key=key, reverse=True)
    assert [key(i) for i in shown] == [key(i) for i in expected[: len(shown)]]
    assert 'aria-sort="' in response.get_data(as_text=True)


def test_pages_have_links_and_do_not_overlap(as_demo):
    client, _ = as_demo("seller")
    activate(demo_user("seller@demo.test").active_instance_id)
    total = len(items_in(9))
    assert total > 25
    first = client.get("/begcare/items/archived?sort=regno")
    second = client.get("/begcare/items/archived?sort=regno&page=2")
    html = first.get_data(as_text=True)
    assert 'href="/begcare/items/archived?sort=regno&amp;page=2"' in html
    ids_1 = [i for i, _, _ in rows(first)]
    ids_2 = [i for i, _, _ in rows(second)]
    assert len(ids_1) == 25 and len(ids_2) == total - 25
    assert not set(ids_1) & set(ids_2)
    assert f"26–{total} of {total} vehicles" in page_text(second)
    # A page past the end shows the last page.
    assert [
        i for i, _, _ in rows(client.get("/begcare/items/archived?sort=regno&page=99"))
    ] == ids_2
    # Not a whole number: the strict integer rule answers 422 naming the field.
    refused = client.get("/begcare/items/archived?sort=regno&page=x")
    assert refused.status_code == 422 and "page" in page_text(refused)


def test_the_division_selector_filters_the_list(as_demo):
    client, token = as_demo("seller")
    in_seller_instance()
    division = db.session.scalars(select(Division).where(Division.name == "Nordbil Solna")).one()
    client.post("/division", data={"value": f"division-{division.id}", "csrf_token": token})
    response = client.get("/begcare/items/showroom")
    expected = {i.id for i in items_in(6, division_ids=[division.id])}
    assert {i for i, _, _ in rows(response)} == expected
    assert all("Nordbil Solna" in h for _, _, h in rows(response))


def test_station_user_sees_only_their_division_and_no_other_instance(as_demo):
    client, _ = as_demo("station")
    station = demo_user("station@demo.test")
    allowed = {d.id for d in station.divisions}
    response = client.get("/begcare/items/list")
    shown = {i for i, _, _ in rows(response)}
    assert shown == {i.id for i in items_in(4, division_ids=allowed)}
    other = foreign_item()
    client, _ = as_demo("seller")
    html = client.get(f"/begcare/items/{STATES[other.state - 1].segment}").get_data(as_text=True)
    assert f'data-item-id="{other.id}"' not in html
    assert other.regno not in html


def test_unknown_segments_and_modules_the_user_lacks_are_not_found(as_demo, app):
    client, _ = as_demo("seller")
    assert client.get("/begcare/items/everything").status_code == 404
    client, _ = as_demo("station")  # begcare only
    assert client.get("/newcare/items/list").status_code == 404


# --- a constant number of queries ---------------------------------------------------------------


def count_queries(client, path: str) -> int:
    statements = []
    listener = lambda *args: statements.append(args[2])  # noqa: E731
    client.get(path)  # warm the per-process caches (menus, counts)
    event.listen(db.engine, "before_cursor_execute", listener)
    try:
        response = client.get(path)
        assert response.status_code == 200
    finally:
        event.remove(db.engine, "before_cursor_execute", listener)
    return len(statements)


def add_items(instance, division, n: int, state: int, start: int = 0) -> None:
    activate(instance.id)
    station = _station()
    for k in range(start, start + n):
        item = add_item(
            PreparationItem(
                instance_id=instance.id, module="begcare", division_id=division.id, state=state,
                regno=f"QRY{k:03d}", brand="Volvo", model="V60", mileage=1000 + k,
                warning=k % 3 == 0, state_changed_at=utcnow() - timedelta(days=k),
            )
        )  # fmt: skip
        db.session.flush()
        db.session.add(ItemStationTask(item_id=item.id, station_id=station.id))
    db.session.flush()


def _station():
    from app.preparation.models import Station

    station = db.session.scalars(select(Station)).first()
    if station is None:
        station = Station(module="begcare", name="Tvätt")
        db.session.add(station)
        db.session.flush()
    return station


def test_a_state_list_costs_the_same_queries_with_few_or_many_items(client):
    instance = make_instance(divisions=2)
    user = make_user(instance, modules=["begcare"], all_divisions=True)
    sign_in(client, user)
    activate(instance.id)
    division = db.session.scalars(select(Division)).first()
    add_items(instance, division, 2, 4)
    few = count_queries(client, "/begcare/items/list")
    add_items(instance, division, 40, 4, start=2)
    many = count_queries(client, "/begcare/items/list")
    assert few == many
    assert few <= 8
    assert db.session.scalar(select(func.count()).select_from(PreparationItem)) >= 42


def test_rows_with_an_active_advert_get_the_blue_callout(as_demo):
    """Exactly the rows of items with a published, closed, provisionally sold or allocated
    advert (the rule of active_advert_ids, tested with each status in tests/market)."""
    client, _ = as_demo("seller")
    listed = rows(client.get("/begcare/items/showroom?sort=regno"))
    in_seller_instance()
    active = active_advert_ids([i for i, _, _ in listed])
    assert active and len(active) < len(listed)  # the demo data has rows of both kinds
    assert {i for i, c, _ in listed if "row-advert" in c} == active
