"""Add wizards in a real browser (1280 px): an admin adds a step to a new wizard with the
mileage in it, required; a seller's add-vehicle page then shows the step, refuses the vehicle
without the mileage (keeping what was typed) and takes it with. The wizard and the vehicle are
removed afterwards."""

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import delete, select

from app.auth.models import User
from app.core.settings import SettingRow
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import ItemStateEvent, ItemStationTask, PreparationItem
from app.preparation.services import _bump, bump_counts_version
from tests.browser.test_station import sign_in

pytestmark = pytest.mark.browser
REGNO = "WZD123"


@pytest.fixture
def wizard_removed(live_server):
    """The begcare wizards and the vehicle the test adds, removed after it (counters kept)."""
    yield
    with live_server.app.app_context():
        seller = db.session.scalars(select(User).where(User.email == "seller@demo.test")).one()
        activate(seller.active_instance_id)
        db.session.execute(delete(SettingRow).where(SettingRow.kind == "begcare.wizard"))
        item = db.session.scalars(
            select(PreparationItem).where(PreparationItem.regno == REGNO)
        ).first()
        if item is not None:
            db.session.execute(delete(ItemStationTask).where(ItemStationTask.item_id == item.id))
            db.session.execute(delete(ItemStateEvent).where(ItemStateEvent.item_id == item.id))
            _bump(item.instance_id, item.module, item.division_id, item.state, -1)
            bump_counts_version(item.instance_id)
            db.session.delete(item)
        db.session.commit()


@pytest.mark.parametrize("viewport", ["1280"], indirect=True)
def test_an_admin_adds_a_wizard_step_and_the_add_form_follows_it(
    page, new_page, browser, live_server, viewport, snap, wizard_removed
):
    sign_in(page, "admin@demo.test")
    page.goto("/admin/begcare/add-wizards")
    page.get_by_role("main").get_by_role("link", name=re.compile(r"^Add\b")).first.click()
    page.get_by_label("Name", exact=True).fill("Intake with condition")
    # The new wizard starts as the fixed form (three steps); the empty fourth row adds one.
    page.get_by_label("Step 4: English").fill("Condition")
    page.get_by_label("Mileage: Step").select_option(label="Step 4")
    page.get_by_label("Mileage: Required").check()
    snap(page, "browser-wizard-editor", widths=("1280",))
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("cell", name="Intake with condition")).to_be_visible()
    page.get_by_role("link", name=re.compile("^Preview")).first.click()
    expect(page.get_by_text("Step 4 of 4: Condition")).to_be_visible()
    expect(page.get_by_label("Mileage")).to_be_disabled()

    # Without JavaScript the server refuses the vehicle without the mileage, keeping the input.
    context = browser.new_context(
        base_url=live_server.url, locale="en-GB", viewport=viewport, java_script_enabled=False
    )
    plain = context.new_page()
    sign_in(plain, "seller@demo.test")
    plain.goto("/begcare/manage/vehicle?action=add")
    condition = plain.locator("fieldset", has_text="Step 4 of 4: Condition")
    expect(condition.get_by_label("Mileage")).to_be_visible()
    fill_vehicle(plain)
    plain.get_by_role("button", name="Add vehicle").click()
    expect(plain.get_by_text("Mileage is required.")).to_be_visible()
    expect(plain.get_by_label("Registration number")).to_have_value(REGNO)  # kept
    context.close()

    # With it, the button waits for the mileage, naming it; then the vehicle is added.
    seller = new_page(viewport=viewport)
    sign_in(seller, "seller@demo.test")
    seller.goto("/begcare/manage/vehicle?action=add")
    fill_vehicle(seller)
    add = seller.get_by_role("button", name="Add vehicle")
    expect(add).to_be_disabled()
    expect(seller.locator("[data-guard-missing]")).to_contain_text("Mileage")
    seller.get_by_label("Mileage").fill("12 000")
    expect(add).to_be_enabled()
    snap(seller, "browser-wizard-add-vehicle", widths=("1280",))
    add.click()
    expect(seller.get_by_text(f"Volvo V90 {REGNO} was added.")).to_be_visible()


def fill_vehicle(page) -> None:
    page.get_by_label("Registration number").fill(REGNO)
    page.get_by_label("Brand").fill("Volvo")
    page.get_by_label("Model", exact=True).fill("V90")
