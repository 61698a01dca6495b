"""Add wizards (issue 30): the add-vehicle form is built from the module's active wizard (steps,
fields, required, defaults), edited as rows on {module}/add-wizards and previewed there."""

import re

import pytest
from sqlalchemy import select

from app.core.i18n import LOCALES
from app.core.settings import SettingRow
from app.extensions import db
from app.preparation import wizards
from app.preparation.demo import WIZARD_STEPS
from tests.helpers import page_text
from tests.preparation.manage_helpers import in_seller_instance
from tests.preparation.test_items import division_named, item_by_regno, vehicle_form

URL = "/admin/begcare/add-wizards"
ADD = "/begcare/manage/vehicle?action=add"
KEYS = [c.key for c in wizards.CATALOGUE]


def wizard_form(token: str, steps: list[dict], placed: dict, **extra) -> dict:
    """The editor's form: `steps` [{locale: title}], `placed` {key: (step, required, default)};
    every other field not shown (the ALWAYS ones in step 1)."""
    data = {"csrf_token": token, "name": "Quick intake", "description": "", "division_id": "",
            "active": "y", **extra}  # fmt: skip
    for n, titles in enumerate([*steps, {}]):
        for tag in LOCALES:
            data[f"steps-{n}-title_{tag.replace('-', '_')}"] = titles.get(tag, "")
    for n, key in enumerate(KEYS):
        step, required, default = placed.get(key, (1 if key in wizards.ALWAYS else 0, False, ""))
        data[f"fields-{n}-step"] = str(step)
        data[f"fields-{n}-order"] = ""
        if required:
            data[f"fields-{n}-required"] = "y"
        data[f"fields-{n}-default"] = default
    return data


def saved_wizard() -> SettingRow | None:
    in_seller_instance()
    return db.session.scalars(select(SettingRow).where(SettingRow.kind == "begcare.wizard")).first()


@pytest.fixture
def two_step_wizard(as_demo):
    """An admin's wizard: step 1 the vehicle, step 2 "Condition" with the mileage required and
    the colour starting as Black."""
    client, token = as_demo("admin")
    steps = [{"en-GB": "Vehicle", "sv-SE": "Fordon"}, {"en-GB": "Condition", "sv-SE": "Skick"}]
    placed = {"mileage": (2, True, ""), "color": (2, False, "Black")}
    response = client.post(f"{URL}/new", data=wizard_form(token, steps, placed))
    assert response.status_code == 302, page_text(response)
    return saved_wizard()


def test_a_new_wizard_starts_as_the_fixed_form(as_demo):
    client, _ = as_demo("admin")
    page = page_text(client.get(f"{URL}/new"))
    assert 'value="Vehicle"' in page and 'value="Where it is"' in page
    vin_row = re.search(r'name="fields-2-step"[^>]*>(.*?)</select>', page, re.S).group(1)
    assert re.search(r'<option selected value="1">', vin_row)  # the VIN in step 1
    assert "always on the form" in page


def test_a_saved_wizard_opens_with_each_field_in_its_step(as_demo):
    client, _ = as_demo("admin")
    in_seller_instance()
    demo = db.session.scalars(select(SettingRow).where(SettingRow.kind == "newcare.wizard")).one()
    page = page_text(client.get(f"/admin/newcare/add-wizards/{demo.id}/edit"))
    for key, step in (("vin", 1), ("sales_price", 2), ("key_location_id", 3), ("fuel_type", 0)):
        row = re.search(rf'name="fields-{KEYS.index(key)}-step"[^>]*>(.*?)</select>', page, re.S)
        assert f'<option selected value="{step}">' in row.group(1), key
    assert 'value="Das Fahrzeug"' in page and 'value="Waar het staat"' in page


