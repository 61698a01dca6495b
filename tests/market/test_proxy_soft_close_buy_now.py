"""Issue 16 on the public bid call: proxy bids (hidden maxima), the soft close, buy now and the
exchange rate stored with every bid. Through the public calls, as the bid page sends them."""

from datetime import timedelta

import pytest
from sqlalchemy import select

from app.core.models import utcnow
from app.extensions import db
from app.mail.models import EmailMessage
from app.market.models import Advert, AdvertBid, AdvertMaximum
from tests.market._bid import (
    BUYER,
    MALMO,
    SELLER,
    bid_path,
    data_path,
    link,
    make_advert,
    new_address,
    page_path,
    parts,
    send,
    token,
)

# make_advert(bids=()): start 185 000 SEK, step 1 000; Fjordauto bids in NOK (1 SEK = 1.024 NOK).


@pytest.fixture
def client(demo_app):
    client = demo_app.test_client()
    client.environ_base["REMOTE_ADDR"] = new_address()
    return client


@pytest.fixture
def ad(demo_app):
    return make_advert(bids=())


def _post(client, ad, email, body, buy_now=False):
    ln = link(ad, email, "bid")
    csrf = token(client, page_path("bid", ad, ln))
    path = bid_path(ad, ln)
    if buy_now:  # the same three hashes under the buy-now call
        path = path.replace("/market-bid/", "/market-buy-now/")
    return send(client, "POST", path, body, csrf)


def bids_of(advert_id: int) -> list[AdvertBid]:
    return list(
        db.session.scalars(
            select(AdvertBid)
            .where(AdvertBid.advert_id == advert_id)
            .order_by(AdvertBid.id)
            .execution_options(all_instances=True, populate_existing=True)
        )
    )


def reload(advert_id: int) -> Advert:
    return db.session.execute(
        select(Advert)
        .where(Advert.id == advert_id)
        .execution_options(all_instances=True, populate_existing=True)
    ).scalar_one()


def test_a_maximum_alone_bids_the_next_bid_and_answers_a_later_bid_automatically(client, ad):
    # Malmö (SEK) sets a maximum of 200 000: the system bids the start price for it.
    first = _post(client, ad, MALMO, {"maximum": 200_000, "requestKey": "m1"})
    assert first.status_code == 201, first.json
    assert (first.json["leading"], first.json["maximum"]) == (True, 200_000)
    assert [(b.amount, b.automatic) for b in bids_of(ad.id)] == [(185_000, True)]

    # Fjordauto bids 195 000 NOK (= 190 429 SEK): Malmö's maximum answers at once, one step up.
    sent = utcnow()
    second = _post(client, ad, BUYER, {"bid": 195_000, "requestKey": "f1"})
    answered = utcnow()
    assert second.status_code == 201
    assert second.json["leading"] is False
    assert "outbid" in second.json["message"]
    bids = bids_of(ad.id)
    assert [(b.currency, b.advert_amount, b.automatic) for b in bids] == [
        ("SEK", 185_000, True),
        ("NOK", 190_429, False),
        ("SEK", 191_429, True),
    ]
    # The answer is made within the same call as the bid it answers.
    assert sent <= bids[1].created_at <= bids[2].created_at <= answered
    advert = reload(ad.id)
    assert (advert.highest_bid, advert.bid_count) == (191_429, 3)
    assert advert.highest_group_id == bids[0].group_id
    # Fjordauto's bidder is told by e-mail that a maximum outbid them.
    mails = db.session.scalars(
        select(EmailMessage).where(EmailMessage.kind == "market_outbid")
    ).all()
    assert [m.to_address for m in mails] == [BUYER]


def test_two_maxima_end_with_the_higher_one_step_above_the_lower(client, ad):
    _post(client, ad, MALMO, {"maximum": 200_000, "requestKey": "m1"})
    # Fjordauto's maximum 215 040 NOK = 210 000 SEK beats Malmö's 200 000.
    answer = _post(client, ad, BUYER, {"maximum": 215_040, "requestKey": "f1"})
    assert answer.status_code == 201
    assert answer.json["leading"] is True
    bids = bids_of(ad.id)
    # Malmö's maximum is spent (200 000), Fjordauto bids one step above it (201 000 SEK).
    assert [(b.currency, b.advert_amount) for b in bids[-2:]] == [
        ("SEK", 200_000),
        ("NOK", 201_000),
    ]
    assert all(b.automatic for b in bids)
    assert reload(ad.id).highest_bid == 201_000


def test_equal_maxima_go_to_the_earliest(client, ad):
    _post(client, ad, MALMO, {"maximum": 200_000, "requestKey": "m1"})
    answer = _post(client, ad, BUYER, {"maximum": 204_800, "requestKey": "f1"})  # = 200 000 SEK
    assert answer.json["leading"] is False
    advert = reload(ad.id)
    assert advert.highest_bid == 200_000
    assert advert.highest_group_id == bids_of(ad.id)[0].group_id  # Malmö, the earlier maximum


def test_a_maximum_can_only_be_raised_and_the_bidder_sees_it_in_their_currency(client, ad):
    _post(client, ad, BUYER, {"maximum": 250_000, "requestKey": "f1"})
    lower = _post(client, ad, BUYER, {"maximum": 240_000, "requestKey": "f2"})
    assert lower.status_code == 422
    assert lower.json["key"] == "MAXIMUM_LOWER"
    assert "250,000 NOK" in lower.json["message"]
    raised = _post(client, ad, BUYER, {"maximum": 260_000, "requestKey": "f3"})
    assert raised.status_code == 200  # leading already: the maximum is saved, no new bid
    assert raised.json["bid"] is None
    ln = link(ad, BUYER, "bid")
    data = client.get(data_path("bid", ad, ln)).json
    assert data["yourMaximum"] == {"amount": 260_000, "currency": "NOK"}


