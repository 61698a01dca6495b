"""The public bid page in a real browser, on a phone (375 px): a bid, an allocation and status
changes through people's own links. Each test works on a new advert of its own, so the demo's
adverts stay as they are for other tests."""

import pytest
from flask_babel import force_locale
from flask_babel import gettext as _
from playwright.sync_api import expect
from sqlalchemy import select

from app.core.messages import message
from app.core.tenancy import activate
from app.extensions import db
from app.mail.models import EmailMessage
from app.market.models import Advert, AdvertBid
from tests.browser.conftest import DESKTOP, MOBILE
from tests.market._bid import link, make_advert, page_path

pytestmark = pytest.mark.browser


def text(live_server, msgid: str, **params) -> str:
    with live_server.app.test_request_context(), force_locale("en_GB"):
        return message(msgid) if not params else _(msgid, **params)


def new_advert(live_server, **kwargs) -> dict:
    """A new advert with bids and the paths of the buyer's bid link and the seller's links."""
    with live_server.app.app_context():
        ad = make_advert(**kwargs)
        paths = {
            "id": ad.id,
            "bid": page_path("bid", ad, link(ad, "buyer@demo.test", "bid")),
            "allocate": page_path("allocate", ad, link(ad, "seller@demo.test", "seller")),
            "change-status": page_path("change-status", ad, link(ad, "seller@demo.test", "seller")),
        }
        db.session.commit()
        activate(None)
        return paths


def advert_row(live_server, advert_id: int) -> Advert:
    with live_server.app.app_context():
        ad = db.session.scalar(
            select(Advert).where(Advert.id == advert_id).execution_options(all_instances=True)
        )
        db.session.expunge(ad)
        return ad


def bid_amounts(live_server, advert_id: int) -> list[int]:
    """The amounts of every bid stored on the advert."""
    with live_server.app.app_context():
        return db.session.scalars(
            select(AdvertBid.amount)
            .where(AdvertBid.advert_id == advert_id)
            .execution_options(all_instances=True)
        ).all()


def open_phone(new_page, path: str):
    page = new_page(viewport=MOBILE)
    page.goto(path)
    return page


def test_a_bid_from_a_phone(live_server, new_page, snap):
    paths = new_advert(live_server, image=True)
    page = open_phone(new_page, paths["bid"])
    form = page.locator("form.bid-form")
    expect(form).to_be_visible()
    expect(page.locator("[data-bid-loading]")).to_be_hidden()
    snap(page, "market-bid-form")

    amount = page.get_by_label("Your bid in NOK")
    # Highest bid 187 011 SEK (191 500 NOK) + 1 000 -> 188 011 SEK -> x 1.024 rounded up.
    expect(amount).to_have_value("192524")
    expect(page.locator(".bid-currencies tr.is-own")).to_contain_text("192,524")
    history = page.locator(".bid-history tbody tr")
    expect(history).to_have_count(2)
    expect(history.first).to_contain_text("Your company")
    expect(history.last).to_contain_text("Another bidder")
    expect(page.locator(".bid-history")).not_to_contain_text("Malmö")

    button = page.get_by_role("button", name="Place bid")
    amount.fill("150000")
    expect(button).to_be_disabled()
    expect(page.locator("#bid-hint")).to_have_class("field-error")
    amount.fill("193000")
    expect(button).to_be_enabled()
    button.click()

    success = page.locator(".bid-result .alert-success")
    expect(success).to_have_text(text(live_server, "BID_SENT"))
    # The data reloads: the next bid moves on and the new bid heads the history.
    expect(page.get_by_label("Your bid in NOK")).to_have_value("194024")
    expect(history).to_have_count(3)
    expect(history.first).to_contain_text("193,000 NOK")
    expect(page.locator(".bid-leading")).to_be_visible()
    snap(page, "market-bid-sent")
    assert sorted(bid_amounts(live_server, paths["id"])) == [185_000, 191_500, 193_000]


def test_a_refused_bid_shows_the_servers_message_in_red(live_server, new_page, snap):
    paths = new_advert(live_server)
    page = open_phone(new_page, paths["bid"])
    expect(page.locator("form.bid-form")).to_be_visible()
    # Another bidder outbids the page while it is open: the server refuses the stale amount.
    with live_server.app.app_context():
        ad = db.session.scalar(
            select(Advert).where(Advert.id == paths["id"]).execution_options(all_instances=True)
        )
        ad.highest_bid = 200_000
        db.session.commit()
    page.get_by_role("button", name="Place bid").click()
    danger = page.get_by_role("alert")
    expect(danger).to_have_text(
        text(
            live_server,
            "Your bid must be at least %(amount)s %(currency)s.",
            amount="205,824",
            currency="NOK",
        )
    )
    expect(page.get_by_label("Your bid in NOK")).to_have_attribute("min", "205824")
    snap(page, "market-bid-refused")


