"""Specification fields act (issue 30): a property set up on admin/global/properties is a field
of every vehicle's page (in its category, with its unit, of its type), its values are checked,
kept, printed and exported; another company's vehicle's values are never shown or taken."""

import re
from datetime import date, timedelta

from sqlalchemy import select

from app.core.settings import GlobalSettingRow
from app.extensions import db
from app.preparation.models import VehiclePropertyValue
from tests.helpers import page_text
from tests.preparation.manage_helpers import (
    alerts,
    demo_item,
    foreign_item,
    fresh_shell_caches,  # noqa: F401 - autouse
)


def setting(kind: str, name: str) -> GlobalSettingRow:
    return db.session.scalars(
        select(GlobalSettingRow).where(GlobalSettingRow.kind == kind, GlobalSettingRow.name == name)
    ).one()


def stored(item) -> dict[int, str]:
    db.session.expire_all()
    rows = db.session.execute(
        select(VehiclePropertyValue.property_id, VehiclePropertyValue.value)
        .where(VehiclePropertyValue.item_id == item.id)
        .execution_options(all_instances=True)
    )
    return dict(rows.all())


def vehicle_page(client, item) -> str:
    return page_text(client.get(f"/{item.module}/{item.id}?lang=en-GB", follow_redirects=True))


def section(page: str) -> str:
    return page[page.index('id="specification"') : page.index('id="service"')]


def new_property(client, token, **fields) -> None:
    form = {"csrf_token": token, "name": "Batterikapacitet", "active": "y", **fields}
    response = client.post("/admin/global/properties/new", data=form)
    assert response.status_code == 302, page_text(response)


def test_a_property_added_is_a_field_of_the_vehicle_page_in_its_category(as_demo):
    client, token = as_demo("admin")
    engine = setting("category", "Motor")
    new_property(
        client, token, x_category=str(engine.id), x_type="number", x_unit="kWh",
        **{"x_name_en-GB": "Battery capacity"},
    )  # fmt: skip
    client, token = as_demo("seller")
    item = demo_item(4)
    page = section(vehicle_page(client, item))
    engine_part = page[
        page.index("<legend>Engine</legend>") : page.index(
            "</fieldset>", page.index("<legend>Engine</legend>")
        )
    ]
    assert (
        "Battery capacity" in engine_part
        and '<span class="spec-unit" aria-hidden="true">kWh</span>' in engine_part
    )
    prop = setting("property", "Batterikapacitet")
    assert f'id="prop-{prop.id}"' in engine_part and 'inputmode="decimal"' in engine_part
    # In Swedish the plain name (no Swedish name given), in its Swedish category.
    sv = section(page_text(client.get(f"/begcare/{item.id}?lang=sv-SE", follow_redirects=True)))
    assert "<legend>Motor</legend>" in sv and "Batterikapacitet" in sv
    # Switched off on the admin screen: gone from the page.
    prop.active = False
    db.session.flush()
    assert f'id="prop-{prop.id}"' not in vehicle_page(client, item)


def test_a_property_s_category_and_type_are_choices(as_demo):
    client, token = as_demo("admin")
    response = client.post(
        "/admin/global/properties/new",
        data={
            "csrf_token": token,
            "name": "Odd",
            "active": "y",
            "x_category": "999999",
            "x_type": "number",
        },
    )
    assert response.status_code == 422 and "Not a valid choice" in page_text(response)
    assert not db.session.scalars(
        select(GlobalSettingRow).where(GlobalSettingRow.name == "Odd")
    ).first()
    page = page_text(client.get("/admin/global/properties/new"))
    motor = setting("category", "Motor")
    assert f'<option value="{motor.id}">Engine</option>' in page  # the category, by its name
    assert '<option value="yesno">Yes or no</option>' in page


def test_values_are_checked_kept_and_saved_whole(as_demo):
    client, token = as_demo("seller")
    item = demo_item(4)
    power, towbar, tyres = (setting("property", n) for n in ("Effekt", "Dragkrok", "Däck"))
    before = stored(item)
    path = f"/begcare/items/{item.id}/specification?lang=en-GB"
    bad = {"csrf_token": token, f"prop-{power.id}": "lots", f"prop-{tyres.id}": 'Nokian 17"'}
    response = client.post(path, data=bad)
    page = page_text(response)
    assert response.status_code == 422
    assert "Enter a number, such as 150 or 7,5." in page and 'value="lots"' in page
    assert 'value="Nokian 17""' in page  # what was typed is kept
    assert stored(item) == before  # nothing half-saved
    response = client.post(
        path, data={**bad, f"prop-{towbar.id}": "maybe", f"prop-{power.id}": "1"}
    )
    assert response.status_code == 422 and "Choose yes or no." in page_text(response)
    good = {
        "csrf_token": token,
        f"prop-{power.id}": "1 150,5",
        f"prop-{towbar.id}": "yes",
        f"prop-{tyres.id}": "",
    }
    response = client.post(path, data=good)
    assert response.status_code == 302 and response.headers["Location"].endswith("#specification")
    values = stored(item)
    assert values[power.id] == "1150.5" and values[towbar.id] == "yes" and tyres.id not in values
    page = vehicle_page(client, item)
    assert ("success", f"The specification of {item.regno} is saved.") in alerts(page)
    assert f'id="prop-{power.id}" name="prop-{power.id}" value="1150.5"' in page


