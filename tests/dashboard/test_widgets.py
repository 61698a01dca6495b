"""The dashboard pages and calls: every widget type of the seller's demo dashboard with values
that match the state lists, isolation (404, error type), editing, copying, removing, the layout,
validation messages and a constant number of queries per widget."""

from datetime import date

import pytest
from sqlalchemy import func, select

from app.core.models import Division
from app.core.tenancy import activate
from app.dashboard import services as svc
from app.dashboard import values
from app.dashboard.models import DashboardWidget
from app.extensions import db
from app.preparation.models import CustomList, CustomListItem, PreparationItem
from tests.dashboard._common import API, new_widget, page_props, widget_titled, widgets_of
from tests.helpers import documented
from tests.preparation.manage_helpers import QueryCounter
from tests.shell.conftest import demo_user

TYPES = {
    "number", "chart", "numberSummary", "list", "customList", "tier", "bookings", "reconCost",
    "error",
}  # fmt: skip


def items_in(module: str, state: int, instance_id: int) -> int:
    return db.session.scalar(
        select(func.count())
        .select_from(PreparationItem)
        .where(
            PreparationItem.module == module,
            PreparationItem.state == state,
            PreparationItem.instance_id == instance_id,
        )
    )


def test_the_seller_sees_one_widget_of_every_type(as_demo):
    client, _token = as_demo("seller")
    response = client.get("/my-dashboard")
    assert response.status_code == 200
    props = page_props(response)
    assert props["dashboard"] == "my" and props["canEdit"] is True
    types = set()
    for meta in props["widgets"]:
        answer = client.get(f"{API}/{meta['id']}")
        assert answer.status_code == 200
        types.add(answer.get_json()["type"])
    assert types == TYPES


def test_values_match_the_state_lists(as_demo):
    client, _token = as_demo("seller")
    seller = demo_user("seller@demo.test")
    instance_id = seller.active_instance_id
    flow = client.get(f"{API}/{widget_titled('seller@demo.test', 'I flödet').id}").get_json()
    assert flow["value"] == {"performanceValue": items_in("begcare", 4, instance_id), "performanceUnit": "vehicles"}  # fmt: skip
    # the state list of the flow says the same number
    page = client.get("/begcare/items/list").get_data(as_text=True)
    assert (
        f">{flow['value']['performanceValue']}<" in page
        or str(flow["value"]["performanceValue"]) in page
    )
    per_state = client.get(f"{API}/{widget_titled('seller@demo.test', 'Per läge').id}").get_json()
    for row in per_state["value"]["values"]:
        state = int(row["filters"]["enum[state]"])
        assert row["value"] == items_in("begcare", state, instance_id), row
    summary = client.get(
        f"{API}/{widget_titled('seller@demo.test', 'Fordon per status').id}"
    ).get_json()
    value = summary["value"]
    assert value["totalItemsCount"] == sum(items_in("begcare", s, instance_id) for s in range(1, 9))
    assert value["columnsCount"] == 3
    flat = {item["id"]: item["value"] for section in value["sections"] for item in section["items"]}
    assert flat[6] == items_in("begcare", 6, instance_id)


def test_the_ratio_stock_days_and_chart_values(as_demo):
    client, _token = as_demo("seller")
    turnover = client.get(f"{API}/{widget_titled('seller@demo.test', 'Lageromsättning (sålda under perioden per fordon i lager)').id}").get_json()  # fmt: skip
    assert turnover["value"]["performanceUnit"] == "ratio"
    stock = client.get(f"{API}/{widget_titled('seller@demo.test', 'Lagerdagar').id}").get_json()
    assert stock["value"]["performanceUnit"] == "days" and stock["value"]["performanceValue"] > 0
    chart = client.get(
        f"{API}/{widget_titled('seller@demo.test', 'Sålda per månad').id}"
    ).get_json()
    assert chart["type"] == "chart"
    assert len(chart["value"]["chart"]["labels"]) == 12 == len(chart["value"]["chart"]["data"])
    assert chart["value"]["chart"]["tickSpan"] == "month"
    # over Solna alone: the newest of the two Solna goals
    assert chart["goal"]["goalValue"] == 10.0


