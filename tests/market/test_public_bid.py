"""The public bid page and its calls (spec 02, market-bid): bid, allocate and change status
through a person's own link, without signing in."""

import gzip
import json
import os
import re
import time
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import event, func, select

from app.core.islands import asset_url
from app.core.models import utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.mail.models import EmailMessage
from app.market.links import ensure_link
from app.market.models import Advert, AdvertBid, AdvertImage, ExchangeRate, MarketLink
from app.market.status import STATUSES
from app.preparation.files import store_file
from tests.helpers import schema_errors, translated
from tests.market._bid import (
    BUYER,
    MALMO,
    SELLER,
    advert,
    bid_path,
    currencies_path,
    data_path,
    group,
    link,
    make_advert,
    page_path,
    parts,
    photo_jpeg,
    send,
    token,
    user,
)

# make_advert's bids: Malmö 185 000 SEK, Fjordauto 191 500 NOK (= 187 011 SEK, rounded down).
HIGHEST, NEXT_SEK, NEXT_NOK = 187_011, 188_011, 192_524  # 188 011 x 1.024 = 192 523.26 -> up


@pytest.fixture
def ad(demo_app):
    return make_advert()


@pytest.fixture
def buyer_link(ad):
    return link(ad, BUYER, "bid")


@pytest.fixture
def seller_link(ad):
    return link(ad, SELLER, "seller")


@pytest.fixture
def csrf(bidder, ad, buyer_link):
    return token(bidder, page_path("bid", ad, buyer_link))


def bids_of(advert_id: int) -> list[AdvertBid]:
    return list(
        db.session.scalars(
            select(AdvertBid)
            .where(AdvertBid.advert_id == advert_id)
            .order_by(AdvertBid.id)
            .execution_options(all_instances=True)
        )
    )


def reload(advert_id: int) -> Advert:
    db.session.expire_all()
    return db.session.scalar(
        select(Advert).where(Advert.id == advert_id).execution_options(all_instances=True)
    )


def mails(kind: str) -> list[EmailMessage]:
    return list(
        db.session.scalars(
            select(EmailMessage).where(EmailMessage.kind == kind).order_by(EmailMessage.id)
        )
    )


def page_texts(response) -> dict:
    html = response.get_data(as_text=True)
    match = re.search(r'<script type="application/json" id="page-texts">(.*?)</script>', html, re.S)
    assert match, "the page carries no page texts"
    return json.loads(match.group(1))


# --- the page --------------------------------------------------------------------------------


def test_the_page_loads_only_its_own_script_with_its_texts(bidder, ad, buyer_link):
    response = bidder.get(page_path("bid", ad, buyer_link))
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    scripts = re.findall(r"<script[^>]*\bsrc=\"([^\"]+)\"", html)
    with bidder.application.test_request_context():
        script = asset_url("market-bid.js")
    assert scripts == [script]
    assert "react" not in html.lower()
    assert not re.search(r"<script(?![^>]*(src=|application/json))[^>]*>", html)  # none inline
    # The loading state stands until the script has the data.
    assert re.search(r'role="status"[^>]*aria-busy="true"', html)
    assert 'data-action="bid"' in html and f'data-link="bid/{parts(ad, buyer_link)}"' in html
    texts = page_texts(response)
    assert texts["bidTooLow"] == "Your bid must be at least %(amount)s %(currency)s."
    assert texts["yourCompany"] == "Your company"
    # The form itself comes drawn and translated in the page, for the bidder's company.
    form = html[html.index('<template id="bid-form">') :]
    assert "You bid for Fjordauto AS." in form and "Your bid in NOK" in form
    assert ">Place bid</button>" in form
    assert "submitAllocate" not in texts


def test_a_sellers_link_loads_the_sellers_script_and_a_bidders_does_not(bidder, ad, seller_link):
    with bidder.application.test_request_context():
        bidder_script, seller_script = asset_url("market-bid.js"), asset_url("market-bid-seller.js")
    assert bidder_script != seller_script
    for action in ("allocate", "change-status"):
        html = bidder.get(page_path(action, ad, seller_link)).get_data(as_text=True)
        assert re.findall(r"<script[^>]*\bsrc=\"([^\"]+)\"", html) == [seller_script]
    # The bidder's file holds none of the seller's forms.
    static = Path(bidder.application.static_folder)
    bidder_js = (static / bidder_script.split("/static/")[1]).read_text()
    seller_js = (static / seller_script.split("/static/")[1]).read_text()
    assert "allocate-price" in seller_js and "status-select" in seller_js
    assert "allocate-price" not in bidder_js and "status-select" not in bidder_js


def test_the_bid_pages_script_with_react_stays_within_its_budget(demo_app):
    """Issue 17 changed this rule: the bid form is a React component now, so the bid page loads
    React. Its JavaScript, entry and every chunk it imports (React included), stays under 80 KB
    gzip and below the shell pages'; React is one chunk, shared by every public page
    (bench/market_bids.py --js-only prints the sizes). It was: one file, the smallest of all."""
    static = Path(demo_app.static_folder) / "dist"
    manifest = json.loads((static / "manifest.json").read_text())

    def packed(name: str) -> int:
        return len(gzip.compress((static / name).read_bytes(), 9))

    def public(logical: str) -> list[str]:
        return [manifest[logical], *manifest["publicChunks"][logical]]

    bid = sum(packed(name) for name in public("market-bid.js"))
    shell = packed(manifest["main.js"]) + sum(packed(c) for c in manifest["chunks"])
    assert bid <= 80 * 1024, bid
    assert bid < shell, (bid, shell)
    # React's own chunk: one file, loaded by every public page (bid, seller's link, invitation).
    react = [
        name
        for name in sorted({c for chunks in manifest["publicChunks"].values() for c in chunks})
        if "__reactContainer$" in (static / name).read_text()
    ]
    assert len(react) == 1, react
    for logical in ("market-bid.js", "market-bid-seller.js", "market-invite.js"):
        assert react[0] in manifest["publicChunks"][logical]
        assert "__reactContainer$" not in (static / manifest[logical]).read_text()


