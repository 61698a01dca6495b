"""Issue 30: the configuration flags, the holidays and the actions act where the product is used."""

from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import select

import app.preparation  # noqa: F401  (first: the menu's imports form a cycle otherwise)
from app.admin.demo import HOLIDAYS
from app.core import roles as R
from app.core.models import Country, Division, Instance, Region
from app.core.settings import Holiday, SettingRow
from app.core.tenancy import activate
from app.core.workdays import WorkingDays, working_days
from app.extensions import db
from app.preparation.models import PreparationItem
from app.preparation.services import add_item, move_item
from app.preparation.statistics import FIGURES
from tests.factories import make_instance, make_user
from tests.helpers import page_text, sign_in

ADMIN = ["ROLE_USER", R.ROLE_ADMIN, *R.ALL_TENANT_ROLES, "ROLE_STATISTICS"]
UTC = UTC


@pytest.fixture(autouse=True)
def _fresh_figures():
    FIGURES.clear()


def save_configuration(client, token, *checked: str) -> None:
    data = {"csrf_token": token, **{name: "y" for name in checked}}
    assert client.post("/admin/general/configuration", data=data).status_code == 302


def instance_of(user) -> Instance:
    instance = db.session.get(Instance, user.active_instance_id)
    db.session.refresh(instance)
    return instance


def vehicle(instance, regno, days_ago, state=2, division_id=None):
    activate(instance.id)
    division_id = division_id or db.session.scalars(select(Division.id)).first()
    item = PreparationItem(
        instance_id=instance.id, module="begcare", division_id=division_id, state=state,
        regno=regno, brand="Volvo", model="V60",
        state_changed_at=datetime.now(UTC) - timedelta(days=days_ago),
    )  # fmt: skip
    return add_item(item)


# --- configuration flags -----------------------------------------------------------------------


def test_leads_and_delivery_flow_switched_off_remove_their_pages(client):
    admin = make_user(make_instance(), roles=ADMIN, modules=["begcare"], all_divisions=True)
    token = sign_in(client, admin)
    assert client.get("/begcare/items/leads").status_code == 200
    assert client.get("/begcare/items/deliveryflow").status_code == 200
    save_configuration(client, token, "begcare__leads")  # delivery flow off
    assert client.get("/begcare/items/leads").status_code == 200
    assert client.get("/begcare/items/deliveryflow").status_code == 404
    assert "/begcare/items/deliveryflow" not in page_text(client.get("/begcare/items/incoming"))
    save_configuration(client, token, "begcare__soldFlow")  # leads off
    assert client.get("/begcare/items/leads").status_code == 404
    assert client.get("/begcare/items/deliveryflow").status_code == 200


def test_no_option_is_stored_that_nothing_reads(client):
    admin = make_user(make_instance(), roles=ADMIN, modules=["begcare"])
    instance = db.session.get(Instance, admin.active_instance_id)
    instance.options = {"begcare": {"pool": True, "flow": False}, "market": {"x": 1}}
    db.session.flush()
    token = sign_in(client, admin)
    page = page_text(client.get("/admin/general/configuration"))
    assert "Pool" not in page and "begcare__flow" not in page
    save_configuration(client, token, "begcare__leads")
    options = instance_of(admin).options
    assert "pool" not in options["begcare"] and "flow" not in options["begcare"]
    assert options["begcare"]["leads"] is True and options["market"] == {"x": 1}


def test_measure_to_delivered_counts_sold_vehicles_as_stock(client):
    admin = make_user(make_instance(), roles=ADMIN, modules=["begcare"], all_divisions=True)
    instance = db.session.get(Instance, admin.active_instance_id)
    vehicle(instance, "AAA111", 10)
    sold = vehicle(instance, "BBB222", 40)
    move_item(sold, 7, admin.id)
    db.session.flush()
    token = sign_in(client, admin)
    save_configuration(client, token, "begcare__leads", "begcare__soldFlow")
    page = page_text(client.get("/begcare/statistics"))
    assert "<dt>Vehicles in stock</dt><dd>1</dd>" in page  # the sold one is not stock
    FIGURES.clear()
    save_configuration(client, token, "begcare__leads", "begcare__soldFlow", "begcare__measureToDelivered")  # fmt: skip
    page = page_text(client.get("/begcare/statistics"))
    assert "<dt>Vehicles in stock</dt><dd>2</dd>" in page  # sold, not delivered: still stock
    assert "<dt>Average stock days</dt><dd>25</dd>" in page


# --- working days and holidays -----------------------------------------------------------------


