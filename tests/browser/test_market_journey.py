"""The market's whole journey at phone width, as the issue's "done when" says: an invited company
registers, its user bids from a phone, the seller allocates the advert to that bid, and both
sides see the result in their lists.

Screenshots go to test-artifacts/market-journey-*.png."""

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.core.models import utcnow
from app.demo import DEMO_PASSWORD
from app.extensions import db
from app.market.invites import create_invite
from app.market.models import Advert, InstanceGroup
from tests.browser.conftest import MOBILE
from tests.browser.test_auth_flows import sign_in
from tests.browser.test_market_bid import confirm

pytestmark = pytest.mark.browser

COMPANY = "Sørlandet Bil AS"
EMAIL = "kari@sorlandetbil.test"
PASSWORD = "Sorland-bil-9"


def _invite_and_advert(live_server) -> tuple[str, str]:
    """A fresh invite from Nordbil, and a published advert of Nordbil still open for bids where
    no bidder holds a maximum (another test's maxima would outbid the new company at once)."""
    with live_server.app.test_request_context():
        nordbil = db.session.scalars(
            select(InstanceGroup)
            .where(InstanceGroup.name == "Nordbil AB")
            .execution_options(all_instances=True)
        ).one()
        invite = create_invite(nordbil, company_name=COMPANY, email=EMAIL, language="en-GB")
        advert = db.session.scalars(
            select(Advert)
            .where(
                Advert.status == "published", Advert.ends_at > utcnow(), Advert.maxima_count == 0
            )
            .order_by(Advert.id.desc())
            .execution_options(all_instances=True)
        ).first()
        assert advert is not None, "the demo has a published advert"
        db.session.commit()
        return invite.hash, advert.regno


def test_register_bid_allocate_and_both_sides_see_it(live_server, new_page, snap):
    invite_hash, regno = _invite_and_advert(live_server)

    # 1. The invited company registers from a phone and lands on the market, signed in.
    buyer = new_page(viewport=MOBILE)
    buyer.goto(f"/market-invite/{invite_hash}")
    buyer.get_by_role("button", name="Accept terms").click()
    for label, value in (
        ("Company ID", "912345678"),
        ("Contact name", "Kari Nordmann"),
        ("Contact phone", "+47 38 00 00 00"),
        ("Invoice reference", "Kari Nordmann"),
        ("First name", "Kari"),
        ("Last name", "Nordmann"),
        ("Password", PASSWORD),
        ("Repeat password", PASSWORD),
    ):
        buyer.get_by_label(label, exact=True).fill(value)
    buyer.get_by_label("Country").select_option("NO")
    buyer.locator("#invite-submit").click()
    buyer.wait_for_url("**/market")

    # 2. Its user finds the advert among its new partner's and bids the next bid.
    buyer.goto("/market/adverts/list")
    row = buyer.locator("tr[data-advert-id]", has_text=regno)
    expect(row).to_be_visible()
    snap(buyer, "market-journey-1-adverts")
    row.locator("[data-bid-link]").click()
    expect(buyer.locator("form.bid-form")).to_be_visible()
    buyer.get_by_role("button", name="Place bid").click()
    confirm(buyer)
    expect(buyer.locator(".bid-result .alert-success")).to_be_visible()
    expect(buyer.locator(".bid-leading")).to_be_visible()
    snap(buyer, "market-journey-2-bid")

    # 3. The seller allocates the advert to that bid, from a phone as well.
    seller = new_page(viewport=MOBILE)
    sign_in(seller, "seller@demo.test", DEMO_PASSWORD)
    seller.goto("/market/adverts/my-adverts")
    seller.locator("tr[data-advert-id]", has_text=regno).locator("[data-allocate-link]").click()
    seller.get_by_role("radio", name=COMPANY).check()
    expect(seller.get_by_label("Sales price in SEK")).not_to_have_value("")
    seller.get_by_role("button", name="Allocate", exact=True).click()
    confirm(seller)
    expect(seller.locator(".bid-result .alert-success")).to_be_visible()
    expect(seller.locator(".bid-action .alert-info")).to_contain_text(COMPANY)
    snap(seller, "market-journey-3-allocated")

    # 4. Both sides see the result in their lists.
    seller.goto("/market/adverts/my-assigned")
    expect(seller.locator("tr[data-advert-id]", has_text=regno)).to_contain_text(COMPANY)
    snap(seller, "market-journey-4-seller-assigned")
    buyer.goto("/market/adverts/my-allocations")
    expect(buyer.locator("tr[data-advert-id]", has_text=regno)).to_contain_text("Nordbil AB")
    snap(buyer, "market-journey-5-buyer-allocations")
