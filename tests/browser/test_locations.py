"""Locations in a real browser: a station user moves a vehicle's keys from the phone in one tap
(375 px), a seller parks a vehicle from its page and sees the move in its history (1280 px).
The vehicles' places are put back."""

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.auth.models import User
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import PreparationItem
from tests.browser.test_station import sign_in, waiting_vehicle  # noqa: F401 - a fixture

pytestmark = pytest.mark.browser


@pytest.fixture
def places_kept(live_server):
    """Every vehicle's places as they were, put back after the test."""
    with live_server.app.app_context():
        seller = db.session.scalars(select(User).where(User.email == "seller@demo.test")).one()
        activate(seller.active_instance_id)
        saved = db.session.execute(
            select(
                PreparationItem.id,
                PreparationItem.parking_location_id,
                PreparationItem.key_location_id,
            )
        ).all()
    yield
    with live_server.app.app_context():
        activate(seller.active_instance_id)
        for item_id, parking, key in saved:
            item = db.session.get(PreparationItem, item_id)
            item.parking_location_id, item.key_location_id = parking, key
        db.session.commit()


@pytest.mark.parametrize("viewport", ["375"], indirect=True)
def test_a_station_user_moves_the_keys_from_the_phone(
    page,
    snap,
    waiting_vehicle,  # noqa: F811
    places_kept,
):
    regno, item_id, _wash_id = waiting_vehicle
    sign_in(page, "station@demo.test")
    page.goto("/begcare/station/vehicles")
    card = page.locator(f'.station-card[data-item-id="{item_id}"]')
    keys = card.locator('[data-location-kind="key"]')
    expect(keys).to_be_visible()
    target = keys.locator('button[aria-pressed="false"]').first
    name = target.inner_text()
    target.click()  # one tap
    expect(page).to_have_url(re.compile(r"/begcare/station/vehicles$"))
    expect(page.get_by_text(f"The keys of {regno} are in {name}.")).to_be_visible()
    card = page.locator(f'.station-card[data-item-id="{item_id}"]')
    pressed = card.locator('[data-location-kind="key"] button[aria-pressed="true"]')
    expect(pressed).to_have_text(name)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375  # no sideways scroll
    card.scroll_into_view_if_needed()
    snap(page, "browser-station-keys", widths=("375",))


@pytest.mark.parametrize("viewport", ["1280"], indirect=True)
def test_a_seller_parks_a_vehicle_from_its_page_and_sees_the_move(page, snap, places_kept):
    sign_in(page, "seller@demo.test")
    page.goto("/begcare/items/showroom")
    page.locator(".item-table tbody a").first.click()
    parking = page.locator('form[data-location-kind="parking"]')
    choice = parking.get_by_label("Parking location")
    current = choice.input_value()
    options = [o for o in choice.locator("option").all() if o.get_attribute("value")]
    target = next(o for o in options if o.get_attribute("value") != current)
    name = target.inner_text()
    value = target.get_attribute("value")
    choice.select_option(value)
    parking.get_by_role("button", name="Move").click()
    expect(page).to_have_url(re.compile(r"#locations$"))
    expect(page.get_by_label("Parking location")).to_have_value(value)
    history = page.locator('#history tr[data-kind="location"]').first
    expect(history).to_contain_text(name)
    expect(history).to_contain_text("Sara Lindqvist")
    snap(page, "browser-vehicle-locations", widths=("1280",))
    page.goto("/begcare/overview?division=all")
    filter_choice = page.get_by_label("Parking location")
    filter_choice.select_option(value)
    page.get_by_role("button", name="Show vehicles").click()
    expect(page.locator(".item-table tbody tr").first).to_contain_text(name)
    snap(page, "browser-overview-location-filter", widths=("1280",))


@pytest.fixture
def tags_kept(live_server):
    """The demo's tags and tagged vehicles as they were, put back after the test."""
    from app.core.settings import Tag
    from app.preparation.models import ItemTag

    with live_server.app.app_context():
        before = set(db.session.scalars(select(Tag.id).execution_options(all_instances=True)))
        pairs = set(
            db.session.execute(
                select(ItemTag.item_id, ItemTag.tag_id).execution_options(all_instances=True)
            ).all()
        )
    yield
    with live_server.app.app_context():
        for row in db.session.scalars(select(ItemTag).execution_options(all_instances=True)):
            if (row.item_id, row.tag_id) not in pairs:
                db.session.delete(row)
        for row in db.session.scalars(select(Tag).execution_options(all_instances=True)):
            if row.id not in before:
                db.session.delete(row)
        db.session.commit()


@pytest.mark.parametrize("viewport", ["1280"], indirect=True)
def test_an_admin_adds_a_tag_and_sees_it_on_a_vehicle_and_in_the_overview(page, snap, tags_kept):
    sign_in(page, "admin@demo.test")
    page.goto("/admin/general/tags")
    # The screen's own add link, in the page's main part (the menu holds "New vehicles" too).
    page.get_by_role("main").get_by_role("link", name=re.compile(r"^Add\b")).first.click()
    page.get_by_label("Name").fill("Vinterdäck")
    page.get_by_label("Colour").fill("#f1c40f")
    page.get_by_role("button", name=re.compile("Save|Add")).first.click()
    expect(page.get_by_text("Vinterdäck").first).to_be_visible()
    page.goto("/begcare/items/showroom")
    page.locator(".item-table tbody a").first.click()
    tags_form = page.locator("#tags")
    tags_form.get_by_label("Vinterdäck").check()
    tags_form.get_by_role("button", name="Save tags").click()
    expect(page).to_have_url(re.compile(r"#tags$"))
    expect(page.locator("#tags .tag-labels")).to_contain_text("Vinterdäck")
    page.goto("/begcare/overview?division=all")
    page.get_by_label("Tag", exact=True).select_option(label="Vinterdäck")
    page.get_by_role("button", name="Show vehicles").click()
    label = page.locator(".item-table tbody .tag-label", has_text="Vinterdäck")
    expect(label.first).to_be_visible()
    expect(label.first).to_have_class(re.compile("tag-on-light"))  # dark text on yellow
    snap(page, "browser-overview-tag", widths=("1280",))