def test_the_public_pages_preload_their_chunks_and_the_bundles_are_cached_immutable(
    demo_app, bidder, ad, buyer_link
):
    html = bidder.get(page_path("bid", ad, buyer_link)).get_data(as_text=True)
    manifest = json.loads((Path(demo_app.static_folder) / "dist" / "manifest.json").read_text())
    for chunk in manifest["publicChunks"]["market-bid.js"]:
        assert f'<link rel="modulepreload" href="/static/dist/{chunk}">' in html
        answer = bidder.get(f"/static/dist/{chunk}")
        assert answer.status_code == 200
        assert answer.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        answer.close()
    assert f'<script type="module" src="/static/dist/{manifest["market-bid.js"]}">' in html
    # What keeps its name across builds is revalidated as before.
    answer = bidder.get("/static/dist/manifest.json")
    assert "immutable" not in answer.headers.get("Cache-Control", "")
    answer.close()


def test_the_page_shows_the_vehicle_before_the_script_runs(bidder, ad, buyer_link):
    html = bidder.get(page_path("bid", ad, buyer_link)).get_data(as_text=True)
    card = html[html.index('class="bid-card bid-advert"') : html.index("data-bid-loading")]
    for fact in (
        f"<dt>Registration number</dt><dd>{ad.regno}</dd>",
        "<dt>Model year</dt><dd>2021</dd>",
        "<dt>Mileage</dt><dd>48,200 km</dd>",
        "<dt>Colour</dt><dd>Denim blue</dd>",
        "<dt>Seller</dt><dd>Nordbil AB</dd>",
    ):
        assert fact in card
    assert re.search(r'class="bid-status bid-status-published" data-advert-status>Published<', card)
    # The end of bidding in UTC until the script writes it in the reader's time zone.
    ends = ad.ends_at.strftime("%Y-%m-%d %H:%M")
    assert f'<time datetime="{ad.ends_at.isoformat()}" data-local-time>{ends} UTC<' in card
    assert "<h2>Description</h2>" in card
    # None of the bids is on the page itself (they come with the link's data call), and no other
    # bidder's name: only the bidder's own company, in its form.
    assert "191,500" not in html and "185,000" not in html and "Malmö" not in html


def test_the_page_texts_follow_the_readers_language(demo_app, bidder, ad, buyer_link):
    response = bidder.get(page_path("bid", ad, buyer_link) + "?lang=sv-SE")
    assert 'lang="sv-SE"' in response.get_data(as_text=True)
    html = response.get_data(as_text=True)
    assert f">{translated(demo_app, 'Place bid', 'sv_SE')}</button>" in html
    expected = translated(demo_app, "Your bid must be at least %(amount)s %(currency)s.", "sv_SE")
    assert page_texts(response)["bidTooLow"] == expected


def test_each_action_has_its_own_texts(bidder, ad, seller_link):
    allocate = page_texts(bidder.get(page_path("allocate", ad, seller_link)))
    status = page_texts(bidder.get(page_path("change-status", ad, seller_link)))
    assert allocate["submitAllocate"] == "Allocate" and "bidTooLow" not in allocate
    assert status["submitStatus"] == "Change status" and "bidders" not in status


def test_unknown_action_goes_to_login(bidder, ad, buyer_link):
    response = bidder.get(f"/market-bid/steal/{parts(ad, buyer_link)}")
    assert response.status_code == 302
    assert response.headers["Location"] == "/login"


# --- what the calls read -----------------------------------------------------------------------


def test_a_bidder_sees_the_advert_and_only_its_own_groups_name(bidder, ad, buyer_link):
    response = bidder.get(data_path("bid", ad, buyer_link))
    assert response.status_code == 200
    data = response.json
    assert data["registrationNumber"] == ad.regno
    assert data["title"] == "Volvo XC60 B5 AWD 2021"
    assert (data["currency"], data["activeGroupCurrency"]) == ("SEK", "NOK")
    assert (data["startPrice"], data["bidStep"]) == (185_000, 1_000)
    assert (data["highestBid"], data["nextBid"], data["bidCount"]) == (HIGHEST, NEXT_SEK, 2)
    assert data["sellerName"] == "Nordbil AB"
    assert data["status"] == "published" and data["statusLabel"] == "Published"
    assert data["biddingOpen"] is True and data["closedMessage"] is None
    assert data["leading"] is True  # Fjordauto's 191 500 NOK is the highest
    fjord = group("Fjord")
    assert [(b["bid"], b["currency"], b["createdByInstanceGroup"]) for b in data["advertBids"]] == [
        (191_500, "NOK", {"id": fjord.id, "name": "Fjordauto AS"}),
        (185_000, "SEK", None),  # Malmö's bid: the amount shows, the company does not
    ]
    assert "Malmö" not in response.get_data(as_text=True)
    assert "bidders" not in data and "statuses" not in data
    assert data["images"] == []


def test_a_bidder_reads_the_highest_bid_in_its_own_currency_too(bidder, ad, buyer_link):
    """Issue 37: a Norwegian bidder on a Swedish advert reads the highest bid in kroner first."""
    data = bidder.get(data_path("bid", ad, buyer_link)).json
    # 187 011 SEK x 1.024 = 191 499.26 NOK, rounded up as the next bid is.
    assert data["highestBidOwn"] == {"amount": 191_500, "currency": "NOK"}
    malmo = bidder.get(data_path("bid", ad, link(ad, MALMO, "bid"))).json
    assert malmo["highestBidOwn"] is None  # Malmö bids in the advert's own currency


def test_the_confirmations_state_the_amount_and_that_it_binds_in_the_readers_language(
    demo_app, bidder, ad
):
    """Issue 37: a bid and an allocation are confirmed first, in words that give the amount in
    both currencies and say it binds; the words are the reader's language's."""
    binds = (
        "The bid binds your company and cannot be withdrawn: if it is the highest when "
        "bidding ends, the seller can sell the vehicle to your company for this amount."
    )
    texts = page_texts(bidder.get(page_path("bid", ad, link(ad, BUYER, "bid")) + "?lang=nb-NO"))
    assert texts["confirmBidBinds"] == translated(demo_app, binds, "nb_NO") != binds
    assert "%(advertAmount)s %(advertCurrency)s" in texts["confirmBidConverted"]
    seller = page_texts(bidder.get(page_path("allocate", ad, link(ad, SELLER, "seller"))))
    assert "%(buyerAmount)s %(buyerCurrency)s" in seller["confirmAllocateConverted"]
    allocation_binds = (
        "The allocation binds: the buyer is told by e-mail at once that the vehicle is theirs "
        "for this price."
    )
    # The reader chose Norwegian above (?lang=): the seller's link answers in it too.
    assert seller["confirmAllocateBinds"] == translated(demo_app, allocation_binds, "nb_NO")


