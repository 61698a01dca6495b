"""Statistics per module: throughput, days per state and station, stock days."""

import json
import re
from datetime import timedelta
from html import unescape

import pytest
from flask_babel import format_date
from sqlalchemy import event, select

from app.core.models import Division, utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import ItemStationTask, PreparationItem, Station
from app.preparation.services import add_item, move_item
from app.preparation.statistics import FIGURES
from tests.factories import make_instance, make_user
from tests.helpers import page_text, sign_in
from tests.shell.conftest import demo_user


@pytest.fixture(autouse=True)
def _fresh_figures():
    """Each test rolls back, so counts versions repeat between tests: forget cached figures."""
    FIGURES.clear()


def charts(response) -> dict[str, dict]:
    """The props of every chart island on the page, by their label."""
    html = response.get_data(as_text=True)
    found = re.findall(r'data-island="statistics-chart" data-island-props="([^"]*)"', html)
    return {p["label"]: p for p in (json.loads(unescape(raw)) for raw in found)}


def table_rows(html: str, table_id: str) -> dict[str, list[str]]:
    """Row header -> cell texts of one statistics table."""
    table = re.search(rf'<table class="table" id="{table_id}">(.*?)</table>', html, re.S).group(1)
    rows = {}
    for row in re.findall(r"<tr><th scope=\"row\">(.*?)</tr>", table, re.S):
        head, _sep, rest = row.partition("</th>")
        cells = re.findall(r"<td[^>]*>(.*?)</td>", rest, re.S)
        rows[unescape(head).strip()] = [re.sub(r"<[^>]+>", "", c).strip() for c in cells]
    return rows


def setup(divisions: int = 2):
    """An instance with a statistics user who sees every division, and its division ids."""
    instance = make_instance(divisions=divisions)
    user = make_user(instance, modules=["begcare"], all_divisions=True, roles=["ROLE_STATISTICS"])
    activate(instance.id)
    ids = list(db.session.scalars(select(Division.id).order_by(Division.id)))
    return instance, user, ids


def vehicle(instance, division_id, regno, days_ago, state=2):
    item = PreparationItem(
        instance_id=instance.id, module="begcare", division_id=division_id, state=state,
        regno=regno, brand="Volvo", model="V60",
        state_changed_at=utcnow() - timedelta(days=days_ago),
    )  # fmt: skip
    return add_item(item)


# --- the demo data ---------------------------------------------------------------------------


def test_seller_sees_every_figure_with_a_chart_and_a_table(as_demo):
    client, _ = as_demo("seller")
    response = client.get("/begcare/statistics")
    assert response.status_code == 200
    html = page_text(response)
    for heading in (
        "Throughput per month", "Throughput per week", "Average days per state",
        "Average minutes per station", "Stock days", "Sales by salesperson",
        "Reconditioning cost",
    ):  # fmt: skip
        assert f">{heading}</h2>" in html
    found = charts(response)
    assert len(found) == 9  # and three of reconditioning cost (tests/preparation/test_recon.py)
    months = found["Vehicles entering the flow and sold per month"]
    assert months["type"] == "bar" and len(months["labels"]) == 12
    assert re.fullmatch(r"[A-Z]{3,4}", months["labels"][0])  # short upper-case month names
    weeks = found["Vehicles entering the flow and sold per week"]
    assert weeks["type"] == "line" and weeks["labels"][-1].startswith("week ")
    assert sum(months["datasets"][1]["data"]) > 0
    # Every chart's numbers are also in a real table with a caption.
    assert html.count("<caption>") >= 6
    assert "Wash" in table_rows(html, "table-stations")
    # The sales by salesperson are the same sales the throughput counts, broken down.
    by_seller = found["Vehicles sold per salesperson"]
    assert sum(by_seller["datasets"][0]["data"]) == sum(months["datasets"][1]["data"])
    assert "No salesperson" in table_rows(html, "table-salespeople")