def test_a_widget_over_a_division_the_user_may_not_see_is_the_error_type(as_demo):
    client, _token = as_demo("seller")
    answer = client.get(f"{API}/{widget_titled('seller@demo.test', 'Fordon').id}")
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["type"] == "error"
    assert body["value"]["message"]
    assert "performanceValue" not in str(body["value"])


def test_a_division_admin_gets_the_error_type_outside_the_division(as_demo):
    client, token = as_demo("divadmin")
    divadmin = demo_user("divadmin@demo.test")
    activate(divadmin.active_instance_id)
    solna = db.session.scalars(select(Division).where(Division.name == "Nordbil Solna")).one()
    widget = DashboardWidget(
        user_id=divadmin.id, dashboard="my", type="number", title="Solna",
        options={"module": "begcare", "divisions": [f"division-{solna.id}"], "metric": "count"},
        config={}, item_filters={},
    )  # fmt: skip
    db.session.add(widget)
    db.session.flush()
    assert client.get(f"{API}/{widget.id}").get_json()["type"] == "error"
    # and the editor refuses that division
    answer = client.post(API, json=new_widget(divisions=[f"division-{solna.id}"]), headers={"X-CSRFToken": token})  # fmt: skip
    assert answer.status_code == 422
    assert "divisions" in answer.get_json()["errors"]


def test_another_instances_or_users_widget_is_not_found(as_demo):
    client, token = as_demo("seller")
    buyer = demo_user("buyer@demo.test")
    activate(buyer.active_instance_id)
    foreign = DashboardWidget(
        user_id=buyer.id, dashboard="my", type="number", title="x",
        options={"module": "begcare", "divisions": ["all"]}, config={}, item_filters={},
    )  # fmt: skip
    db.session.add(foreign)
    db.session.flush()
    colleague = widgets_of("divadmin@demo.test")[0]
    for widget_id in (foreign.id, colleague.id, 999999):
        headers = {"X-CSRFToken": token}
        assert client.get(f"{API}/{widget_id}").status_code == 404
        assert (
            client.put(f"{API}/{widget_id}", json=new_widget(), headers=headers).status_code == 404
        )
        assert client.post(f"{API}/{widget_id}/copy", headers=headers).status_code == 404
        assert client.delete(f"{API}/{widget_id}", headers=headers).status_code == 404
    ids = [w.id for w in widgets_of("seller@demo.test")]
    answer = client.put(
        "/api/dashboards/my/layout",
        json={"ids": [*ids, foreign.id]},
        headers={"X-CSRFToken": token},
    )
    assert answer.status_code == 422


def test_add_edit_copy_remove_and_reorder(as_demo):
    client, token = as_demo("seller")
    headers = {"X-CSRFToken": token}
    created = client.post(API, json=new_widget(title="  Nya  i  flödet "), headers=headers)
    assert created.status_code == 201
    widget = created.get_json()
    assert widget["title"] == "Nya i flödet" and widget["canEdit"] is True
    edited = client.put(
        f"{API}/{widget['id']}",
        json=new_widget(title="Parkerade", itemFilters={"enum[state]": "5"}, autoUpdate=30, h=2),
        headers=headers,
    )
    assert edited.status_code == 200
    loaded = client.get(f"{API}/{widget['id']}").get_json()
    assert loaded["title"] == "Parkerade" and loaded["autoUpdate"] == 30 and loaded["h"] == 2
    seller = demo_user("seller@demo.test")
    assert loaded["value"]["performanceValue"] == items_in("begcare", 5, seller.active_instance_id)
    copy = client.post(f"{API}/{widget['id']}/copy", headers=headers)
    assert copy.status_code == 201
    order = [w.id for w in widgets_of("seller@demo.test")]
    assert order[-2:] == [widget["id"], copy.get_json()["id"]]
    assert client.delete(f"{API}/{widget['id']}", headers=headers).status_code == 204
    assert client.get(f"{API}/{widget['id']}").status_code == 404
    # drag the last widget first: the page shows the saved order
    order = [w.id for w in widgets_of("seller@demo.test")]
    new_order = [order[-1], *order[:-1]]
    answer = client.put("/api/dashboards/my/layout", json={"ids": new_order}, headers=headers)
    assert answer.status_code == 204
    assert [w["id"] for w in page_props(client.get("/my-dashboard"))["widgets"]] == new_order
    # the API document lists each of these answers (schemathesis checks it against the server)
    assert 201 in documented(client, "post", API)
    assert 201 in documented(client, "post", f"{API}/{{widget_id}}/copy")
    assert 204 in documented(client, "delete", f"{API}/{{widget_id}}")
    assert 204 in documented(client, "put", "/api/dashboards/{dashboard}/layout")