def test_the_other_bidder_sees_the_same_bids_from_its_side(bidder, ad):
    data = bidder.get(data_path("bid", ad, link(ad, MALMO, "bid"))).json
    assert [b["createdByInstanceGroup"] is not None for b in data["advertBids"]] == [False, True]
    assert data["leading"] is False and data["activeGroupCurrency"] == "SEK"
    assert "Fjordauto" not in json.dumps(data)


def test_the_seller_sees_each_bidders_highest_bid_by_name(bidder, ad, seller_link):
    data = bidder.get(data_path("allocate", ad, seller_link)).json
    fjord, malmo = group("Fjord"), group("Malm")
    assert data["bidders"] == [
        {
            "id": fjord.id,
            "name": "Fjordauto AS",
            "bid": 191_500,
            "currency": "NOK",
            "advertAmount": HIGHEST,
            "createdAt": data["bidders"][0]["createdAt"],
        },
        {
            "id": malmo.id,
            "name": "Malmö Bilcenter AB",
            "bid": 185_000,
            "currency": "SEK",
            "advertAmount": 185_000,
            "createdAt": data["bidders"][1]["createdAt"],
        },
    ]
    assert [b["createdByInstanceGroup"]["name"] for b in data["advertBids"]] == [
        "Fjordauto AS",
        "Malmö Bilcenter AB",
    ]
    assert data["canAllocate"] is True and data["allocatedInstanceGroup"] is None


def test_the_allocate_call_of_an_allocated_advert_names_the_buyer(bidder):
    demo = advert("allocated")
    data = bidder.get(data_path("allocate", demo, link(demo, SELLER, "seller"))).json
    assert data["canAllocate"] is False
    assert data["allocateMessage"] == "An advert that is allocated cannot be allocated."
    assert data["allocatedInstanceGroup"]["name"] == "Fjordauto AS"
    assert data["allocatedSalesPrice"] == demo.allocated_price
    assert data["allocatedNotes"] == "Collection from Solna, keys at reception."


def test_the_change_status_call_lists_the_fixed_statuses(bidder, ad, seller_link):
    data = bidder.get(data_path("change-status", ad, seller_link)).json
    assert [s["value"] for s in data["statuses"]] == list(STATUSES)
    assert [s["value"] for s in data["statuses"] if s["current"]] == ["published"]
    assert [s["value"] for s in data["statuses"] if s["allowed"]] == ["closed", "withdrawn"]
    assert data["statuses"][0]["label"] == "Draft"


def test_currencies_answer_for_bid_and_seller_links(bidder, ad, buyer_link, seller_link):
    for ln in (buyer_link, seller_link):
        response = bidder.get(currencies_path(ad, ln))
        assert response.status_code == 200
        data = response.json
        assert (data["currency"], data["nextBid"]) == ("SEK", NEXT_SEK)
        rows = {r["currency"]: r for r in data["exchangeRates"]}
        assert rows["SEK"] == {"currency": "SEK", "exchangeRate": "1", "nextBid": NEXT_SEK}
        assert rows["NOK"] == {"currency": "NOK", "exchangeRate": "1.024", "nextBid": NEXT_NOK}
        assert rows["EUR"]["nextBid"] == 16_320  # 188 011 x 0.0868 = 16 319.35 -> up


def test_images_are_served_to_link_holders_only(bidder, ad, buyer_link):
    other = make_advert()
    file = store_file(photo_jpeg(), "car.jpg", user(SELLER).id)
    db.session.flush()
    image = AdvertImage(advert_id=ad.id, file_object_id=file.id, position=0)
    db.session.add(image)
    db.session.flush()
    urls = bidder.get(data_path("bid", ad, buyer_link)).json["images"]
    assert urls == [f"/market-bid-image/bid/{parts(ad, buyer_link)}/{image.id}"]
    response = bidder.get(urls[0])
    assert response.status_code == 200
    assert response.mimetype == "image/jpeg"
    assert response.data == file.small  # the small variation, not the upload
    other_link = link(other, BUYER, "bid")
    assert (
        bidder.get(f"/market-bid-image/bid/{parts(other, other_link)}/{image.id}").status_code
        == 404
    )
    assert (
        bidder.get(f"/market-bid-image/bid/{parts(ad, buyer_link)}x/{image.id}").status_code == 404
    )


# --- bids ------------------------------------------------------------------------------------


def test_a_valid_bid_raises_the_highest_and_the_next_bid(bidder, ad, buyer_link, csrf):
    response = send(
        bidder, "POST", bid_path(ad, buyer_link), {"bid": 195_000, "requestKey": "a1"}, csrf
    )
    assert response.status_code == 201
    answer = response.json
    assert answer["message"] == translated(bidder.application, "BID_SENT")
    assert (answer["bid"]["bid"], answer["bid"]["currency"]) == (195_000, "NOK")
    # 195 000 NOK = 190 429 SEK (rounded down); next 191 429 SEK = 196 023.3 NOK -> 196 024.
    assert answer["nextBid"] == 196_024
    data = bidder.get(data_path("bid", ad, buyer_link)).json
    assert (data["highestBid"], data["nextBid"], data["bidCount"]) == (190_429, 191_429, 3)
    assert data["advertBids"][0]["bid"] == 195_000
    rates = bidder.get(currencies_path(ad, buyer_link)).json["exchangeRates"]
    assert {r["currency"]: r["nextBid"] for r in rates}["NOK"] == 196_024


def test_a_bid_below_the_next_bid_is_refused_with_the_amount(bidder, ad, buyer_link, csrf):
    response = send(
        bidder, "POST", bid_path(ad, buyer_link), {"bid": NEXT_NOK - 1, "requestKey": "low"}, csrf
    )
    assert response.status_code == 422
    assert response.json["key"] == response.json["error"] == "BID_TOO_LOW"
    assert response.json["message"] == "Your bid must be at least 192,524 NOK."
    assert len(bids_of(ad.id)) == 2
    # Exactly the rounded-up next bid is enough, and converts back to at least the next bid.
    response = send(
        bidder, "POST", bid_path(ad, buyer_link), {"bid": NEXT_NOK, "requestKey": "ok"}, csrf
    )
    assert response.status_code == 201
    assert bids_of(ad.id)[-1].advert_amount == NEXT_SEK
    assert reload(ad.id).highest_bid == NEXT_SEK