def test_a_vehicle_moved_to_sold_shows_in_the_throughput(as_demo):
    client, _ = as_demo("seller")
    seller = demo_user("seller@demo.test")
    activate(seller.active_instance_id)
    this_month = format_date(utcnow().date(), "LLLL yyyy")

    def sold_this_month() -> int:
        return int(table_rows(page_text(client.get("/begcare/statistics")), "table-months")[this_month][1])  # fmt: skip

    before = sold_this_month()
    item = db.session.scalars(
        select(PreparationItem).where(PreparationItem.module == "begcare", PreparationItem.state == 6)
    ).first()  # fmt: skip
    move_item(item, 7, seller.id)
    db.session.flush()
    assert sold_this_month() == before + 1
    sold = charts(client.get("/begcare/statistics"))[
        "Vehicles entering the flow and sold per month"
    ]["datasets"][1]["data"]
    assert sold[-1] == before + 1


def test_statistics_need_the_statistics_role_and_the_module(as_demo):
    client, _ = as_demo("station")  # no ROLE_STATISTICS
    assert client.get("/begcare/statistics").status_code == 403
    seller = demo_user("seller@demo.test")
    seller.modules = ["begcare"]
    db.session.flush()
    client, _ = as_demo("seller")
    assert client.get("/newcare/statistics").status_code == 404
    assert client.get("/market/statistics").status_code != 500


# --- the computations ------------------------------------------------------------------------


def test_the_figures_are_computed_from_events_tasks_and_items(client):
    instance, user, (first, _second) = setup()
    now = utcnow()
    a = vehicle(instance, first, "AAA111", days_ago=10)  # incoming for 6 days
    move_item(a, 3, when=now - timedelta(days=4))
    move_item(a, 4, when=now - timedelta(days=1))  # awaiting for 3 days, then in flow
    b = vehicle(instance, first, "BBB222", days_ago=5)  # incoming for 2 days
    move_item(b, 4, when=now - timedelta(days=3))
    move_item(b, 6, when=now - timedelta(days=2))
    move_item(b, 7, when=now - timedelta(hours=1))  # sold
    vehicle(instance, first, "CCC333", days_ago=45)  # still incoming, 45 stock days
    station = Station(module="begcare", name="Tvätt", target_minutes=45)
    db.session.add(station)
    db.session.flush()
    for item, minutes in ((a, 30), (b, 60)):
        db.session.add(
            ItemStationTask(
                item_id=item.id, station_id=station.id, status="done", target_minutes=45,
                started_at=now - timedelta(hours=5), finished_at=now - timedelta(hours=5) + timedelta(minutes=minutes),
            )
        )  # fmt: skip
    db.session.flush()
    sign_in(client, user)
    html = page_text(client.get("/begcare/statistics"))

    months = table_rows(html, "table-months")
    assert months[format_date(now.date(), "LLLL yyyy")] == ["2", "1"]  # two entered, one sold
    states = table_rows(html, "table-states")
    assert states["Incoming"] == ["2", "4"]  # (6 + 2) / 2 days
    assert states["Awaiting"] == ["1", "3"]
    assert states["Showroom"] == ["1", "2"]  # 2 days minus 1 hour, to one decimal
    assert states["Flow"] == ["1", "1"]  # only b left the flow
    assert table_rows(html, "table-stations")["Tvätt"] == ["2", "45", "45"]
    stock = table_rows(html, "table-stock")
    assert stock["0–30 days"] == ["1"] and stock["31–60 days"] == ["1"]
    assert "Vehicles in stock</dt><dd>2</dd>" in html  # the sold one is not in stock
    assert "Average stock days</dt><dd>27.5</dd>" in html  # (10 + 45) / 2


def test_a_station_over_its_target_is_marked(client):
    instance, user, (first, _second) = setup()
    now = utcnow()
    item = vehicle(instance, first, "SLOW1", days_ago=3, state=4)
    station = Station(module="begcare", name="Lack", target_minutes=60)
    db.session.add(station)
    db.session.flush()
    db.session.add(
        ItemStationTask(
            item_id=item.id, station_id=station.id, status="done", target_minutes=60,
            started_at=now - timedelta(hours=3), finished_at=now - timedelta(hours=1),
        )
    )  # fmt: skip
    db.session.flush()
    sign_in(client, user)
    html = page_text(client.get("/begcare/statistics"))
    assert '<td class="num over-target">120 <span class="visually-hidden">(over the target)</span>' in html  # fmt: skip


