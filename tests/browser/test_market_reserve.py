"""The reserve's journey on a phone (issue 16's "done when"): the demo advert that ended under its
reserve is countered by the seller on its advert page and accepted by the bidder through its
link; each side's mail of the journey is readable at its preview link.

Screenshots go to test-artifacts/market-reserve-*.png (375 and 1280 px)."""

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.demo import DEMO_PASSWORD, demo_links
from app.extensions import db
from app.mail.models import EmailMessage
from app.market.models import Advert
from tests.browser.conftest import MOBILE
from tests.browser.test_auth_flows import sign_in

pytestmark = pytest.mark.browser


def _state(live_server):
    with live_server.app.app_context():
        links = demo_links()
        advert = db.session.scalar(
            select(Advert).where(Advert.regno == "KLM482").execution_options(all_instances=True)
        )
        saved = {
            name: getattr(advert, name)
            for name in ("status", "provisional_group_id", "counter_price", "decision_due_at")
        }
        return links, advert.id, saved


def _restore(live_server, advert_id: int, saved: dict) -> None:
    """Put the demo's provisional sale back, so the test passes in any order and again."""
    with live_server.app.app_context():
        advert = db.session.get(Advert, advert_id, execution_options={"all_instances": True})
        for name, value in saved.items():
            setattr(advert, name, value)
        advert.allocated_group_id = advert.allocated_price = advert.allocated_at = None
        db.session.commit()


def _mail(live_server, kind: str, to: str) -> EmailMessage:
    with live_server.app.app_context():
        return db.session.scalars(
            select(EmailMessage)
            .where(EmailMessage.kind == kind, EmailMessage.to_address == to)
            .order_by(EmailMessage.id.desc())
        ).first()


def test_the_seller_counters_and_the_bidder_accepts_through_the_link(live_server, new_page, snap):
    links, advert_id, saved = _state(live_server)
    assert links["reserve_advert"] and links["reserve_bid"]
    try:
        # 1. The seller opens the provisional sale on a phone and counters.
        seller = new_page(viewport=MOBILE)
        sign_in(seller, "seller@demo.test", DEMO_PASSWORD)
        seller.goto(links["reserve_advert"])
        section = seller.locator(".advert-provisional")
        expect(section.get_by_role("heading", name="Provisionally sold")).to_be_visible()
        expect(section).to_contain_text("Fjordauto AS")
        snap(seller, "market-reserve-1-seller-decides")
        seller.get_by_label("Counteroffer in SEK").fill("170 000")
        seller.get_by_role("button", name="Send counteroffer").click()
        expect(seller.locator(".alert-success")).to_contain_text("Your counteroffer is sent")
        expect(section).to_contain_text("170,000")
        assert seller.evaluate("document.documentElement.scrollWidth") <= 375
        snap(seller, "market-reserve-2-seller-countered")

        # 2. The countered mail is readable at its preview link and leads to the bid page.
        mail = _mail(live_server, "market_countered", "buyer@demo.test")
        assert mail is not None
        bidder = new_page(viewport=MOBILE)
        bidder.goto(f"/email-preview/{mail.public_id}")
        expect(bidder.locator(".mail-body")).to_contain_text("170")
        snap(bidder, "market-reserve-3-countered-mail")
        # Ole reads Norwegian: the one click to his own page is the mail's first link.
        expect(bidder.locator(".mail-body a").first).to_have_text("Åpne budsiden din")
        href = bidder.locator(".mail-body a").first.get_attribute("href")
        assert href.endswith(links["reserve_bid"])
        unsubscribe = bidder.locator(".mail-body a").last.get_attribute("href")
        assert "/market-bid-unsubscribe/" in unsubscribe and unsubscribe.endswith("?lang=nb-NO")

        # 3. The bidder answers through its own link: accept.
        bidder.goto(links["reserve_bid"])
        counter = bidder.locator(".bid-counter")
        expect(counter.get_by_role("heading", name="The seller's counteroffer")).to_be_visible()
        expect(counter).to_contain_text("170")
        expect(counter).to_contain_text("NOK")  # the amount in the bidder's own currency too
        assert bidder.evaluate("document.documentElement.scrollWidth") <= 375
        snap(bidder, "market-reserve-4-bidder-counter")
        counter.get_by_role("button", name="Accept and buy").click()
        expect(bidder.locator(".bid-result .alert-success")).to_contain_text("You have bought")
        expect(bidder.locator("[data-advert-status]")).to_have_text("Allocated")
        snap(bidder, "market-reserve-5-bidder-accepted")

        # 4. Both sides' allocation mails are stored and readable.
        for to in ("buyer@demo.test", "seller@demo.test"):
            mail = _mail(live_server, "market_allocated", to)
            assert mail is not None and "170" in mail.body_text
            bidder.goto(f"/email-preview/{mail.public_id}")
            expect(bidder.locator(".mail-body")).to_contain_text("170")
        seller.goto(links["reserve_advert"])
        expect(seller.locator(".advert-summary")).to_contain_text("Allocated")

        # 5. The mail's unsubscribe link: no sign-in, one button, and the way back.
        bidder.goto(unsubscribe.split("?")[0] + "?lang=en-GB")
        bidder.get_by_role("button", name="Stop e-mails about this advert").click()
        expect(bidder.locator(".alert-success")).to_have_text(
            "You will get no more e-mails about this advert."
        )
        snap(bidder, "market-reserve-6-unsubscribed")
        seller.goto(links["reserve_advert"])
        expect(seller.locator(".advert-links")).to_contain_text("No bidder e-mails")
        bidder.get_by_role("button", name="Send me e-mails again").click()
        expect(bidder.locator(".alert-success")).to_contain_text("again")
    finally:
        _restore(live_server, advert_id, saved)