@pytest.mark.parametrize(
    ("lang", "amount", "mileage"),
    [
        ("de-DE", "192.524", "48.200"),
        ("sv-SE", "192\u00a0524", "48\u00a0200"),
        ("en-GB", "192,524", "48,200"),
    ],
)
def test_amounts_are_written_as_the_readers_language_writes_numbers(
    bidder, ad, buyer_link, csrf, lang, amount, mileage
):
    path = bid_path(ad, buyer_link) + f"?lang={lang}"
    response = send(bidder, "POST", path, {"bid": NEXT_NOK - 1, "requestKey": "low"}, csrf)
    assert response.status_code == 422
    assert f"{amount} NOK" in response.json["message"]
    page = bidder.get(page_path("bid", ad, buyer_link) + f"?lang={lang}").get_data(as_text=True)
    assert f"<dd>{mileage} km</dd>" in page


def test_a_bid_in_the_adverts_currency_is_checked_without_a_rate(bidder, ad):
    malmo = link(ad, MALMO, "bid")
    csrf = token(bidder, page_path("bid", ad, malmo))
    low = send(bidder, "POST", bid_path(ad, malmo), {"bid": NEXT_SEK - 1, "requestKey": "m1"}, csrf)
    assert low.status_code == 422 and low.json["message"].endswith("188,011 SEK.")
    ok = send(bidder, "POST", bid_path(ad, malmo), {"bid": NEXT_SEK, "requestKey": "m2"}, csrf)
    assert ok.status_code == 201 and ok.json["nextBid"] == NEXT_SEK + 1_000


@pytest.mark.parametrize(
    ("status", "ends", "text"),
    [
        ("closed", 2, "Bidding on this advert is closed."),
        ("withdrawn", 2, "This advert has been withdrawn."),
        ("allocated", 2, "This advert has already been allocated to a buyer."),
        ("sold", 2, "This advert has already been allocated to a buyer."),
        ("published", -1, "Bidding on this advert has ended."),
    ],
)
def test_no_bids_on_adverts_that_are_not_open(bidder, status, ends, text):
    ad = make_advert(status=status)
    ad.ends_at = utcnow() + timedelta(days=ends)
    db.session.flush()
    ln = link(ad, BUYER, "bid")
    csrf = token(bidder, page_path("bid", ad, ln))
    response = send(bidder, "POST", bid_path(ad, ln), {"bid": 900_000, "requestKey": "x"}, csrf)
    assert response.status_code == 422
    assert response.json["message"] == text
    assert response.json["key"] == "BIDDING_CLOSED"
    assert len(bids_of(ad.id)) == 2
    data = bidder.get(data_path("bid", ad, ln)).json
    assert data["biddingOpen"] is False and data["closedMessage"] == text


def test_the_same_request_key_twice_records_one_bid(bidder, ad, buyer_link, csrf):
    body = {"bid": NEXT_NOK, "requestKey": "double-tap"}
    first = send(bidder, "POST", bid_path(ad, buyer_link), body, csrf)
    second = send(bidder, "POST", bid_path(ad, buyer_link), body, csrf)
    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json["message"] == second.json["message"]
    assert first.json["bid"]["id"] == second.json["bid"]["id"]
    assert len(bids_of(ad.id)) == 3
    assert reload(ad.id).bid_count == 3
    # A new form (a new key) is a new bid, checked against the raised next bid.
    third = send(bidder, "POST", bid_path(ad, buyer_link), {**body, "requestKey": "next"}, csrf)
    assert third.status_code == 422 and third.json["key"] == "BID_TOO_LOW"


def test_every_answer_to_a_bid_holds_to_its_published_schema(bidder, ad, buyer_link, csrf):
    """Issue 36: a client generated from /api/openapi.json reads a bid's answer through the
    schema published for it (the view writes its keys itself): a bid placed (201), the same
    requestKey again and a maximum saved while leading (200)."""
    doc = bidder.get("/api/openapi.json").get_json()
    call = doc["paths"]["/api/_public/market-bid/{group_hash}/{advert_hash}/{user_hash}"]["post"]
    path = bid_path(ad, buyer_link)
    answers = {}
    for name, body in (
        ("placed", {"bid": NEXT_NOK, "requestKey": "s1"}),
        ("again", {"bid": NEXT_NOK, "requestKey": "s1"}),
        ("maximum", {"maximum": 400_000, "requestKey": "s2"}),
    ):
        answer = send(bidder, "POST", path, body, csrf)
        answers[name] = answer
        schema = call["responses"][str(answer.status_code)]["content"]["application/json"]
        assert schema_errors(doc, schema["schema"]["$ref"][1:], answer.json) == [], name
    codes = {name: answer.status_code for name, answer in answers.items()}
    assert codes == {"placed": 201, "again": 200, "maximum": 200}
    assert answers["maximum"].json["bid"] is None


@pytest.mark.parametrize(
    ("body", "field", "key"),
    [
        ({"requestKey": "k"}, "bid", "FIELD_REQUIRED"),
        ({"bid": None, "requestKey": "k"}, "bid", "FIELD_REQUIRED"),
        ({"bid": "200000", "requestKey": "k"}, "bid", "INVALID_VALUE"),
        ({"bid": 0, "requestKey": "k"}, "bid", "INVALID_VALUE"),
        ({"bid": 200_000}, "requestKey", "FIELD_REQUIRED"),
        ({"bid": 200_000, "requestKey": ""}, "requestKey", "FIELD_REQUIRED"),
        ({"bid": 200_000, "requestKey": "k" * 41}, "requestKey", "FIELD_TOO_LONG"),
    ],
)
def test_a_bid_without_a_valid_amount_or_key_names_the_field(
    bidder, ad, buyer_link, csrf, body, field, key
):
    response = send(bidder, "POST", bid_path(ad, buyer_link), body, csrf)
    assert response.status_code == 422
    assert response.json["keys"][field] == key
    assert len(bids_of(ad.id)) == 2


