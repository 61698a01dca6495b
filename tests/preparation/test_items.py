"""Items: adding and editing a vehicle, regno and VIN checks, moves along the state buttons,
archiving, the extended details call, and isolation between instances and divisions."""

import re
from datetime import date

import pytest
from sqlalchemy import func, select

from app.core import roles as R
from app.core.audit import AuditLog
from app.core.models import Division
from app.extensions import db
from app.preparation import routes_items, salespeople
from app.preparation.items import regno_error, vin_error
from app.preparation.models import (
    ItemStateEvent,
    ItemStationTask,
    PreparationItem,
    StationPackage,
)
from app.preparation.services import state_counts
from app.shell.layout import COUNTS
from tests.helpers import page_text
from tests.preparation.manage_helpers import demo_item, foreign_item, in_seller_instance
from tests.shell.conftest import demo_user


@pytest.fixture(autouse=True)
def _fresh_counts_cache():
    """The shell caches counts per instance and counts_version; a rolled-back test leaves
    entries whose version the next test reaches again with other data."""
    yield
    COUNTS.clear()


def division_named(name: str) -> Division:
    in_seller_instance()
    return db.session.scalars(select(Division).where(Division.name == name)).one()


def package_named(name: str, module: str = "begcare") -> StationPackage:
    in_seller_instance()
    return db.session.scalars(
        select(StationPackage).where(StationPackage.name == name, StationPackage.module == module)
    ).one()


def vehicle_form(token: str, **changes) -> dict:
    data = {
        "csrf_token": token,
        "division_id": str(division_named("Nordbil Solna").id),
        "regno": "xyz 12a",
        "vin": "yv1zw25ub 1f123456",
        "brand": "Volvo",
        "model": "XC40",
        "model_series": "B4",
        "model_year": "2022",
        "fuel_type": "Petrol",
        "color": "Grey",
        "mileage": "42 300",
        "purchase_price": "189 000",
        "sales_price": "239 900,50",
        "package_id": str(package_named("Standard").id),
    }
    data.update(changes)
    return data


def item_by_regno(regno: str) -> PreparationItem | None:
    in_seller_instance()
    return db.session.scalars(
        select(PreparationItem)
        .where(PreparationItem.regno == regno)
        .execution_options(populate_existing=True)
    ).first()


def flashed(response) -> str:
    return page_text(response)


# --- regno and VIN rules ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("regno", "country", "ok"),
    [
        ("ABC123", "SE", True),
        ("ABC12A", "SE", True),
        ("AB12345", "SE", False),
        ("ABC1234", "SE", False),
        ("AB12345", "NO", True),
        ("ABC123", "NO", False),
        ("M-AB1234", "DE", True),
        ("A", "DE", False),
        ("AB*12", "FI", False),
    ],
)
def test_registration_numbers_follow_the_format_of_the_divisions_country(regno, country, ok, ctx):
    assert (regno_error(regno, country) is None) is ok


@pytest.mark.parametrize(
    ("vin", "ok"),
    [
        ("YV1ZW25UB1F123456", True),
        ("", True),  # optional
        ("YV1ZW25UB1F12345", False),  # 16 characters
        ("YV1ZW25UB1F1234567", False),  # 18
        ("YV1ZW25UI1F123456", False),  # I
        ("YV1ZW25UO1F123456", False),  # O
        ("YV1ZW25UQ1F123456", False),  # Q
    ],
)
def test_a_vin_has_17_characters_without_i_o_and_q(vin, ok, ctx):
    assert (vin_error(vin) is None) is ok


# --- adding a vehicle --------------------------------------------------------------------------


def test_the_add_form_offers_the_users_divisions_and_the_modules_packages(as_demo):
    client, _ = as_demo("seller")
    response = client.get("/begcare/manage/vehicle?action=add")
    assert response.status_code == 200
    text = page_text(response)
    for name in ("Nordbil Solna", "Nordbil Göteborg", "Standard", "Full reconditioning"):
        assert name in text
    assert "Fjordauto" not in text  # the other instance's divisions
    assert "New car delivery" not in text  # newcare's package
    for label in ("Registration number", "VIN", "Mileage", "Purchase price", "Station package"):
        assert re.search(rf'<label for="[a-z_]+"[^>]*>{label}</label>', text), label