def test_working_days_over_a_year_of_swedish_and_norwegian_holidays():
    # The demo's rows. 2026 has 261 weekdays. Sweden's holidays on weekdays: 10 (1 and 6
    # January, Good Friday, Easter Monday, 1 May, Ascension, Midsummer Eve, Christmas Eve and
    # Day, New Year's Eve); Norway's: 8 (1 January, Maundy Thursday, Good Friday, Easter Monday,
    # 1 May, Ascension, Whit Monday, Christmas Day; 17 May is a Sunday).
    se, no = 1, 2
    rows = [(d, se) for d, _name in HOLIDAYS["SE"]] + [(d, no) for d, _name in HOLIDAYS["NO"]]
    counter = WorkingDays(rows, {10: se, 20: no})
    new_year_eve = datetime(2025, 12, 31, 12, tzinfo=UTC)
    end = datetime(2026, 12, 31, 12, tzinfo=UTC)
    assert working_days(date(2025, 12, 31), date(2026, 12, 31), []) == 261
    assert counter(new_year_eve, end, 10) == 261 - 10
    assert counter(new_year_eve, end, 20) == 261 - 8
    # Easter week: Thursday to Tuesday is 1 working day in Norway, 2 in Sweden.
    thursday = datetime(2026, 4, 1, 9, tzinfo=UTC)
    tuesday = datetime(2026, 4, 7, 9, tzinfo=UTC)
    assert counter(thursday, tuesday, 20) == 1 and counter(thursday, tuesday, 10) == 2
    # A Friday change has one working day on Monday, none on the weekend.
    friday = datetime(2026, 3, 6, 16, tzinfo=UTC)
    assert counter(friday, friday + timedelta(days=2), 10) == 0
    assert counter(friday, friday + timedelta(days=3), 10) == 1


def test_days_in_state_count_working_days_without_the_countrys_holidays(client):
    admin = make_user(make_instance(), roles=ADMIN, modules=["begcare"], all_divisions=True)
    instance = db.session.get(Instance, admin.active_instance_id)
    item = vehicle(instance, "AAA111", 28)  # four weeks: 20 working days
    country_id = db.session.scalar(
        select(Region.country_id).join(Division).where(Division.id == item.division_id)
    )
    today = datetime.now(UTC).date()
    weekdays = [today - timedelta(days=n) for n in range(1, 28)]
    weekdays = [d for d in weekdays if d.weekday() < 5]
    other = Country(name="Elsewhere", code="XX", currency="EUR", locale="en_GB")
    db.session.add(other)
    db.session.flush()
    db.session.add_all(
        [
            Holiday(day=weekdays[0], name="Ours", country_id=country_id),
            Holiday(day=weekdays[1], name="Everyone's", country_id=None),
            Holiday(day=weekdays[2], name="Another country's", country_id=other.id),
        ]
    )
    db.session.flush()
    token = sign_in(client, admin)
    path = f"/begcare/items/incoming/{item.id}/stations-manage"
    assert "28 days in this state" in page_text(client.get(path))
    save_configuration(client, token, "begcare__leads", "begcare__soldFlow", "configuration__workingDays")  # fmt: skip
    assert "18 days in this state" in page_text(client.get(path))  # 20 less two holidays
    api = client.get(f"/api/preparation-items/{item.id}/list-extended").get_json()
    assert api["daysInState"] == 18
    page = page_text(client.get("/begcare/items/incoming"))
    assert ">18<" in page


# --- actions -----------------------------------------------------------------------------------


def test_an_action_is_checked_on_save_and_opens_the_vehicles_address(client):
    admin = make_user(make_instance(), roles=ADMIN, modules=["begcare"], all_divisions=True)
    instance = db.session.get(Instance, admin.active_instance_id)
    item = vehicle(instance, "AB 1/2", 3)
    other = make_instance("Other")
    activate(other.id)
    db.session.add(SettingRow(kind="action", name="Theirs", data={"label": "Not ours", "url": "https://them.test/{id}"}))  # fmt: skip
    db.session.flush()
    activate(instance.id)
    token = sign_in(client, admin)
    page = f"/begcare/items/incoming/{item.id}/stations-manage"
    assert "data-vehicle-action" not in page_text(client.get(page))
    form = {"csrf_token": token, "name": "Valuation", "x_label": "Value it", "active": "y"}
    for bad, message in (
        ("javascript:alert(1)//{regno}", "must start with http:// or https://"),
        ("https://x.test/{price}", "Unknown placeholder {price}"),
        ("https://{regno}.test/", "name out; placeholders may follow it"),
    ):
        response = client.post("/admin/general/actions/new", data={**form, "x_url": bad})
        assert response.status_code in (200, 422)
        assert message in page_text(response) and 'value="' in page_text(response)
        assert f'value="{bad}"' in page_text(response)  # the input is kept
    good = "https://valuation.test/car?regno={regno}&vin={vin}"
    assert (
        client.post("/admin/general/actions/new", data={**form, "x_url": good}).status_code == 302
    )
    html = page_text(client.get(page))
    assert (
        '<a class="btn btn-secondary" href="https://valuation.test/car?regno=AB%201%2F2&vin=" '
        'target="_blank" rel="noopener noreferrer" data-vehicle-action>Value it'
    ) in html
    assert "Not ours" not in html and "them.test" not in html  # another instance's action