def test_an_oversized_bid_is_refused(bidder, ad, buyer_link, csrf):
    body = {"bid": 10**12, "requestKey": "big"}
    response = send(bidder, "POST", bid_path(ad, buyer_link), body, csrf)
    assert response.status_code == 422 and response.json["key"] == "BID_TOO_HIGH"


def test_a_call_without_the_pages_token_is_a_clear_400(bidder, ad, buyer_link):
    body = {"bid": NEXT_NOK, "requestKey": "no-token"}
    for headers in ({}, {"X-CSRFToken": "forged"}):
        response = bidder.post(bid_path(ad, buyer_link), json=body, headers=headers)
        assert response.status_code == 400
        assert response.is_json and "expired" in response.json["message"]
    assert len(bids_of(ad.id)) == 2


def _bid_once(bidder, ad, buyer_link, csrf) -> str:
    """A first bid through the link (the process now remembers it); the bid call's path."""
    path = bid_path(ad, buyer_link)
    assert (
        send(bidder, "POST", path, {"bid": NEXT_NOK, "requestKey": "first"}, csrf).status_code
        == 201
    )
    return path


def _statements_of(call) -> list[str]:
    seen: list[str] = []

    def listen(_conn, _cursor, statement, *_args) -> None:
        if not statement.startswith(("SAVEPOINT", "RELEASE", "ROLLBACK")):  # the test's own
            seen.append(statement)

    event.listen(db.engine, "before_cursor_execute", listen)
    try:
        call()
    finally:
        event.remove(db.engine, "before_cursor_execute", listen)
    return seen


def test_a_bidders_next_bid_reads_no_link(bidder, ad, buyer_link, csrf):
    """A bidder's next bid reads no link: the process remembers it and the bid's locked read
    checks that it still holds. On PostgreSQL the bid is then one statement: a call of the
    function that locks, checks, inserts, updates and counts the bid in its month (migrations
    c95894507d20, 9d3f5a7c2e14)."""
    path = _bid_once(bidder, ad, buyer_link, csrf)
    answers = []
    seen = _statements_of(
        lambda: answers.append(send(bidder, "POST", path, {"bid": 10**6, "requestKey": "n2"}, csrf))
    )
    assert answers[0].status_code == 201
    assert not any("market_link.hash" in statement for statement in seen)
    if db.engine.dialect.name == "postgresql":
        assert len(seen) == 1 and seen[0].startswith("SELECT * FROM market_place_bid(")
    else:  # the locked state with the check, the insert, the advert's update, the month's count
        assert len(seen) == 4 and "link_ok" in seen[0]
        assert seen[3].startswith("INSERT INTO advert_bid_month")


def _rate(advert: Advert, to_currency: str) -> ExchangeRate:
    return db.session.scalar(
        select(ExchangeRate)
        .where(
            ExchangeRate.instance_id == advert.instance_id,
            ExchangeRate.currency == advert.currency,
            ExchangeRate.to_currency == to_currency,
        )
        .execution_options(all_instances=True)
    )


def test_a_rate_changed_after_a_bid_converts_the_next_one(bidder, ad, buyer_link, csrf):
    path = _bid_once(bidder, ad, buyer_link, csrf)
    _rate(ad, "NOK").rate = Decimal("1.1")
    db.session.commit()
    answer = send(bidder, "POST", path, {"bid": 300_000, "requestKey": "r2"}, csrf)
    assert answer.status_code == 201
    # 300 000 NOK at 1.1 NOK per SEK: 272 727 SEK (at the old 1.024 it would be 292 968).
    assert bids_of(ad.id)[-1].advert_amount == reload(ad.id).highest_bid == 272_727
    assert answer.json["nextBid"] == 301_100  # 273 727 SEK x 1.1 = 301 099.7 -> up


def test_a_rate_removed_after_a_bid_refuses_the_next_one(bidder, ad, buyer_link, csrf):
    path = _bid_once(bidder, ad, buyer_link, csrf)
    db.session.delete(_rate(ad, "NOK"))
    db.session.commit()
    answer = send(bidder, "POST", path, {"bid": 300_000, "requestKey": "x2"}, csrf)
    assert answer.status_code == 422 and answer.json["key"] == "NO_EXCHANGE_RATE"
    assert len(bids_of(ad.id)) == 3


def test_a_link_gone_after_a_bid_answers_404(bidder, ad, buyer_link, csrf):
    path = _bid_once(bidder, ad, buyer_link, csrf)
    db.session.delete(db.session.get(MarketLink, buyer_link.id))
    db.session.commit()
    answer = send(bidder, "POST", path, {"bid": 300_000, "requestKey": "g2"}, csrf)
    assert answer.status_code == 404
    assert len(bids_of(ad.id)) == 3


def test_a_maximum_or_buy_now_after_a_bid_reads_the_link_afresh(bidder, ad, buyer_link, csrf):
    path = _bid_once(bidder, ad, buyer_link, csrf)
    _rate(ad, "NOK").rate = Decimal("1.1")
    db.session.commit()
    answer = send(bidder, "POST", path, {"maximum": 400_000, "requestKey": "m2"}, csrf)
    assert answer.status_code == 200 and answer.json["maximum"] == 400_000  # still leading
    ad.buy_now_price = 500_000
    db.session.commit()
    bought = send(bidder, "POST", f"/api/_public/market-buy-now/{parts(ad, buyer_link)}",
                  {"requestKey": "m3"}, csrf)  # fmt: skip
    assert bought.status_code == 201
    assert bought.json["bid"]["bid"] == 550_000  # 500 000 SEK at the new 1.1