def test_the_add_form_follows_the_wizard_and_refuses_without_its_required_field(
    two_step_wizard, as_demo
):
    client, token = as_demo("seller")
    page = page_text(client.get(ADD))
    assert "Step 1 of 2:</span> Vehicle" in page and "Step 2 of 2:</span> Condition" in page
    assert page.index("Condition") < page.index('name="mileage"')
    assert 'name="purchase_price"' not in page  # not on the wizard
    assert re.search(r'name="color"[^>]*value="Black"', page)  # its default
    sent = vehicle_form(token, regno="WIZ 101", mileage="")
    response = client.post(ADD, data=sent)
    assert response.status_code == 422
    page = page_text(response)
    assert "Mileage is required." in page
    assert 'value="WIZ 101"' in page  # what was typed is kept
    assert item_by_regno("WIZ101") is None
    response = client.post(ADD, data=vehicle_form(token, regno="WIZ 101", mileage="12 000"))
    assert response.status_code == 302
    assert item_by_regno("WIZ101").mileage == 12000


def test_a_step_title_falls_back_to_english(two_step_wizard, as_demo):
    client, _ = as_demo("seller")
    assert "Skick" in page_text(client.get(ADD + "&lang=sv-SE"))
    assert "Condition" in page_text(client.get(ADD + "&lang=de-DE"))


def test_the_fields_a_vehicle_needs_cannot_be_taken_off(as_demo):
    client, token = as_demo("admin")
    data = wizard_form(token, [{"en-GB": "Vehicle"}], {"regno": (0, False, "")})
    response = client.post(f"{URL}/new", data=data)
    assert response.status_code == 422 and saved_wizard() is None
    # A stored wizard without them (written before this rule) still gets them, required.
    wizard = wizards.from_data(
        "Old", {"steps": [{"title": {"en-GB": "A"}, "fields": [{"key": "vin"}]}]}
    )
    assert [f.key for f in wizard.steps[0].fields] == ["vin", *wizards.ALWAYS]
    assert all(wizard.field(k).required for k in wizards.ALWAYS)


def test_refusals_name_the_step_or_the_default_and_keep_the_input(as_demo):
    client, token = as_demo("admin")
    data = wizard_form(token, [{"en-GB": "Vehicle"}, {}], {"mileage": (2, False, "many")})
    response = client.post(f"{URL}/new", data=data)
    assert response.status_code == 422
    page = page_text(response)
    assert "Give the step a title in at least one language." in page
    assert "Enter a whole number." in page and 'value="many"' in page
    assert saved_wizard() is None


def test_the_admin_previews_the_form_the_wizard_makes(two_step_wizard, as_demo):
    client, _ = as_demo("admin")
    assert f"{two_step_wizard.id}/preview" in page_text(client.get(URL))
    page = page_text(client.get(f"{URL}/{two_step_wizard.id}/preview"))
    assert "Step 2 of 2:</span> Condition" in page
    assert re.search(r'<input disabled[^>]*name="mileage"', page)
    assert 'Mileage</label> <span class="muted">(required)' in page


def test_a_divisions_wizard_comes_before_the_instances(two_step_wizard, as_demo):
    in_seller_instance()
    solna = division_named("Nordbil Solna")
    db.session.add(SettingRow(kind="begcare.wizard", name="Solna", division_id=solna.id, data={
        "steps": [{"title": {"en-GB": "Solna intake"}, "fields": [{"key": "regno"}]}]}))  # fmt: skip
    db.session.flush()
    assert wizards.active_wizard("begcare", solna.id).name == "Solna"
    other = division_named("Nordbil Göteborg")
    assert wizards.active_wizard("begcare", other.id).name == "Quick intake"
    two_step_wizard.active = False
    db.session.flush()
    assert wizards.active_wizard("begcare", other.id) is wizards.DEFAULT
    assert wizards.active_wizard("newcare", solna.id).name == "Nybilsintag"  # the demo's


@pytest.mark.parametrize("tag", list(LOCALES))
def test_the_demos_new_vehicle_wizard_speaks_every_language(as_demo, tag):
    client, _ = as_demo("seller")
    page = page_text(client.get(f"/newcare/manage/vehicle?action=add&lang={tag}"))
    titles = [titles[tag] for titles, _keys in WIZARD_STEPS]
    assert all(title in page for title in titles)
    assert 'name="purchase_price"' not in page
    assert re.search(r'name="mileage"[^>]*value="0"', page)