def test_every_field_is_checked_with_its_own_message_and_nothing_is_saved(as_demo):
    client, token = as_demo("seller")
    before = len(widgets_of("seller@demo.test"))
    answer = client.post(
        API,
        json=new_widget(
            type="pie", title="x" * 101, divisions=["division-999999"], autoUpdate=5, h=7, w=9,
            colorConditions=[{"operator": "eq", "value": None, "color": "red"}],
            itemFilters={"enum[state]": "12"},
        ),
        headers={"X-CSRFToken": token, "Accept-Language": "en-GB"},
    )  # fmt: skip
    assert answer.status_code == 422
    errors = answer.get_json()["errors"]
    for field in (
        "type", "title", "divisions", "autoUpdate", "h", "w",
        "colorConditions.0.operator", "colorConditions.0.value", "colorConditions.0.color",
        "itemFilters.enum[state]",
    ):  # fmt: skip
        assert errors.get(field), field
    assert "seconds" in errors["autoUpdate"]
    assert answer.get_json()["keys"]["type"] == "FIELD_REQUIRED"
    assert len(widgets_of("seller@demo.test")) == before


# Each field with a value of another JSON type (a finding of issue 28: the first four answered
# 500), and the field's own message and key it is refused with.
WRONG_TYPES = [
    ("period", {}, "Choose a period", "INVALID_VALUE"),
    ("metric", {}, "Choose the figure", "FIELD_REQUIRED"),
    ("groupBy", [], "Choose how the list groups", "INVALID_VALUE"),
    ("divisions", [{}], "Choose divisions from the list", "INVALID_VALUE"),
    ("dashboard", {}, "There is no such dashboard", "INVALID_VALUE"),
    ("type", ["number"], "Choose the kind of widget", "FIELD_REQUIRED"),
    ("title", 5, "The label must be text", "INVALID_VALUE"),
    ("module", {}, "Choose a module you work in", "FIELD_REQUIRED"),
    ("divisions", "all", "Choose divisions from the list", "INVALID_VALUE"),
    ("chartType", [], "Choose a line or a bar chart", "INVALID_VALUE"),
    ("tickSpan", {}, "Choose weeks or months", "INVALID_VALUE"),
    ("colorConditions", {}, "at most 10 colour conditions", "INVALID_VALUE"),
    ("colorConditions", [None], "This colour condition cannot be read", "INVALID_VALUE"),
    ("colorConditions", [{"operator": {}, "value": 1, "color": "#ffffff"}], "greater than", "INVALID_VALUE"),
    ("colorConditions", [{"operator": "gt", "value": "ten", "color": "#ffffff"}], "Enter a number", "FIELD_REQUIRED"),
    ("colorConditions", [{"operator": "gt", "value": 1, "color": []}], "Choose a colour", "INVALID_VALUE"),
    ("colorConditions", [{"operator": "gt", "value": 1, "color": "#ffffff", "x": 1}], "This colour condition cannot be read", "INVALID_VALUE"),
    ("gauge", "yes", "The gauge is either on or off", "INVALID_VALUE"),
    ("minimum", "low", "The minimum must be a number", "INVALID_VALUE"),
    ("minimum", True, "The minimum must be a number", "INVALID_VALUE"),
    ("hideGoals", 1, "Goals are either shown or hidden", "INVALID_VALUE"),
    ("autoUpdate", "60", "Auto-update is 0 (off)", "INVALID_VALUE"),
    ("h", [], "The height is 1, 2 or 3 rows", "INVALID_VALUE"),
    ("w", "wide", "The width is 1 to 4 columns", "INVALID_VALUE"),
    ("customListId", {}, "Choose one of your custom lists", "FIELD_REQUIRED"),
    ("manage", [], "Manage the hub item", "INVALID_VALUE"),
    ("showStateInteractionButtons", "no", "State buttons are either shown", "INVALID_VALUE"),
    ("itemFilters", [], "The filters cannot be read", "INVALID_VALUE"),
    ("itemFilters", {"enum[state]": [2]}, "The filters cannot be read", "INVALID_VALUE"),
]  # fmt: skip