def test_with_redis_each_call_counts_once_and_over_the_limit_no_bid_is_stored(
    bidder, ad, buyer_link, csrf, monkeypatch
):
    """With Redis every worker shares the count: each call counts once (a call refused before
    its view, without a CSRF token, not at all), and the call over the limit is answered 429
    with nothing stored."""
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.skip("REDIS_URL is not set: the Redis path is tested where Redis runs (CI)")
    from redis import Redis

    app = bidder.application
    monkeypatch.setitem(app.config, "REDIS_URL", url)
    monkeypatch.setitem(app.config, "PUBLIC_RATE_LIMIT", "3/3600")
    app.extensions.pop("redis", None)
    address = bidder.environ_base["REMOTE_ADDR"]
    name = f"rl:public:{address}:{int(time.time()) // 3600}"
    redis = Redis.from_url(url)
    try:
        path = bid_path(ad, buyer_link)
        assert bidder.open(path, method="OPTIONS").status_code == 200  # no view: not counted
        assert bidder.post(path, json={"bid": NEXT_NOK, "requestKey": "r0"}).status_code == 400
        assert (
            send(bidder, "POST", path, {"bid": NEXT_NOK, "requestKey": "r1"}, csrf).status_code
            == 201
        )
        assert bidder.get(currencies_path(ad, buyer_link)).status_code == 200
        assert int(redis.get(name)) == 2
        assert 0 < redis.ttl(name) <= 3601
        second = send(bidder, "POST", path, {"bid": 10**6, "requestKey": "r2"}, csrf)
        assert second.status_code == 201
        refused = send(bidder, "POST", path, {"bid": 2 * 10**6, "requestKey": "r3"}, csrf)
        assert refused.status_code == 429
        assert int(redis.get(name)) == 4
        assert [b.amount for b in bids_of(ad.id)][2:] == [NEXT_NOK, 10**6]
    finally:
        redis.delete(name)
        redis.close()
        app.extensions.pop("redis", None)


# --- wrong links -------------------------------------------------------------------------------


def _foreign_advert():
    """An advert with a bid link in another instance (Fjordauto's), as a second seller's."""
    fjord = group("Fjord")
    activate(fjord.instance_id)
    template = advert("published")
    foreign = Advert(
        seller_group_id=fjord.id, regno="NO1234", brand="Tesla", model="Model Y",
        currency="NOK", start_price=300_000, bid_step=1_000, status="published",
        ends_at=template.ends_at, instance_id=fjord.instance_id,
    )  # fmt: skip
    db.session.add(foreign)
    db.session.flush()
    foreign_link = ensure_link(foreign, user(MALMO).id, group("Malm"), "bid")
    return foreign, foreign_link


def test_every_wrong_part_of_a_link_answers_the_same_404(bidder, ad, buyer_link):
    foreign, foreign_link = _foreign_advert()
    other = make_advert()
    malmo_other = link(other, MALMO, "bid")
    fjord, malmo = group("Fjord"), group("Malm")
    good = (fjord.hash, ad.hash, buyer_link.hash)
    wrong = {
        "group": (malmo.hash, ad.hash, buyer_link.hash),
        "advert": (fjord.hash, other.hash, buyer_link.hash),
        "user": (fjord.hash, ad.hash, "A" * 22),
        "another instance's advert": (fjord.hash, foreign.hash, buyer_link.hash),
        "another instance's link": (malmo.hash, ad.hash, foreign_link.hash),
        "another bidder's link on this advert": (malmo.hash, ad.hash, malmo_other.hash),
        "a long user hash": (fjord.hash, ad.hash, "x" * 300),
    }
    csrf = token(bidder, "/market-bid/bid/" + "/".join(good))
    pages = set()
    for name, (g, a, u) in wrong.items():
        page = bidder.get(f"/market-bid/bid/{g}/{a}/{u}")
        assert page.status_code == 404, name
        pages.add(re.sub(r'content="[^"]+"', "", page.get_data(as_text=True)))
        for response in (
            bidder.get(f"/api/_public/market-bid/bid/{g}/{a}/{u}"),
            bidder.get(f"/api/_public/market-advert/currencies/{g}/{a}/{u}"),
            send(
                bidder,
                "POST",
                f"/api/_public/market-bid/{g}/{a}/{u}",
                {"bid": 999_999, "requestKey": name[:40]},
                csrf,
            ),
        ):
            assert response.status_code == 404, name
            assert response.json == {"message": "The page or item could not be found."}
    assert len(pages) == 1  # no hint of which part was wrong
    assert "This link does not work" in pages.pop()
    assert len(bids_of(ad.id)) == 2
    assert bidder.get(f"/api/_public/market-bid/bid/{'/'.join(good)}").status_code == 200


def test_a_bid_link_cannot_allocate_or_change_status(bidder, ad, buyer_link, csrf):
    g_a_u = parts(ad, buyer_link)
    for action in ("allocate", "change-status"):
        assert bidder.get(f"/market-bid/{action}/{g_a_u}").status_code == 404
        assert bidder.get(f"/api/_public/market-bid/{action}/{g_a_u}").status_code == 404
    body = {"allocatedInstanceGroupId": group("Fjord").id, "allocatedSalesPrice": 1}
    assert (
        send(bidder, "PUT", f"/api/_public/market-bid/allocate/{g_a_u}", body, csrf).status_code
        == 404
    )
    status = {"status": "withdrawn"}
    assert (
        send(
            bidder, "PUT", f"/api/_public/market-bid/change-status/{g_a_u}", status, csrf
        ).status_code
        == 404
    )
    assert (
        send(bidder, "PUT", f"/api/_public/market-bid/bid/{g_a_u}", status, csrf).status_code == 404
    )
    assert reload(ad.id).status == "published"


def test_a_seller_link_cannot_bid(bidder, ad, seller_link, csrf):
    assert bidder.get(page_path("bid", ad, seller_link)).status_code == 404
    body = {"bid": 900_000, "requestKey": "seller"}
    assert send(bidder, "POST", bid_path(ad, seller_link), body, csrf).status_code == 404
    assert len(bids_of(ad.id)) == 2


# --- allocation ------------------------------------------------------------------------------


def allocate(bidder, ad, seller_link, body, csrf):
    return send(bidder, "PUT", data_path("allocate", ad, seller_link), body, csrf)


@pytest.mark.parametrize(
    ("body", "field", "key"),
    [
        ({"allocatedSalesPrice": 190_000}, "allocatedInstanceGroupId", "FIELD_REQUIRED"),
        (
            {"allocatedInstanceGroupId": None, "allocatedSalesPrice": 1},
            "allocatedInstanceGroupId",
            "FIELD_REQUIRED",
        ),
        ({"allocatedInstanceGroupId": 0}, "allocatedSalesPrice", "FIELD_REQUIRED"),
        (
            {"allocatedInstanceGroupId": 0, "allocatedSalesPrice": 0},
            "allocatedSalesPrice",
            "INVALID_VALUE",
        ),
        (
            {"allocatedInstanceGroupId": 0, "allocatedSalesPrice": 1, "allocatedNotes": "n" * 256},
            "allocatedNotes",
            "FIELD_TOO_LONG",
        ),
    ],
)
def test_allocation_fields_are_checked(bidder, ad, seller_link, csrf, body, field, key):
    body = {
        k: (group("Fjord").id if v == 0 and k.endswith("GroupId") else v) for k, v in body.items()
    }
    response = allocate(bidder, ad, seller_link, body, csrf)
    assert response.status_code == 422
    assert response.json["keys"][field] == key
    assert reload(ad.id).status == "published"
    assert mails("market_allocated") == []