def test_the_packages_read_in_the_readers_language_on_the_form_and_the_vehicle_page(as_demo):
    client, _ = as_demo("seller")
    form = page_text(client.get("/begcare/manage/vehicle?action=add&lang=sv-SE"))
    assert "Full rekond" in form and "Full reconditioning" not in form
    item = demo_item()
    package = db.session.get(StationPackage, item.package_id)
    german = package.name_texts["de-DE"]
    page = page_text(client.get(f"/begcare/{item.id}?lang=de-DE", follow_redirects=True))
    assert f"<dd>{german}</dd>" in page


def test_seller_adds_a_vehicle_as_incoming_with_its_station_tasks(as_demo):
    client, token = as_demo("seller")
    seller = demo_user("seller@demo.test")
    in_seller_instance()
    before = state_counts(None)["begcare"][2]
    response = client.post("/begcare/manage/vehicle?action=add", data=vehicle_form(token))
    assert response.status_code == 302
    item = item_by_regno("XYZ12A")
    assert item is not None, "regno is stored upper case without spaces"
    assert response.headers["Location"] == f"/begcare/items/incoming/{item.id}/stations-manage"
    assert (item.state, item.module, item.vin) == (2, "begcare", "YV1ZW25UB1F123456")
    assert (item.mileage, float(item.sales_price)) == (42300, 239900.5)
    tasks = db.session.scalars(
        select(ItemStationTask).where(
            ItemStationTask.item_id == item.id,
            # A Volvo at 42 300 km is also due for its service (test_service_due_act.py).
            ItemStationTask.checkup_task_id.is_(None),
        )
    ).all()
    assert len(tasks) == len(package_named("Standard").steps) == 4
    assert {t.status for t in tasks} == {"pending"}
    event = db.session.scalars(
        select(ItemStateEvent).where(ItemStateEvent.item_id == item.id)
    ).one()
    assert (event.to_state, event.user_id) == (2, seller.id)
    audit = db.session.scalars(
        select(AuditLog).where(AuditLog.action == "preparation.item.created")
    ).all()
    assert any(a.details["item_id"] == item.id and a.user_id == seller.id for a in audit)
    assert state_counts(None)["begcare"][2] == before + 1
    assert "XYZ12A" in page_text(client.get("/begcare/items/incoming?sort=days"))


def test_a_wrong_regno_is_refused_with_a_message_and_nothing_is_stored(as_demo):
    client, token = as_demo("seller")
    in_seller_instance()
    count = db.session.scalar(select(func.count()).select_from(PreparationItem))
    response = client.post(
        "/begcare/manage/vehicle?action=add", data=vehicle_form(token, regno="AB 12345")
    )
    assert response.status_code == 422
    text = page_text(response)
    assert "AB12345 is not a valid registration number here. Use the format ABC123, ABC12A." in text
    assert 'value="AB 12345"' in text  # what was typed stays
    assert 'value="Volvo"' in text
    assert db.session.scalar(select(func.count()).select_from(PreparationItem)) == count


def test_a_wrong_vin_and_missing_fields_are_refused_per_field(as_demo):
    client, token = as_demo("seller")
    response = client.post(
        "/begcare/manage/vehicle?action=add",
        data=vehicle_form(token, vin="YV1ZW25UO1F123456", brand="", mileage="many"),
    )
    assert response.status_code == 422
    text = page_text(response)
    assert "A VIN holds only letters and digits, never I, O or Q." in text
    assert re.search(r'id="brand-error"[^>]*data-message-key="FIELD_REQUIRED"', text)
    assert 'id="mileage-error"' in text
    assert item_by_regno("XYZ12A") is None


