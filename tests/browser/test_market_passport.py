"""The vehicle passport in a real browser (issue 33): the seller changes what bidders see, and a
bidder's phone (375 px, Norwegian) shows the chosen parts only. The demo advert's passport is
put back afterwards."""

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.core.tenancy import activate
from app.extensions import db
from app.market.demo import bid_link
from app.market.models import Advert
from tests.browser.conftest import MOBILE
from tests.browser.test_auth_flows import sign_in

pytestmark = pytest.mark.browser


@pytest.fixture
def demo_passport(live_server):
    """(advert id, the buyer's bid path) of the demo advert with a passport; its choices are
    put back after the test."""
    with live_server.app.app_context():
        path = bid_link()
        advert = db.session.scalars(
            select(Advert)
            .where(Advert.hash == path.split("/")[4])
            .execution_options(all_instances=True)
        ).one()
        advert_id, saved = advert.id, dict(advert.passport)
    yield advert_id, path
    with live_server.app.app_context():
        advert = db.session.scalars(
            select(Advert).where(Advert.id == advert_id).execution_options(all_instances=True)
        ).one()
        activate(advert.instance_id)
        advert.passport = saved
        db.session.commit()
        activate(None)


def test_the_bidder_sees_only_what_the_seller_chose_on_a_phone_in_norwegian(
    new_page, snap, demo_passport
):
    advert_id, bid_path = demo_passport
    seller = new_page()
    sign_in(seller, "seller@demo.test")
    seller.goto(f"/market/adverts/{advert_id}/passport")
    # The seller keeps the quick test, takes the work off and leaves the costs unticked.
    seller.locator('input[name="test"]').first.check()
    seller.locator('input[name="work"]').uncheck()
    expect(seller.locator('input[name="costs"]')).not_to_be_checked()
    # The tyres are picked in the demo; the seller adds the tow bar beside them.
    expect(seller.get_by_label("Tyres", exact=False)).to_be_checked()
    seller.get_by_label("Tow bar", exact=False).check()
    seller.locator('button[name="action"][value="preview"]').click()
    preview = seller.locator("[data-passport-preview] [data-passport]")
    expect(preview.locator("[data-passport-tests] li")).to_have_count(1)
    expect(preview.locator("[data-passport-work]")).to_have_count(0)
    seller.locator('button[name="action"][value="save"]').click()
    # Saved: the page comes back from its redirect without the preview's "not saved yet".
    expect(seller.locator("#passport-preview-heading .muted")).to_have_count(0)
    expect(seller.locator('input[name="work"]')).not_to_be_checked()
    test_title = preview.locator("[data-passport-tests] a").inner_text()

    bidder = new_page(locale="nb-NO", viewport=MOBILE)
    bidder.goto(bid_path)
    card = bidder.locator("[data-passport]")
    expect(card.get_by_role("heading", name="Kjøretøypass")).to_be_visible()
    expect(card.get_by_role("link", name=test_title)).to_be_visible()
    expect(card.get_by_text("Hurtigtester")).to_be_visible()
    expect(card.get_by_text("Utført arbeid")).to_have_count(0)  # not chosen
    expect(card.get_by_text("Klargjøringskostnad")).to_have_count(0)  # costs not ticked
    facts = card.locator("[data-passport-specification]")
    expect(facts.get_by_text("Dekk", exact=True)).to_be_visible()
    expect(facts.get_by_text("Hengerfeste", exact=True)).to_be_visible()
    expect(facts.locator("dt")).to_have_count(2)  # nothing the seller did not pick
    assert bidder.evaluate("document.documentElement.scrollWidth") <= 375  # no sideways scroll
    card.scroll_into_view_if_needed()
    snap(bidder, "browser-market-passport-nb", widths=("375",))