def test_an_allocation_from_a_phone(live_server, new_page, snap):
    paths = new_advert(live_server, image=True)
    page = open_phone(new_page, paths["allocate"])
    button = page.get_by_role("button", name="Allocate", exact=True)
    expect(button).to_be_disabled()
    snap(page, "market-allocate-form")
    page.get_by_role("radio", name="Fjordauto AS").check()
    price = page.get_by_label("Sales price in SEK")
    expect(price).to_have_value("187011")
    # The bidder's own currency shows its bid; the others the price times the rate, rounded up.
    amounts = page.locator(".bid-allocate-amounts")
    expect(amounts.locator("tr.is-own")).to_contain_text("191,500")
    expect(amounts.locator("tr", has_text="EUR")).to_contain_text("16,233")
    page.get_by_label("Notes to the buyer (optional)").fill("Collection from Solna.")
    expect(page.get_by_text("22 of 255 characters")).to_be_visible()
    snap(page, "market-allocate-chosen")
    expect(button).to_be_enabled()
    button.click()
    expect(page.locator(".bid-result .alert-success")).to_be_visible()
    expect(page.locator(".bid-action .alert-info")).to_contain_text("Fjordauto AS")
    snap(page, "market-allocate-done")
    ad = advert_row(live_server, paths["id"])
    assert (ad.status, ad.allocated_price, ad.allocated_notes) == (
        "allocated",
        187_011,
        "Collection from Solna.",
    )
    with live_server.app.app_context():
        to = db.session.scalars(
            select(EmailMessage.to_address).where(EmailMessage.kind == "market_allocated")
        ).all()
    assert {"buyer@demo.test", "seller@demo.test"} <= set(to)
    # The buyer's own link now says the vehicle is theirs, and takes no more bids.
    buyer = open_phone(new_page, paths["bid"])
    expect(buyer.locator(".bid-action .alert-success")).to_contain_text("187,011 SEK")
    expect(buyer.locator("form.bid-form")).to_have_count(0)
    snap(buyer, "market-bid-allocated-to-you")


def test_a_status_change_and_an_illegal_one(live_server, new_page, snap):
    paths = new_advert(live_server)
    page = open_phone(new_page, paths["change-status"])
    select_ = page.get_by_label("New status")
    button = page.get_by_role("button", name="Change status")
    expect(button).to_be_disabled()
    expect(page.locator("#status-hint")).to_contain_text("Closed, Withdrawn")
    snap(page, "market-status-form")

    select_.select_option("sold")
    button.click()
    expect(page.get_by_role("alert")).to_have_text("An advert cannot go from published to sold.")
    snap(page, "market-status-refused")
    assert advert_row(live_server, paths["id"]).status == "published"

    page.get_by_label("New status").select_option("closed")
    page.get_by_role("button", name="Change status").click()
    expect(page.locator(".bid-result .alert-success")).to_contain_text("Closed")
    expect(page.locator(".bid-status")).to_have_text("Closed")
    expect(page.get_by_label("New status").locator("option:checked")).to_have_text(
        "Choose a status"
    )
    snap(page, "market-status-done")
    assert advert_row(live_server, paths["id"]).status == "closed"


def test_a_wrong_link_says_so_on_a_phone(live_server, new_page, snap):
    paths = new_advert(live_server)
    page = new_page(viewport=MOBILE)
    response = page.goto(paths["bid"][:-4] + "AAAA")
    assert response.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text(
        text(live_server, "This link does not work")
    )
    expect(page.locator("script[src]")).to_have_count(0)
    snap(page, "market-bid-not-found")


def test_the_loading_state_stands_until_the_data_arrives(live_server, new_page, snap):
    paths = new_advert(live_server)
    page = new_page(viewport=MOBILE)
    held = []
    page.route("**/api/_public/market-bid/**", lambda route: held.append(route))
    page.goto(paths["bid"])
    page.wait_for_function("() => true")  # let the held request's event through
    loading = page.get_by_role("status").filter(has_text="Loading")
    expect(loading).to_be_visible()
    expect(loading).to_have_attribute("aria-busy", "true")
    expect(page.locator("form.bid-form")).to_have_count(0)
    snap(page, "market-bid-loading")
    assert held, "the page asked for no data"
    for route in held:
        route.continue_()
    expect(page.locator("form.bid-form")).to_be_visible()
    expect(loading).to_be_hidden()


@pytest.mark.parametrize("action", ["bid", "allocate"])
def test_on_a_wide_screen_the_bid_history_follows_the_vehicle_card(live_server, new_page, action):
    # The form's card beside them is taller than the vehicle card (no photo here); its height
    # must not push the history down and leave a gap under the vehicle card.
    paths = new_advert(live_server)
    page = new_page(viewport=DESKTOP)
    page.goto(paths[action])
    expect(page.locator("form.bid-form")).to_be_visible()
    advert = page.locator(".bid-advert").bounding_box()
    history = page.locator(".bid-history").bounding_box()
    form = page.locator(".bid-card.bid-action").bounding_box()
    assert form["height"] > advert["height"] + 100  # the case that left the gap
    assert history["x"] == advert["x"]  # under it, in the same column
    gap = history["y"] - (advert["y"] + advert["height"])
    assert 0 < gap <= 24, f"{gap:.0f} px between the vehicle card and the history"