def test_the_model_year_may_be_up_to_two_years_ahead_of_today(as_demo, monkeypatch):
    client, token = as_demo("seller")

    class NextYear(date):
        @classmethod
        def today(cls):
            return date(date.today().year + 1, 1, 1)

    # A worker started last year still takes this year as the reference.
    monkeypatch.setattr(routes_items, "date", NextYear)
    too_late = str(date.today().year + 4)
    response = client.post(
        "/begcare/manage/vehicle?action=add", data=vehicle_form(token, model_year=too_late)
    )
    assert response.status_code == 422
    assert 'id="model_year-error"' in page_text(response)
    latest = str(date.today().year + 3)
    response = client.post(
        "/begcare/manage/vehicle?action=add", data=vehicle_form(token, model_year=latest)
    )
    assert response.status_code == 302
    assert item_by_regno("XYZ12A").model_year == int(latest)


def test_a_regno_or_vin_already_in_the_instance_is_a_clear_message(as_demo):
    client, token = as_demo("seller")
    existing = demo_item(6)
    response = client.post(
        "/begcare/manage/vehicle?action=add",
        data=vehicle_form(token, regno=existing.regno, vin=existing.vin),
    )
    assert response.status_code == 422
    text = page_text(response)
    assert (
        f"{existing.regno} is already registered on another vehicle: {existing.full_model_name}"
        in text
    )
    assert f"{existing.vin} is already registered on another vehicle" in text


def test_the_same_regno_in_another_instance_is_no_duplicate(as_demo):
    client, token = as_demo("seller")
    other = foreign_item()
    # The other instance's regno is Norwegian; use a Swedish-looking one of the same letters.
    db.session.execute(
        PreparationItem.__table__.update()
        .where(PreparationItem.__table__.c.id == other.id)
        .values(regno="QQQ111", vin=None)
    )
    response = client.post(
        "/begcare/manage/vehicle?action=add", data=vehicle_form(token, regno="QQQ111", vin="")
    )
    assert response.status_code == 302
    assert item_by_regno("QQQ111") is not None


def test_archived_vehicles_do_not_block_their_regno(as_demo):
    client, token = as_demo("seller")
    archived = demo_item(9)
    response = client.post(
        "/begcare/manage/vehicle?action=add",
        data=vehicle_form(token, regno=archived.regno, vin=""),
    )
    assert response.status_code == 302


def test_adding_needs_the_add_vehicle_role_of_the_module(as_demo):
    client, _ = as_demo("divadmin")  # no add-vehicle role
    assert client.get("/begcare/manage/vehicle?action=add").status_code == 403
    client, token = as_demo("seller")
    seller = demo_user("seller@demo.test")
    seller.roles = [r for r in seller.roles if r != R.add_vehicle("newcare")]
    db.session.flush()
    assert client.get("/newcare/manage/vehicle?action=add").status_code == 403
    assert client.get("/begcare/manage/vehicle?action=add").status_code == 200


def test_a_division_outside_the_users_rights_cannot_be_chosen(as_demo):
    client, token = as_demo("station")
    station = demo_user("station@demo.test")
    station.roles = [*station.roles, R.add_vehicle("begcare")]
    db.session.flush()
    other = division_named("Nordbil Göteborg")
    response = client.post(
        "/begcare/manage/vehicle?action=add",
        data=vehicle_form(token, division_id=str(other.id)),
    )
    assert response.status_code == 422
    assert item_by_regno("XYZ12A") is None
    foreign = db.session.scalars(
        select(Division)
        .where(Division.slug == "fjordauto-bergen")
        .execution_options(all_instances=True)
    ).one()
    client, token = as_demo("seller")
    response = client.post(
        "/begcare/manage/vehicle?action=add",
        data=vehicle_form(token, division_id=str(foreign.id)),
    )
    assert response.status_code == 422
    assert item_by_regno("XYZ12A") is None


# --- editing ---------------------------------------------------------------------------------