def test_notes_of_255_characters_are_kept(bidder, ad, seller_link, csrf):
    body = {
        "allocatedInstanceGroupId": group("Malm").id,
        "allocatedSalesPrice": 185_000,
        "allocatedNotes": "n" * 255,
    }
    assert allocate(bidder, ad, seller_link, body, csrf).status_code == 200
    assert reload(ad.id).allocated_notes == "n" * 255


def test_a_company_that_did_not_bid_cannot_get_the_advert(bidder, ad, seller_link, csrf):
    nordbil = group("Nordbil")
    body = {"allocatedInstanceGroupId": nordbil.id, "allocatedSalesPrice": 190_000}
    response = allocate(bidder, ad, seller_link, body, csrf)
    assert response.status_code == 422
    assert response.json["key"] == "UNKNOWN_BIDDER"
    assert response.json["message"] == "Choose a company that has bid on this advert."
    assert reload(ad.id).allocated_group_id is None


def test_an_allocation_notifies_the_buyers_bidders_and_the_seller(bidder, ad, seller_link, csrf):
    fjord = group("Fjord")
    body = {
        "allocatedInstanceGroupId": fjord.id,
        "allocatedSalesPrice": 187_500,
        "allocatedNotes": "Keys at reception.",
    }
    response = allocate(bidder, ad, seller_link, body, csrf)
    assert response.status_code == 200
    assert response.json["advert"]["status"] == "allocated"
    assert response.json["message"]
    saved = reload(ad.id)
    assert (saved.status, saved.allocated_group_id, saved.allocated_price) == (
        "allocated",
        fjord.id,
        187_500,
    )
    assert saved.allocated_notes == "Keys at reception."
    sent = {m.to_address: m for m in mails("market_allocated")}
    assert set(sent) == {BUYER, SELLER}  # Malmö bid too, but did not get the advert
    for address, mail in sent.items():
        person = user(address)
        assert mail.language == (person.options or {}).get("language", "sv-SE")
        # In the recipient's language: Norwegian and Swedish group with no-break spaces.
        assert "187\u00a0500\u00a0SEK" in mail.body_text and "Keys at reception." in mail.body_text
        assert ad.regno in mail.subject
    assert f"/market-bid/bid/{parts(ad, link(ad, BUYER, 'bid'))}" in sent[BUYER].body_text
    assert f"/market-bid/change-status/{parts(ad, seller_link)}" in sent[SELLER].body_text
    # Allocated now: a second allocation is refused and sends nothing more.
    again = allocate(bidder, ad, seller_link, body, csrf)
    assert again.status_code == 422 and again.json["key"] == "ILLEGAL_STATUS"
    assert len(mails("market_allocated")) == 2


# --- status changes --------------------------------------------------------------------------


def change(bidder, ad, seller_link, body, csrf):
    return send(bidder, "PUT", data_path("change-status", ad, seller_link), body, csrf)


def test_a_legal_status_change_is_saved(bidder, ad, seller_link, csrf):
    response = change(bidder, ad, seller_link, {"status": "closed", "statusNotes": "Pause."}, csrf)
    assert response.status_code == 200
    assert response.json["message"] == "The status is now Closed."
    assert response.json["advert"]["status"] == "closed"
    saved = reload(ad.id)
    assert (saved.status, saved.status_notes) == ("closed", "Pause.")


def test_an_illegal_status_change_is_refused_with_a_message(bidder, ad, seller_link, csrf):
    for status, text in (
        ("sold", "An advert cannot go from published to sold."),
        ("allocated", "Use the allocation form to allocate the advert to a bidder."),
        ("published", "An advert cannot go from published to published."),
    ):
        response = change(bidder, ad, seller_link, {"status": status}, csrf)
        assert response.status_code == 422
        assert response.json["message"] == text
        assert response.json["key"] == "ILLEGAL_STATUS"
    assert reload(ad.id).status == "published"


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ({}, "FIELD_REQUIRED"),
        ({"status": ""}, "FIELD_REQUIRED"),
        ({"status": "gone"}, "INVALID_VALUE"),
    ],
)
def test_the_status_is_required(bidder, ad, seller_link, csrf, body, key):
    response = change(bidder, ad, seller_link, body, csrf)
    assert response.status_code == 422
    assert response.json["keys"]["status"] == key


def test_status_notes_are_limited_to_255_characters(bidder, ad, seller_link, csrf):
    response = change(bidder, ad, seller_link, {"status": "closed", "statusNotes": "n" * 256}, csrf)
    assert response.status_code == 422
    assert response.json["keys"]["statusNotes"] == "FIELD_TOO_LONG"


@pytest.mark.parametrize(("status", "kind"), [("sold", "market_sold"), ("closed", "market_closed")])
def test_the_buyer_hears_of_a_sale_or_a_cancelled_allocation(
    bidder, ad, seller_link, csrf, status, kind
):
    fjord = group("Fjord")
    body = {"allocatedInstanceGroupId": fjord.id, "allocatedSalesPrice": 187_011}
    assert allocate(bidder, ad, seller_link, body, csrf).status_code == 200
    assert change(bidder, ad, seller_link, {"status": status}, csrf).status_code == 200
    sent = mails(kind)
    assert [m.to_address for m in sent] == [BUYER]
    assert "187\u00a0011\u00a0SEK" in sent[0].body_text  # Norwegian, for Ole
    saved = reload(ad.id)
    assert saved.status == status
    assert (saved.allocated_group_id is None) == (status == "closed")


