"""Forms say what is missing (issue 37, point 8): "Create analysis" (purchase) and "Publish" /
"Save as draft" (market advert) stay disabled while a field is needed, and the page names the
fields beside the buttons (each a link to its field) and, once a field is left, next to it."""

import pytest
from playwright.sync_api import expect

from tests.browser.test_station import sign_in

pytestmark = pytest.mark.browser


def needed(page):
    return page.locator("[data-guard-missing]")


def test_create_analysis_names_the_fields_it_needs(new_page, live_server, snap):
    page = new_page()
    sign_in(page, "seller@demo.test")
    page.goto("/purchase-analysis/create")
    create = page.get_by_role("button", name="Create analysis")
    expect(create).to_be_disabled()
    expect(needed(page)).to_contain_text("Still needed:")
    expect(create).to_have_attribute("aria-describedby", needed(page).get_attribute("id"))
    first = needed(page).get_by_role("link").first
    name = first.inner_text()
    first.click()  # the link takes the user to the field
    focused = page.evaluate("document.activeElement.id")
    assert focused and page.locator(f'label[for="{focused}"]').inner_text().startswith(name)
    page.keyboard.press("Tab")  # leaving the empty field says what it needs, next to it
    field_error = page.locator(f"#{focused}").locator("xpath=..").locator("[data-guard-error]")
    expect(field_error).to_have_text("This field is required.")
    snap(page, "form-needs-purchase")


def test_the_advert_form_names_what_publish_and_draft_need(new_page, live_server, snap):
    page = new_page()
    sign_in(page, "seller@demo.test")
    page.goto("/market/advert/add")
    publish = page.get_by_role("button", name="Publish")
    draft = page.get_by_role("button", name="Save as draft")
    if publish.is_disabled():
        expect(draft).to_be_disabled()
        expect(needed(page)).to_contain_text("Still needed:")
        names = needed(page).get_by_role("link").all_inner_texts()
        assert names and all(names)
        snap(page, "form-needs-advert")
    else:  # nothing is needed up front: then nothing is claimed to be
        expect(needed(page)).to_have_count(0)