def test_editing_saves_changes_audits_them_and_moves_the_counters(as_demo):
    client, token = as_demo("seller")
    item = demo_item(6)
    goteborg = division_named("Nordbil Göteborg")
    target = goteborg if item.division_id != goteborg.id else division_named("Nordbil Solna")
    counts_before = state_counts([target.id])["begcare"][6]
    page = client.get(f"/begcare/manage/vehicle?action=edit&id={item.id}")
    assert page.status_code == 200
    assert f'value="{item.regno}"' in page_text(page)
    form = vehicle_form(
        token, division_id=str(target.id), regno=item.regno, vin=item.vin or "",
        brand=item.brand, model=item.model, mileage="99 999", package_id="",
    )  # fmt: skip
    response = client.post(f"/begcare/manage/vehicle?action=edit&id={item.id}", data=form)
    assert response.status_code == 302
    assert response.headers["Location"] == f"/begcare/items/showroom/{item.id}/stations-manage"
    edited = item_by_regno(item.regno)
    assert (edited.mileage, edited.division_id, edited.state) == (99999, target.id, 6)
    assert state_counts([target.id])["begcare"][6] == counts_before + 1
    audit = db.session.scalars(
        select(AuditLog).where(AuditLog.action == "preparation.item.edited")
    ).all()
    changes = next(a.details["changes"] for a in audit if a.details["item_id"] == item.id)
    assert changes["mileage"][1] == 99999
    assert changes["division_id"][1] == target.id


def test_editing_another_instances_or_divisions_item_is_not_found(as_demo):
    client, _ = as_demo("seller")
    other = foreign_item()
    assert client.get(f"/begcare/manage/vehicle?action=edit&id={other.id}").status_code == 404
    assert client.get("/begcare/manage/vehicle?action=edit&id=abc").status_code == 404
    client, _ = as_demo("station")
    station = demo_user("station@demo.test")
    station.roles = [*station.roles, R.add_vehicle("begcare")]
    db.session.flush()
    elsewhere = demo_item(6, division="Nordbil Göteborg")
    assert client.get(f"/begcare/manage/vehicle?action=edit&id={elsewhere.id}").status_code == 404
    mine = demo_item(6, division="Nordbil Solna")
    assert client.get(f"/begcare/manage/vehicle?action=edit&id={mine.id}").status_code == 200


# --- moving through the state buttons -----------------------------------------------------------


def move(client, token, item, to_state, next_url="/begcare/items/list", **extra):
    return client.post(
        f"/{item.module}/items/{item.id}/move",
        data={"csrf_token": token, "to_state": str(to_state), "next": next_url} | extra,
    )


def sale_seller(item) -> int:
    """One of the salespeople the sale of `item` offers (the demo gives every division some)."""
    in_seller_instance()
    return salespeople.offered(db.session.get(PreparationItem, item.id))[0].id


def test_a_move_along_a_state_button_is_recorded_with_who_and_when(as_demo):
    client, token = as_demo("seller")
    seller = demo_user("seller@demo.test")
    item = demo_item(2)
    response = move(client, token, item, 3, "/begcare/items/incoming")
    assert response.status_code == 302
    assert response.headers["Location"] == "/begcare/items/incoming"
    assert "moved to Awaiting" in page_text(client.get("/begcare/items/incoming"))
    moved = item_by_regno(item.regno)
    assert moved.state == 3
    last = db.session.scalars(
        select(ItemStateEvent)
        .where(ItemStateEvent.item_id == item.id)
        .order_by(ItemStateEvent.id.desc())
    ).first()
    assert (last.from_state, last.to_state, last.user_id) == (2, 3, seller.id)


def test_a_move_without_a_state_button_is_refused_with_a_message(as_demo):
    client, token = as_demo("seller")
    item = demo_item(2)
    for to_state in (6, 2, 99):
        response = move(client, token, item, to_state, "/begcare/items/incoming")
        assert response.status_code == 302
        assert item_by_regno(item.regno).state == 2
    text = page_text(client.get("/begcare/items/incoming"))
    assert "A vehicle in Incoming cannot be moved to Showroom." in text
    # Not a whole number at all: the strict integer rule answers 422 (tests/core).
    assert move(client, token, item, "x", "/begcare/items/incoming").status_code == 422