def test_other_status_changes_send_nothing(bidder, ad, seller_link, csrf):
    before = db.session.scalar(select(func.max(EmailMessage.id))) or 0
    assert change(bidder, ad, seller_link, {"status": "withdrawn"}, csrf).status_code == 200
    assert (
        db.session.scalar(
            select(func.count())
            .select_from(EmailMessage)
            .where(EmailMessage.kind.like("market_%ed"), EmailMessage.id > before)
        )
        == 0
    )


# --- rate limit and queries ------------------------------------------------------------------


@pytest.fixture
def strict_limit(demo_app):
    before = demo_app.config["PUBLIC_RATE_LIMIT"]
    demo_app.config["PUBLIC_RATE_LIMIT"] = "3/3600"
    yield
    demo_app.config["PUBLIC_RATE_LIMIT"] = before


def test_the_public_rate_limit_answers_429_with_retry_after(bidder, ad, buyer_link, strict_limit):
    for _ in range(3):
        assert bidder.get(data_path("bid", ad, buyer_link)).status_code == 200
    for response in (
        bidder.get(data_path("bid", ad, buyer_link)),
        bidder.get(currencies_path(ad, buyer_link)),
        bidder.get(page_path("bid", ad, buyer_link)),
    ):
        assert response.status_code == 429
        assert 0 < int(response.headers["Retry-After"]) <= 3600
    assert (
        bidder.get(data_path("bid", ad, buyer_link)).json["message"].startswith("Too many requests")
    )


def count_queries(client, path: str) -> int:
    statements = []

    def listener(*args):
        statements.append(args[2])

    event.listen(db.engine, "before_cursor_execute", listener)
    try:
        assert client.get(path).status_code == 200
    finally:
        event.remove(db.engine, "before_cursor_execute", listener)
    return len(statements)


def test_queries_per_call_stay_constant_as_bids_grow(bidder, ad, buyer_link, seller_link):
    file = store_file(photo_jpeg(), "car.jpg", user(SELLER).id)
    db.session.flush()
    db.session.add(AdvertImage(advert_id=ad.id, file_object_id=file.id))
    db.session.flush()
    paths = [
        data_path("bid", ad, buyer_link),
        data_path("allocate", ad, seller_link),
        data_path("change-status", ad, seller_link),
        currencies_path(ad, buyer_link),
    ]
    for path in paths:
        bidder.get(path)  # warm up
    before = [count_queries(bidder, path) for path in paths]
    links = [buyer_link, link(ad, MALMO, "bid")]
    for n in range(30):
        ln = links[n % 2]
        db.session.add(
            AdvertBid(
                advert_id=ad.id, group_id=ln.group_id, user_id=ln.user_id, link_id=ln.id,
                request_key=f"grow-{n}", amount=200_000 + n * 1_000,
                currency="NOK" if ln is buyer_link else "SEK",
                advert_amount=195_000 + n * 1_000, instance_id=ad.instance_id,
            )
        )  # fmt: skip
    ad.bid_count += 30
    ad.highest_bid = 195_000 + 29 * 1_000
    db.session.flush()
    after = [count_queries(bidder, path) for path in paths]
    assert after == before
    assert len(bidder.get(paths[0]).json["advertBids"]) == 32


def test_without_a_rate_for_the_bidders_currency_no_bid_is_taken(bidder, ad, buyer_link, csrf):
    rate = db.session.scalar(
        select(ExchangeRate).where(
            ExchangeRate.instance_id == ad.instance_id,
            ExchangeRate.currency == "SEK",
            ExchangeRate.to_currency == "NOK",
        )
    )
    db.session.delete(rate)
    db.session.flush()
    text = "No exchange rate from SEK to NOK is set for this advert. Please contact the seller."
    data = bidder.get(data_path("bid", ad, buyer_link)).json
    assert (data["biddingOpen"], data["closedMessage"]) == (False, text)
    body = {"bid": 900_000, "requestKey": "no-rate"}
    response = send(bidder, "POST", bid_path(ad, buyer_link), body, csrf)
    assert response.status_code == 422
    assert (response.json["key"], response.json["message"]) == ("NO_EXCHANGE_RATE", text)
    # A bidder in the advert's own currency needs no rate.
    assert bidder.get(data_path("bid", ad, link(ad, MALMO, "bid"))).json["biddingOpen"] is True


def test_a_buyer_sees_the_allocation_to_its_company(bidder, ad, buyer_link, seller_link, csrf):
    body = {"allocatedInstanceGroupId": group("Fjord").id, "allocatedSalesPrice": 187_500}
    assert allocate(bidder, ad, seller_link, body, csrf).status_code == 200
    mine = bidder.get(data_path("bid", ad, buyer_link)).json
    assert (mine["allocatedToYou"], mine["allocatedSalesPrice"]) == (True, 187_500)
    other = bidder.get(data_path("bid", ad, link(ad, MALMO, "bid"))).json
    assert other["allocatedToYou"] is False and "allocatedSalesPrice" not in other
    assert other["closedMessage"] == "This advert has already been allocated to a buyer."


def test_a_browser_that_accepts_gzip_gets_the_builds_gzipped_bundle(demo_app, bidder):
    """The build writes `<file>.gz` beside each bundle (level 9): the bytes the budgets count are
    the bytes that travel."""
    dist = Path(demo_app.static_folder) / "dist"
    manifest = json.loads((dist / "manifest.json").read_text())
    # The page's largest chunk (the order of chunks follows their hashes: a shared few-hundred-
    # byte chunk gains little from gzip, which says nothing about the bytes that travel).
    chunk = max(manifest["publicChunks"]["market-bid.js"], key=lambda c: (dist / c).stat().st_size)
    path = f"/static/dist/{chunk}"
    plain = bidder.get(path)
    zipped = bidder.get(path, headers={"Accept-Encoding": "gzip, deflate, br"})
    try:  # read whole, then closed: a failing assert leaves no file open for the next test
        plain_bytes, zipped_bytes = plain.get_data(), zipped.get_data()
    finally:
        plain.close()
        zipped.close()
    assert "Content-Encoding" not in plain.headers
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert zipped.headers["Content-Type"] == plain.headers["Content-Type"]
    assert zipped.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert (
        "Accept-Encoding" in zipped.headers["Vary"] and "Accept-Encoding" in plain.headers["Vary"]
    )
    assert gzip.decompress(zipped_bytes) == plain_bytes
    assert len(zipped_bytes) < len(plain_bytes) / 2