@pytest.mark.parametrize(("field", "value", "text", "key"), WRONG_TYPES)
def test_a_value_of_another_json_type_is_refused_with_the_fields_message(
    as_demo, field, value, text, key
):
    client, token = as_demo("seller")
    kind = {"groupBy": "list", "customListId": "customList"}.get(field, "number")
    for method, path in (("post", API), ("put", f"{API}/{widgets_of('seller@demo.test')[0].id}")):
        answer = getattr(client, method)(
            path,
            json=new_widget(**{"type": kind, field: value}),
            headers={"X-CSRFToken": token, "Accept-Language": "en-GB"},
        )
        assert answer.status_code == 422, (method, answer.get_data(as_text=True))
        body = answer.get_json()
        (name,) = [n for n in body["errors"] if n.split(".")[0] == field]
        assert text in body["errors"][name] and body["keys"][name] == key, body


def test_the_document_says_each_widget_fields_json_type(client):
    schema = client.get("/api/openapi.json").get_json()["components"]["schemas"]
    fields = schema["WidgetIn"]["properties"]
    assert fields["period"]["type"] == "string"
    assert (
        fields["divisions"]["items"]["type"] == "string" and fields["divisions"]["maxItems"] == 50
    )
    assert fields["groupBy"]["type"] == "string"
    assert [t["type"] for t in fields["metric"]["anyOf"]] == ["string", "null"]
    assert [t["type"] for t in fields["minimum"]["anyOf"]] == ["number", "null"]
    assert fields["colorConditions"]["items"] == {"$ref": "#/components/schemas/ColourCondition"}
    (filter_value,) = fields["itemFilters"]["patternProperties"].values()
    assert fields["itemFilters"]["type"] == "object" and filter_value["type"] == "string"
    assert fields["h"]["type"] == "integer" and fields["gauge"]["type"] == "boolean"


def test_the_messages_are_in_the_users_language(as_demo):
    client, token = as_demo("seller")
    answer = client.post(
        API,
        json=new_widget(divisions=[]),
        headers={"X-CSRFToken": token, "Accept-Language": "sv-SE"},
    )
    assert answer.status_code == 422
    assert answer.get_json()["errors"]["divisions"] == "Välj minst en anläggning."


def test_a_custom_list_widget_needs_one_of_the_users_own_lists(as_demo):
    client, token = as_demo("divadmin")
    seller_list = db.session.scalars(select(CustomList).order_by(CustomList.id)).first()
    answer = client.post(
        API,
        json=new_widget(type="customList", customListId=seller_list.id),
        headers={"X-CSRFToken": token},
    )
    assert answer.status_code == 422
    assert "customListId" in answer.get_json()["errors"]