def test_a_button_pressed_on_a_page_older_than_the_last_move_is_refused(as_demo):
    client, token = as_demo("seller")
    item = demo_item(2)
    assert move(client, token, item, 3, from_state="2").status_code == 302
    assert item_by_regno(item.regno).state == 3
    # Another person's page still showed it Incoming: its buttons do not move it on.
    move(client, token, item, 4, "/begcare/items/incoming", from_state="2")
    assert item_by_regno(item.regno).state == 3
    text = page_text(client.get("/begcare/items/incoming"))
    assert f"{item.regno} has been moved to Awaiting by someone else in the meantime." in text


def test_archiving_is_the_move_to_archived(as_demo):
    client, token = as_demo("seller")
    item = demo_item(3)
    assert move(client, token, item, 9).status_code == 302
    assert item_by_regno(item.regno).state == 9


def test_moving_another_instances_or_divisions_item_is_not_found(as_demo):
    client, token = as_demo("seller")
    other = foreign_item()
    assert move(client, token, other, 9).status_code == 404
    client, token = as_demo("station")
    elsewhere = demo_item(2, division="Nordbil Göteborg")
    assert move(client, token, elsewhere, 3).status_code == 404
    assert item_by_regno(elsewhere.regno).state == 2


def test_the_move_needs_the_form_token(as_demo):
    client, _ = as_demo("seller")
    item = demo_item(2)
    response = client.post(f"/begcare/items/{item.id}/move", data={"to_state": "3"})
    assert response.status_code == 400
    assert item_by_regno(item.regno).state == 2


def test_the_state_buttons_macro_renders_one_form_per_transition(as_demo, demo_app):
    from flask import render_template_string

    from app.preparation.items import buttons_for

    item = demo_item(4)
    with demo_app.test_request_context("/begcare/items/list"):
        buttons = buttons_for([item])[item.id]
        html = render_template_string(
            '{% from "preparation/_state_buttons.html" import state_buttons %}'
            "{{ state_buttons(item, buttons) }}",
            item=item,
            buttons=buttons,
        )
    assert sorted(b.to_state for b in buttons) == [5, 6]
    assert html.count("<form ") == 2
    assert html.count(f'action="/begcare/items/{item.id}/move"') == 2
    assert 'name="to_state" value="6"' in html and "Move to showroom" in html
    assert html.count('name="from_state" value="4"') == 2  # the state the page shows


# --- the whole way, as the "done when" says -------------------------------------------


def test_seller_adds_a_vehicle_and_takes_it_to_showroom_and_sold(as_demo):
    client, token = as_demo("seller")
    response = client.post("/begcare/manage/vehicle?action=add", data=vehicle_form(token))
    item = item_by_regno("XYZ12A")
    assert response.status_code == 302
    for to_state, segment in ((3, "awaiting"), (4, "list"), (6, "showroom"), (7, "sold")):
        extra = {"salesperson_id": sale_seller(item)} if to_state == 7 else {}
        assert move(client, token, item, to_state, **extra).status_code == 302
        listed = page_text(client.get(f"/begcare/items/{segment}?sort=days"))
        assert "XYZ12A" in listed, segment
    assert item_by_regno("XYZ12A").state == 7
    home = client.get("/begcare").get_data(as_text=True)
    sold = re.search(
        r'data-menu-key="begcare\.items\.sold".*?class="nav-count"[^>]*>(\d+)<', home, re.S
    )
    assert int(sold.group(1)) == state_counts(None)["begcare"][7]
    found = page_text(client.get("/begcare/overview?searchphrase=xyz12", follow_redirects=True))
    assert "XYZ12A" in found and "Sold, not delivered" in found
    opened = client.get("/begcare/overview?searchphrase=Volvo+XC40", follow_redirects=True)
    assert "XYZ12A" in page_text(opened)


# --- the extended details call ------------------------------------------------------------------