def test_the_seller_never_sees_a_maximum(client, ad):
    _post(client, ad, BUYER, {"maximum": 987_654, "requestKey": "f1"})
    seller_link = link(ad, SELLER, "seller")
    for action in ("allocate", "change-status"):
        assert "987654" not in client.get(data_path(action, ad, seller_link)).get_data(as_text=True)
        assert "987" not in client.get(page_path(action, ad, seller_link)).get_data(as_text=True)
    # The other bidder neither.
    other = link(ad, MALMO, "bid")
    assert "987654" not in client.get(data_path("bid", ad, other)).get_data(as_text=True)
    assert db.session.scalar(select(AdvertMaximum.amount)) is not None


def test_a_maximum_below_the_next_bid_is_refused(client, ad):
    answer = _post(client, ad, MALMO, {"maximum": 180_000, "requestKey": "m1"})
    assert answer.status_code == 422
    assert answer.json["key"] == "MAXIMUM_TOO_LOW"
    assert bids_of(ad.id) == []


def test_an_advert_without_proxy_bidding_refuses_a_maximum(client, ad):
    ad.proxy_bidding = False
    db.session.flush()
    answer = _post(client, ad, MALMO, {"bid": 185_000, "maximum": 200_000, "requestKey": "m1"})
    assert answer.status_code == 422
    assert answer.json["key"] == "PROXY_OFF"


def test_every_bid_stores_its_exchange_rate(client, ad):
    _post(client, ad, BUYER, {"bid": 190_464, "requestKey": "f1"})
    _post(client, ad, MALMO, {"bid": 190_000, "requestKey": "m1"})
    assert [(b.currency, str(b.rate.normalize())) for b in bids_of(ad.id)] == [
        ("NOK", "1.024"),
        ("SEK", "1"),
    ]


def test_a_late_bid_moves_the_end_and_the_state_call_shows_it(client, ad):
    ad.ends_at = utcnow() + timedelta(seconds=30)
    db.session.flush()
    sent = utcnow()
    answer = _post(client, ad, MALMO, {"bid": 185_000, "requestKey": "m1"})
    assert answer.status_code == 201
    assert answer.json["extended"] is True
    ends = reload(ad.id).ends_at
    # Two minutes after the bid: between the moment it was sent and now.
    assert sent + timedelta(seconds=120) <= ends <= utcnow() + timedelta(seconds=120)
    ln = link(ad, BUYER, "bid")
    state = client.get(f"/api/_public/market-advert/state/{parts(ad, ln)}")
    assert state.status_code == 200
    assert state.json["endsAt"] == ends.isoformat()
    assert state.json["bidCount"] == 1
    assert client.get(f"/api/_public/market-advert/state/{parts(ad, ln)}x").status_code == 404


def test_an_early_bid_leaves_the_end_alone(client, ad):
    before = ad.ends_at
    answer = _post(client, ad, MALMO, {"bid": 185_000, "requestKey": "m1"})
    assert answer.json["extended"] is False
    assert reload(ad.id).ends_at == before


def test_soft_close_off_leaves_the_end_alone(client, ad):
    ad.ends_at = utcnow() + timedelta(seconds=30)
    ad.soft_close_seconds = 0
    db.session.flush()
    before = ad.ends_at
    _post(client, ad, MALMO, {"bid": 185_000, "requestKey": "m1"})
    assert reload(ad.id).ends_at == before


def test_buy_now_ends_the_advert_for_the_first_taker_and_tells_the_second(client, ad):
    ad.buy_now_price = 230_000
    db.session.flush()
    ln = link(ad, BUYER, "bid")
    data = client.get(data_path("bid", ad, ln)).json
    assert data["buyNow"] == {"amount": 235_520, "currency": "NOK"}  # 230 000 x 1.024
    first = _post(client, ad, BUYER, {"requestKey": "b1"}, buy_now=True)
    assert first.status_code == 201, first.json
    advert = reload(ad.id)
    assert (advert.status, advert.allocated_price) == ("allocated", 230_000)
    assert advert.allocated_group_id == bids_of(ad.id)[0].group_id
    assert bids_of(ad.id)[0].buy_now is True
    again = _post(client, ad, BUYER, {"requestKey": "b1"}, buy_now=True)
    assert again.status_code == 200  # a double tap: the same answer, one bid
    second = _post(client, ad, MALMO, {"requestKey": "m1"}, buy_now=True)
    assert second.status_code == 422
    assert second.json["key"] == "BOUGHT_BY_OTHER"
    assert second.json["message"] == "Another buyer bought this vehicle first. Bidding has ended."
    assert len(bids_of(ad.id)) == 1
    mails = db.session.scalars(select(EmailMessage).where(EmailMessage.kind == "market_won")).all()
    assert [m.to_address for m in mails] == [BUYER]


def test_buy_now_closes_once_the_bids_pass_its_price(client, ad):
    ad.buy_now_price = 186_000
    db.session.flush()
    _post(client, ad, MALMO, {"bid": 186_000, "requestKey": "m1"})
    answer = _post(client, ad, BUYER, {"requestKey": "b1"}, buy_now=True)
    assert answer.status_code == 422
    assert answer.json["key"] == "BUY_NOW_CLOSED"
    assert client.get(data_path("bid", ad, link(ad, BUYER, "bid"))).json["buyNow"] is None
