"""The buyer's watchlist and saved-search form on a 375 px phone (issue 16 part 6): filter the
market list, save the search, watch an advert from the list, and read the watchlist; nothing
is wider than the phone, every control is reached by the keyboard. Screenshots at 375 and
1280 px go to test-artifacts/. What the test adds is removed again."""

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import delete, select

from app.auth.models import User
from app.extensions import db
from app.market.models import MarketWatch, SavedSearch
from tests.browser.conftest import DESKTOP, MOBILE
from tests.browser.test_station import sign_in
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

NAME = "Phone search"


@pytest.fixture
def buyer_cleanup(live_server):
    """Remove the searches and watches the test adds (the demo's own stay)."""
    with live_server.app.app_context():
        buyer = db.session.scalars(select(User).where(User.email == "buyer@demo.test")).one()
        watched = set(
            db.session.scalars(
                select(MarketWatch.advert_id)
                .where(MarketWatch.user_id == buyer.id)
                .execution_options(all_instances=True)
            )
        )
        buyer_id = buyer.id
    yield
    with live_server.app.app_context():
        db.session.execute(
            delete(SavedSearch).where(SavedSearch.user_id == buyer_id, SavedSearch.name == NAME)
        )
        db.session.execute(
            delete(MarketWatch).where(
                MarketWatch.user_id == buyer_id, MarketWatch.advert_id.not_in(watched)
            )
        )
        db.session.commit()


def fits(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_watchlist_and_saved_search_form_on_a_phone(new_page, buyer_cleanup):
    page = new_page(viewport=MOBILE)
    sign_in(page, "buyer@demo.test")
    page.goto("/market/adverts/list")  # in the buyer's Norwegian: controls found by their ids
    # Filter by the first advert's brand, from the folded filters.
    first = page.locator("tbody tr").first
    brand = first.locator(".advert-title").inner_text().split(" ")[0]
    page.locator(".advert-filter-more > summary").click()
    page.locator("#brand").fill(brand)
    page.locator("#max_price").fill("900 000")
    page.locator(".advert-filter-more button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"brand="))
    fits(page, 375)
    page.screenshot(path=str(ARTIFACTS / "market-list-filters-375.png"), full_page=True)

    # Save it: the form comes filled in and fits the phone.
    page.locator(".advert-save-search a").click()
    expect(page.locator("#brand")).to_have_value(brand)
    expect(page.locator("#max_price")).to_have_value("900000")
    fits(page, 375)
    page.screenshot(path=str(ARTIFACTS / "market-saved-search-form-375.png"), full_page=True)
    page.locator("#name").fill("")
    page.locator(".saved-search-form button[type=submit]").click()
    expect(page.locator("#name-error")).to_be_visible()  # required, the input kept
    expect(page.locator("#brand")).to_have_value(brand)
    page.locator("#name").fill(NAME)
    page.locator("#name").press("Enter")
    expect(page).to_have_url(re.compile(r"/market/saved-searches$"))
    card = page.locator(".saved-search", has_text=NAME)
    expect(card).to_be_visible()
    expect(card.locator(".saved-search-criteria")).to_contain_text(brand)
    fits(page, 375)
    page.screenshot(path=str(ARTIFACTS / "market-saved-searches-375.png"), full_page=True)

    # Watch an advert from the list with the keyboard, then read the watchlist.
    page.goto("/market/adverts/list")
    button = page.locator('button.advert-watch[data-watched="false"]').first
    advert_id = button.get_attribute("data-watch")
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator(f'button[data-watch="{advert_id}"]')).to_have_attribute(
        "data-watched", "true"
    )
    page.goto("/market/adverts/watchlist")
    row = page.locator(f'tr[data-advert-id="{advert_id}"]')
    expect(row).to_be_visible()
    expect(row).to_contain_text("NOK")
    fits(page, 375)
    page.screenshot(path=str(ARTIFACTS / "market-watchlist-375.png"), full_page=True)
    # The advert's page says it is watched, and stops watching it from there.
    row.locator("a.advert-regno").click()
    watched = page.locator(f'button[data-watch="{advert_id}"]')
    expect(watched).to_have_attribute("data-watched", "true")
    fits(page, 375)
    page.screenshot(path=str(ARTIFACTS / "market-advert-watched-375.png"), full_page=True)
    watched.click()
    expect(page.locator(f'button[data-watch="{advert_id}"]')).to_have_attribute(
        "data-watched", "false"
    )
    page.goto("/market/adverts/watchlist")
    expect(page.locator(f'tr[data-advert-id="{advert_id}"]')).to_have_count(0)

    page.set_viewport_size(DESKTOP)
    page.reload()
    page.screenshot(path=str(ARTIFACTS / "market-watchlist-1280.png"), full_page=True)
    page.goto("/market/saved-searches/new?brand=Volvo&year_from=2018")
    page.screenshot(path=str(ARTIFACTS / "market-saved-search-form-1280.png"), full_page=True)
    page.goto("/market/adverts/list?year_from=2015")
    page.screenshot(path=str(ARTIFACTS / "market-list-filters-1280.png"), full_page=True)