def test_the_division_selector_limits_the_figures(client):
    instance, user, (first, second) = setup()
    vehicle(instance, first, "IN1", days_ago=3)
    vehicle(instance, second, "OUT1", days_ago=3)
    vehicle(instance, second, "OUT2", days_ago=3)
    token = sign_in(client, user)
    html = page_text(client.get("/begcare/statistics"))
    assert "Vehicles in stock</dt><dd>3</dd>" in html
    client.post("/division", data={"value": f"division-{first}", "csrf_token": token})
    html = page_text(client.get("/begcare/statistics"))
    assert "Vehicles in stock</dt><dd>1</dd>" in html


def test_another_instances_vehicles_are_not_counted(client):
    instance, user, (first, _second) = setup()
    vehicle(instance, first, "MINE1", days_ago=3)
    other = make_instance()
    activate(other.id)
    other_division = db.session.scalars(select(Division.id)).first()
    for n in range(4):
        vehicle(other, other_division, f"THEIRS{n}", days_ago=3)
    db.session.flush()
    sign_in(client, user)
    html = page_text(client.get("/begcare/statistics"))
    assert "Vehicles in stock</dt><dd>1</dd>" in html


def test_the_page_costs_the_same_queries_with_many_vehicles(client, app):
    instance, user, (first, second) = setup()
    sign_in(client, user)

    def queries() -> int:
        statements = []
        listener = lambda *args: statements.append(args[2])  # noqa: E731
        FIGURES.clear()  # count the queries that compute the figures
        event.listen(db.engine, "before_cursor_execute", listener)
        try:
            assert client.get("/begcare/statistics").status_code == 200
        finally:
            event.remove(db.engine, "before_cursor_execute", listener)
        return len(statements)

    vehicle(instance, first, "ONE", days_ago=20)
    db.session.flush()
    queries()
    few = queries()
    station = Station(module="begcare", name="Tvätt", target_minutes=45)
    db.session.add(station)
    db.session.flush()
    now = utcnow()
    for n in range(60):
        item = vehicle(instance, (first, second)[n % 2], f"MANY{n}", days_ago=1 + n * 5)
        move_item(item, 4, when=now - timedelta(days=n * 4))
        db.session.add(
            ItemStationTask(
                item_id=item.id, station_id=station.id, status="done",
                started_at=now - timedelta(hours=2), finished_at=now - timedelta(hours=1),
            )
        )  # fmt: skip
    db.session.flush()
    queries()  # the shell reads the changed menu counts once
    assert queries() == few


@pytest.mark.parametrize("module", ["begcare", "newcare"])
def test_both_modules_have_their_own_figures(as_demo, module):
    client, _ = as_demo("seller")
    html = page_text(client.get(f"/{module}/statistics"))
    names = {"begcare": "Used vehicles", "newcare": "New vehicles"}
    assert f"{names[module]}, All divisions." in html


def test_figures_are_kept_until_the_vehicles_change(client):
    instance, user, (first, _second) = setup()
    item = vehicle(instance, first, "KEEP1", days_ago=3, state=6)
    sign_in(client, user)

    def page():
        statements = []
        listener = lambda *args: statements.append(args[2])  # noqa: E731
        event.listen(db.engine, "before_cursor_execute", listener)
        try:
            html = page_text(client.get("/begcare/statistics"))
        finally:
            event.remove(db.engine, "before_cursor_execute", listener)
        return html, len(statements)

    _html, computed = page()
    _html, cached = page()
    assert cached <= computed - 4  # the four figure queries are not run again
    move_item(item, 7)
    db.session.flush()
    html, _n = page()
    this_month = format_date(utcnow().date(), "LLLL yyyy")
    assert table_rows(html, "table-months")[this_month] == ["0", "1"]
