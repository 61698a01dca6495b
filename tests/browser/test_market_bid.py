"""The public bid page in a real browser, on a phone (375 px): a bid, an allocation and status
changes through people's own links. Each test works on a new advert of its own, so the demo's
adverts stay as they are for other tests."""

import re

import pytest
from flask_babel import force_locale
from flask_babel import gettext as _
from playwright.sync_api import expect
from sqlalchemy import select

from app.core.messages import message
from app.core.tenancy import activate
from app.demo import DEMO_PASSWORD
from app.extensions import db
from app.mail.models import EmailMessage
from app.market.models import Advert, AdvertBid
from tests.browser.conftest import DESKTOP, MOBILE
from tests.browser.test_auth_flows import sign_in
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


def confirm(page) -> None:
    """Say yes to the confirmation a binding bid, maximum or allocation asks first."""
    page.get_by_role("dialog").locator(".btn-primary").click()
    expect(page.get_by_role("dialog")).to_have_count(0)


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
    # The history's times are the bidder's, with their zone named.
    expect(history.first.locator("td").first).to_have_text(
        re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d \(.+\)$")
    )

    button = page.get_by_role("button", name="Place bid")
    amount.fill("150000")
    expect(button).to_be_disabled()
    expect(page.locator("#bid-hint")).to_have_class("field-error")
    amount.fill("193000")
    expect(button).to_be_enabled()
    button.click()
    confirm(page)

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
    confirm(page)
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
    # One click is not enough: the seller confirms the buyer, the price in both currencies and
    # that the allocation binds; until then nothing is allocated.
    dialog = page.get_by_role("dialog", name="Allocate the vehicle?")
    expect(dialog).to_contain_text(
        "You allocate the vehicle to Fjordauto AS for 187,011 SEK, which is 191,500 NOK in the "
        "buyer's currency."
    )
    expect(dialog).to_contain_text("The allocation binds")
    snap(page, "market-allocate-confirm")
    assert advert_row(live_server, paths["id"]).status == "published"
    dialog.get_by_role("button", name="Allocate for 187,011 SEK").click()
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


def test_a_norwegian_buyer_bids_in_kroner_on_a_swedish_advert_after_confirming(
    live_server, new_page, snap
):
    """Issue 37: on a phone in Norwegian, the highest bid reads in kroner first (the advert's
    kronor beside it), and a binding bid goes in only after a confirmation that states the
    amount in both currencies and that it binds; cancelling places no bid."""
    paths = new_advert(live_server)
    page = new_page(locale="nb-NO", viewport=MOBILE)
    page.goto(paths["bid"])
    expect(page.locator("html")).to_have_attribute("lang", "nb-NO")
    highest = page.locator('[data-price="highest"]')
    # 187 011 SEK x 1.024 = 191 499.26 NOK, rounded up.
    expect(highest.locator(".nowrap")).to_have_text(re.compile(r"^191\s500 NOK$"))
    expect(highest.locator(".bid-price-secondary")).to_have_text(
        nb(live_server, "%(amount)s %(currency)s in the advert's currency", "187\u00a0011", "SEK")
    )
    page.get_by_role("button", name=nb(live_server, "Place bid")).click()
    dialog = page.get_by_role("dialog", name=nb(live_server, "Place a binding bid?"))
    # 192 524 NOK / 1.024 = 188 011.7 SEK, rounded down as the bid is booked.
    expect(dialog).to_contain_text(
        nb(
            live_server,
            "Your company bids %(amount)s %(currency)s, which is %(advertAmount)s "
            "%(advertCurrency)s in the advert's currency.",
            "192\u00a0524",
            "NOK",
            advertAmount="188\u00a0011",
            advertCurrency="SEK",
        )
    )
    binds = (
        "The bid binds your company and cannot be withdrawn: if it is the highest when bidding "
        "ends, the seller can sell the vehicle to your company for this amount."
    )
    expect(dialog).to_contain_text(nb(live_server, binds))
    snap(page, "market-bid-confirm-nb")
    dialog.get_by_role("button", name=nb(live_server, "Cancel")).click()
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page.locator(".bid-result .alert")).to_have_count(0)
    assert sorted(bid_amounts(live_server, paths["id"])) == [185_000, 191_500]

    page.get_by_role("button", name=nb(live_server, "Place bid")).click()
    dialog.get_by_role(
        "button",
        name=nb(live_server, "Place binding bid of %(amount)s %(currency)s", "192\u00a0524", "NOK"),
    ).click()
    expect(page.locator(".bid-result .alert-success")).to_be_visible()
    assert sorted(bid_amounts(live_server, paths["id"])) == [185_000, 191_500, 192_524]
    snap(page, "market-bid-confirmed-nb")


def nb(live_server, msgid: str, amount: str | None = None, currency: str | None = None, **more):
    """A message in Norwegian as the page writes it (amounts as given, with their spaces)."""
    with live_server.app.test_request_context(), force_locale("nb_NO"):
        text = _(msgid)
    params = {"amount": amount, "currency": currency, **more}
    return text % {k: v for k, v in params.items() if v is not None} if amount else text


def test_send_bid_links_says_who_gets_them_and_asks_first(live_server, new_page, snap):
    """Issue 37: "Send bid links" names the people and their companies and sends only when the
    seller says so; Cancel goes back with nothing sent."""
    paths = new_advert(live_server)
    page = new_page(viewport=MOBILE)
    sign_in(page, "seller@demo.test", DEMO_PASSWORD)
    page.goto(f"/market/adverts/{paths['id']}")
    sent_before = len(bid_mails(live_server))
    page.locator("[data-send-bid-links]").click()
    expect(page.get_by_role("heading", name="2 people get a bid link by e-mail")).to_be_visible()
    rows = page.locator("[data-recipients] tbody tr")
    expect(rows).to_have_count(2)
    expect(page.locator("[data-recipients]")).to_contain_text("Fjordauto AS")
    expect(page.locator("[data-recipients]")).to_contain_text("malmo@demo.test")
    # On the phone the whole list fits: nothing to scroll sideways to read an address.
    assert page.locator(".send-bid-links .table-wrap").evaluate(
        "wrap => wrap.scrollWidth <= wrap.clientWidth"
    )
    snap(page, "market-send-bid-links")
    page.get_by_role("link", name="Cancel").click()
    expect(page).to_have_url(re.compile(rf"/market/adverts/{paths['id']}$"))
    assert len(bid_mails(live_server)) == sent_before
    page.locator("[data-send-bid-links]").click()
    page.get_by_role("button", name="Send 2 bid links").click()
    expect(page.get_by_text("Bid links were sent to 2 people.")).to_be_visible()
    assert len(bid_mails(live_server)) == sent_before + 2


def bid_mails(live_server) -> list[str]:
    """The addresses every bid-link mail so far went to."""
    with live_server.app.app_context():
        return db.session.scalars(
            select(EmailMessage.to_address).where(EmailMessage.kind == "market_bid_link")
        ).all()