def test_list_extended_gives_the_items_details_and_tasks(as_demo):
    client, _ = as_demo("seller")
    item = demo_item(4)
    response = client.get(f"/api/preparation-items/{item.id}/list-extended")
    assert response.status_code == 200
    body = response.get_json()
    assert body["regno"] == item.regno
    assert body["fullModelName"] == item.full_model_name
    assert (body["state"], body["stateSegment"]) == (4, "list")
    assert body["division"]["id"] == item.division_id
    assert len(body["stations"]) == len(
        db.session.scalars(select(ItemStationTask).where(ItemStationTask.item_id == item.id)).all()
    )
    assert {"station", "status", "targetMinutes"} <= set(body["stations"][0])
    assert isinstance(body["daysInState"], int) and isinstance(body["warning"], bool)


def test_list_extended_of_another_instance_or_division_is_not_found(as_demo):
    client, _ = as_demo("seller")
    other = foreign_item()
    response = client.get(f"/api/preparation-items/{other.id}/list-extended")
    assert response.status_code == 404
    assert response.get_json()["message"]
    client, _ = as_demo("station")
    elsewhere = demo_item(4, division="Nordbil Göteborg")
    assert client.get(f"/api/preparation-items/{elsewhere.id}/list-extended").status_code == 404
    assert client.get("/api/preparation-items/99999999/list-extended").status_code == 404


def test_optional_fields_are_not_required_and_numbers_take_spaces(as_demo):
    client, _ = as_demo("seller")
    html = client.get("/begcare/manage/vehicle?action=add").get_data(as_text=True)
    assert re.search(r'<input[^>]*id="regno"[^>]*required', html)
    for name in ("vin", "model_series", "mileage", "sales_price"):
        tag = re.search(rf'<input[^>]*id="{name}"[^>]*>', html).group(0)
        assert "required" not in tag, name
    assert 'type="number"' not in html  # "12 500" must be typeable
    assert re.search(r'<option selected value="\d+">Standard</option>', html)


@pytest.mark.parametrize("value", ["NaN", "sNaN", "Infinity", "-1", "1e12", "12,5,0"])
def test_nonsense_numbers_are_refused_with_a_message(as_demo, value):
    client, token = as_demo("seller")
    response = client.post(
        "/begcare/manage/vehicle?action=add",
        data=vehicle_form(token, purchase_price=value, mileage=value),
    )
    assert response.status_code == 422
    text = page_text(response)
    assert 'id="purchase_price-error"' in text and 'id="mileage-error"' in text
    assert item_by_regno("XYZ12A") is None


def test_two_saves_at_once_cannot_both_register_a_regno(as_demo, monkeypatch):
    """The check runs first; when another vehicle is saved between check and insert, the
    database refuses the second one and the user gets the same clear message."""
    client, token = as_demo("seller")
    existing = demo_item(6)
    import app.preparation.items as items

    before = db.session.scalar(select(func.count()).select_from(PreparationItem))
    # The other save lands between the check and the insert: here, the check sees nothing.
    monkeypatch.setattr(items, "validate", lambda data, *a, **k: data)
    response = client.post(
        "/begcare/manage/vehicle?action=add", data=vehicle_form(token, regno=existing.regno, vin="")
    )
    assert response.status_code == 422
    assert f"{existing.regno} is already registered on another vehicle" in page_text(response)
    assert db.session.scalar(select(func.count()).select_from(PreparationItem)) == before


def test_an_archived_vehicle_cannot_come_back_while_its_regno_is_in_work(as_demo):
    from app.preparation.items import MoveRefused, move_by_button
    from app.preparation.models import StateButton

    client, _ = as_demo("seller")
    seller = demo_user("seller@demo.test")
    archived = demo_item(9)
    live = demo_item(6)
    db.session.execute(
        PreparationItem.__table__.update()
        .where(PreparationItem.__table__.c.id == archived.id)
        .values(regno=live.regno, vin=None)
    )
    db.session.add(
        StateButton(
            instance_id=archived.instance_id, module=archived.module, from_state=9, to_state=2,
            title="Back to incoming",
        )
    )  # fmt: skip
    db.session.flush()
    db.session.refresh(archived)
    with pytest.raises(MoveRefused, match="already registered on another vehicle"):
        move_by_button(archived, 2, seller)