def test_the_custom_list_widget_rows(as_demo):
    client, _token = as_demo("seller")
    body = client.get(f"{API}/{widget_titled('seller@demo.test', 'Egen lista').id}").get_json()
    value = body["value"]
    assert value["itemsCount"] == 3  # h 1: three rows
    assert value["totalItemsCount"] == 8
    first = value["items"][0]
    assert {"regno", "fullModelName", "stateSegment", "customListSeenId", "hubItemId"} <= set(first)


def test_the_tier_widget_shows_its_divisions_ranking(as_demo):
    client, _token = as_demo("seller")
    body = client.get(f"{API}/{widget_titled('seller@demo.test', 'Nivå').id}").get_json()
    assert body["type"] == "tier"
    summary = body["value"]["summary"]
    assert summary["divisionData"], "the demo ranks every division"
    current = summary["divisionData"][0]
    assert current["name"] == "Nordbil Solna"
    assert current["tier"] and current["position"] >= 1 and current["overallPosition"] >= 1
    assert summary["seasonData"]["current"]["identifier"]
    assert sum(row["percentage"] for row in summary["globalStatistics"]) > 0


def test_a_widget_takes_a_constant_number_of_queries(as_demo):
    client, _token = as_demo("seller")
    client.get("/my-dashboard")  # the shell's caches warm
    counts = {}
    for widget in widgets_of("seller@demo.test"):
        svc.VALUES.clear()
        svc.AVERAGES.clear()
        with QueryCounter() as counter:
            assert client.get(f"{API}/{widget.id}").status_code == 200
        counts[widget.id] = counter.count
    # The tier widget reads the most: its division, both seasons, their points and the tiers'
    # shares (and every request checks its server-side session).
    assert max(counts.values()) <= 14, counts
    # a list with more vehicles takes no more queries
    kampanj = widget_titled("seller@demo.test", "Egen lista")
    kampanj.h = 2
    custom_list_id = kampanj.options["customListId"]
    on_list = set(db.session.scalars(select(CustomListItem.item_id).where(CustomListItem.custom_list_id == custom_list_id)))  # fmt: skip
    more = db.session.scalars(
        select(PreparationItem.id)
        .where(PreparationItem.id.not_in(on_list), PreparationItem.module == "begcare")
        .limit(6)  # fmt: skip
    ).all()
    db.session.add_all(CustomListItem(custom_list_id=custom_list_id, item_id=i) for i in more)
    db.session.flush()
    with QueryCounter() as counter:
        body = client.get(f"{API}/{kampanj.id}").get_json()
    assert body["value"]["itemsCount"] == 9
    assert counter.count == counts[kampanj.id]


def test_the_module_dashboard_shows_the_modules_own_widgets(as_demo):
    client, _token = as_demo("seller")
    props = page_props(client.get("/begcare/dashboard"))
    assert props["fixedModule"] == "begcare"
    assert props["widgets"]
    assert {w["options"]["module"] for w in props["widgets"]} == {"begcare"}
    for meta in props["widgets"]:
        assert client.get(f"{API}/{meta['id']}").get_json()["type"] != "error"


def test_a_module_dashboard_widget_stays_in_its_module(as_demo):
    client, token = as_demo("seller")
    answer = client.post(API, json=new_widget(dashboard="newcare", module="begcare"), headers={"X-CSRFToken": token})  # fmt: skip
    assert answer.status_code == 201
    assert answer.get_json()["options"]["module"] == "newcare"


@pytest.mark.parametrize("name", ["global"])
def test_a_global_user_has_no_my_dashboard(as_demo, name):
    client, token = as_demo(name)
    assert client.get("/my-dashboard").status_code == 404
    assert client.post(API, json=new_widget(), headers={"X-CSRFToken": token}).status_code == 404
    assert client.get("/begcare/dashboard").status_code == 200


def test_a_station_user_without_newcare_gets_404_on_its_dashboard(as_demo):
    client, _token = as_demo("station")
    assert client.get("/newcare/dashboard").status_code == 404
    props = page_props(client.get("/my-dashboard"))
    assert [m["value"] for m in props["choices"]["modules"]] == ["begcare"]


