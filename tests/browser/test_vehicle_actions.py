"""The demo's vehicle action on the vehicle page, at desktop and phone width."""

import re

import pytest
from playwright.sync_api import expect

from app.demo import DEMO_PASSWORD

pytestmark = pytest.mark.browser


def test_the_vehicle_page_offers_the_demo_action_in_a_new_tab(page, snap):
    page.goto("/login")
    page.get_by_label("E-mail").fill("seller@demo.test")
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).not_to_have_url(re.compile(r"/login"))
    page.goto("/begcare/items/incoming")
    page.locator(".item-table tbody a").first.click()
    action = page.locator("[data-vehicle-action]")
    expect(action).to_have_count(1)
    expect(action).to_have_attribute("target", "_blank")
    expect(action).to_have_attribute("rel", "noopener noreferrer")
    expect(action).to_have_attribute(
        "href", re.compile(r"^https://valuation\.example\.test/estimate\?regno=[A-Z0-9]+&vin=")
    )
    snap(page, "vehicle-actions")