def test_the_print_views_and_the_export_carry_the_values(as_demo):
    client, token = as_demo("seller")
    item = demo_item(4)
    power, towbar = setting("property", "Effekt"), setting("property", "Dragkrok")
    client.post(
        f"/begcare/items/{item.id}/specification",
        data={"csrf_token": token, f"prop-{power.id}": "187", f"prop-{towbar.id}": "no"},
    )
    sheet = page_text(client.get(f"/begcare/items/{item.id}/print?lang=en-GB"))
    assert f'<div data-property="{power.id}"><dt>Power</dt><dd>187 kW</dd></div>' in sheet
    assert f'<div data-property="{towbar.id}"><dt>Tow bar</dt><dd>No</dd></div>' in sheet
    assert item.regno in sheet
    page = vehicle_page(client, item)
    assert f'href="/begcare/items/{item.id}/print"' in page
    client, token = as_demo("admin")
    day = item.created_at.date()
    response = client.get(
        "/admin/general/reports",
        query_string={
            "report": "vehicles",
            "start": str(day - timedelta(days=1)),
            "end": str(min(day + timedelta(days=1), date.today())),
            "format": "csv",
            "lang": "en-GB",
        },
    )
    assert response.status_code == 200
    lines = response.get_data(as_text=True).lstrip("\ufeff").splitlines()
    header = lines[0].split(";")
    assert "Power (kW)" in header and "Tow bar" in header
    row = next(line.split(";") for line in lines[1:] if line.split(";")[0] == str(item.id))
    assert row[header.index("Power (kW)")] == "187" and row[header.index("Tow bar")] == "No"


def test_another_company_s_vehicle_values_are_never_shown_or_taken(as_demo):
    client, token = as_demo("seller")
    theirs = foreign_item()
    power = setting("property", "Effekt")
    db.session.add(
        VehiclePropertyValue(
            instance_id=theirs.instance_id, item_id=theirs.id, property_id=power.id, value="999777"
        )
    )
    db.session.flush()
    before = stored(theirs)
    for path in (
        f"/begcare/items/{theirs.id}/specification",
        f"/begcare/items/{theirs.id}/last-service",
    ):
        assert (
            client.post(path, data={"csrf_token": token, f"prop-{power.id}": "1"}).status_code
            == 404
        )
    assert client.get(f"/begcare/items/{theirs.id}/print").status_code == 404
    assert stored(theirs) == before
    # Posting a value for our vehicle never writes into theirs, and their value is not read.
    item = demo_item(4)
    client.post(
        f"/begcare/items/{item.id}/specification",
        data={"csrf_token": token, f"prop-{power.id}": "5"},
    )
    assert stored(theirs) == before
    assert "999777" not in vehicle_page(client, item)
    assert not re.search("999[  ,.]?777", page_text(client.get(f"/begcare/items/{item.id}/print")))


def test_who_may_not_edit_the_vehicle_sees_the_values_read_only(as_demo):
    client, token = as_demo("station")
    item = demo_item(4)
    page = page_text(client.get(f"/begcare/{item.id}?lang=en-GB", follow_redirects=True))
    if 'id="specification"' not in page:  # the station user does not see this vehicle at all
        return
    assert "Save specification" not in page
    power = setting("property", "Effekt")
    response = client.post(
        f"/begcare/items/{item.id}/specification",
        data={"csrf_token": token, f"prop-{power.id}": "1"},
    )
    assert response.status_code == 403


def test_the_quick_test_print_of_a_vehicle_carries_its_specification(as_demo):
    from tests.quicktest.conftest import finished_tests

    client, token = as_demo("seller")
    test = next(t for t in finished_tests() if t.item_id)
    power = setting("property", "Effekt")
    db.session.execute(
        VehiclePropertyValue.__table__.delete().where(
            VehiclePropertyValue.item_id == test.item_id,
            VehiclePropertyValue.property_id == power.id,
        )
    )
    db.session.add(
        VehiclePropertyValue(
            instance_id=test.instance_id, item_id=test.item_id, property_id=power.id, value="321"
        )
    )
    db.session.flush()
    text = page_text(client.get(f"/pdf-preview/quick-test/{test.id}?lang=en-GB"))
    assert "Specification" in text
    assert f'<div data-property="{power.id}"><dt>Power</dt><dd>321 kW</dd></div>' in text