@pytest.mark.parametrize("name", ["divadmin", "station", "admin"])
def test_the_other_staff_demo_users_have_dashboards_that_fit_their_roles(as_demo, name):
    client, _token = as_demo(name)
    props = page_props(client.get("/my-dashboard"))
    assert props["widgets"]
    for meta in props["widgets"]:
        body = client.get(f"{API}/{meta['id']}").get_json()
        assert body["type"] != "error", (name, meta["title"])


def test_a_market_buyer_has_an_empty_dashboard_without_vehicle_modules(as_demo):
    client, _token = as_demo("buyer")
    props = page_props(client.get("/my-dashboard"))
    assert props["widgets"] == [] and props["choices"]["modules"] == []


def test_the_custom_list_widget_offers_state_buttons_only_when_configured(as_demo):
    client, token = as_demo("seller")
    widget = widget_titled("seller@demo.test", "Egen lista")
    body = client.get(f"{API}/{widget.id}").get_json()
    assert all(item["stateButtons"] == [] for item in body["value"]["items"])
    answer = client.put(
        f"{API}/{widget.id}",
        json=new_widget(type="customList", customListId=widget.options["customListId"],
                        showStateInteractionButtons=True, manage="hub"),
        headers={"X-CSRFToken": token},
    )  # fmt: skip
    assert answer.status_code == 200
    body = client.get(f"{API}/{widget.id}").get_json()
    assert body["value"]["config"]["showStateInteractionButtons"] is True
    assert body["value"]["config"]["manage"] == "hub"
    buttons = body["value"]["items"][0]["stateButtons"]
    assert buttons and all({"toState", "title"} <= set(b) for b in buttons)


def test_the_charts_over_whole_divisions_read_the_totals_and_count_what_the_events_give(as_demo):
    """A chart widget without item filters reads the statistics' monthly totals (issue 34: a
    year of events at 1M vehicles took 0.5 s); its figures are those the events give, before
    and after a vehicle is sold, over all the seller's divisions and over one."""
    from app.preparation.queries import ItemFilters
    from app.preparation.services import move_item
    from tests.preparation.manage_helpers import demo_item, in_seller_instance

    def both(scope, metric: str, tick_span: str) -> tuple[list[int], list[int]]:
        chart = values.chart_value(scope, metric, tick_span)["chart"]
        starts = [_start(label) for label in chart["labels"]]
        to_state = values.SOLD if metric == "sold" else values.FLOW
        return chart["data"], values._counts_from_events(scope, to_state, starts)

    instance_id = in_seller_instance()
    divisions = tuple(
        db.session.scalars(select(Division.id).where(Division.instance_id == instance_id))
    )
    scopes = [
        values.Scope("begcare", divisions, ItemFilters()),
        values.Scope("begcare", divisions[:1], ItemFilters()),
    ]
    for scope in scopes:
        for metric in ("sold", "entered"):
            for tick_span in ("month", "week"):
                from_totals, from_events = both(scope, metric, tick_span)
                assert from_totals == from_events, (scope.division_ids, metric, tick_span)
    assert any(both(scopes[0], "sold", "month")[0]), "the demo has sales this year"
    item = demo_item(6)
    before = both(values.Scope("begcare", (item.division_id,), ItemFilters()), "sold", "week")[0]
    move_item(item, 7)
    db.session.flush()
    after, events = both(
        values.Scope("begcare", (item.division_id,), ItemFilters()), "sold", "week"
    )
    assert after == events and after[-1] == before[-1] + 1


def _start(label: str) -> date:
    """A chart label's first day: "2026-12" (a month) or "2026-W49" (an ISO week)."""
    year, _, rest = label.partition("-")
    if rest.startswith("W"):
        return date.fromisocalendar(int(year), int(rest[1:]), 1)
    return date(int(year), int(rest), 1)
