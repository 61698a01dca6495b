"""Issue 16 in the seller's pages: the market settings keep the bidding rules' defaults, the
advert form starts from them and warns about old exchange rates before publishing, and the
advert page shows the rules, automatic bids and the rate of each bid."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from sqlalchemy import select, update

from app.core.models import utcnow
from app.extensions import db
from app.market.models import Advert, AdvertBid, ExchangeRate
from tests.helpers import page_text
from tests.market._admin import field_error, field_value
from tests.market._adverts import demo_login, nordbil
from tests.market.test_adverts import form_values
from tests.market.test_market_admin import settings_form


def visible(response) -> str:
    """The page's text without tags, spaces collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", page_text(response)).split())


@pytest.fixture
def as_demo(demo_client):
    return demo_login(demo_client)


def test_the_settings_keep_the_bidding_rules_and_new_adverts_start_from_them(as_demo):
    group = nordbil()
    client, token = as_demo("admin")
    answer = client.post(
        "/market/settings",
        data=settings_form(token, soft_close_seconds="90", rate_max_age_days="3"),
    )  # proxy_bidding unticked: a checkbox left empty is not sent
    assert answer.status_code == 302
    db.session.expire_all()
    saved = db.session.get(type(group), group.id)
    assert (saved.proxy_bidding, saved.soft_close_seconds, saved.rate_max_age_days) == (
        False,
        90,
        3,
    )
    html = client.get("/market/settings").get_data(as_text=True)
    assert field_value(html, "soft_close_seconds") == "90"

    seller, token = as_demo("seller")
    form = seller.get("/market/advert/add").get_data(as_text=True)
    assert field_value(form, "soft_close_seconds") == "90"
    assert 'id="proxy_bidding" name="proxy_bidding" type="checkbox" value="y">' in form


def test_a_bad_soft_close_is_refused_and_kept(as_demo):
    client, token = as_demo("admin")
    page = client.post("/market/settings", data=settings_form(token, soft_close_seconds="-5"))
    assert page.status_code == 422
    html = page.get_data(as_text=True)
    assert "from 0 to 3" in field_error(html, "soft_close_seconds")
    assert field_value(html, "soft_close_seconds") == "-5"


def test_an_advert_takes_its_rules_and_a_buy_now_price_above_the_start(as_demo):
    client, token = as_demo("seller")
    low = client.post(
        "/market/advert/add", data=form_values(token, buy_now_price="200 000", proxy_bidding="y")
    )
    assert low.status_code == 422
    assert "above the start price" in field_error(low.get_data(as_text=True), "buy_now_price")
    answer = client.post(
        "/market/advert/add",
        data=form_values(
            token, buy_now_price="260 000", proxy_bidding="y", soft_close_seconds="300"
        ),
    )
    assert answer.status_code == 302
    advert = db.session.scalars(select(Advert).where(Advert.regno == "ABC123")).one()
    assert (advert.proxy_bidding, advert.soft_close_seconds, advert.buy_now_price) == (
        True, 300, 260_000,
    )  # fmt: skip
    page = visible(client.get(f"/market/adverts/{advert.id}"))
    assert "Proxy bids On" in page
    assert "Soft close 300 seconds" in page
    assert "Buy-now price 260,000 SEK" in page


def test_the_advert_form_warns_about_an_old_exchange_rate(as_demo):
    group = nordbil()
    client, _token = as_demo("seller")
    assert "older than 7 days" not in page_text(client.get("/market/advert/add"))
    db.session.execute(
        update(ExchangeRate)
        .where(ExchangeRate.instance_id == group.instance_id, ExchangeRate.to_currency == "NOK")
        .values(modified_at=utcnow() - timedelta(days=12))
    )
    db.session.flush()
    text = page_text(client.get("/market/advert/add"))
    assert "An exchange rate is older than 7 days" in text
    assert "SEK to NOK, last changed" in text
    assert "SEK to EUR" not in text


def test_the_sellers_advert_page_shows_the_rate_of_a_bid_in_another_currency(as_demo):
    client, _token = as_demo("seller")
    bid = db.session.scalars(
        select(AdvertBid).where(AdvertBid.currency == "NOK").order_by(AdvertBid.id)
    ).first()
    assert bid.rate == Decimal("1.024")  # the demo's bids keep their rates
    text = page_text(client.get(f"/market/adverts/{bid.advert_id}"))
    assert "rate 1.024" in text


def test_the_buyers_advert_page_writes_the_rate_and_time_as_its_language_does(demo_client):
    from tests.helpers import sign_in
    from tests.market._adverts import demo_user

    buyer = demo_user("buyer@demo.test")
    buyer.options = {**(buyer.options or {}), "language": "nb-NO"}
    db.session.flush()
    sign_in(demo_client, buyer)
    bid = db.session.scalars(
        select(AdvertBid)
        .where(AdvertBid.currency == "NOK", AdvertBid.rate.is_not(None))
        .order_by(AdvertBid.id)
        .execution_options(all_instances=True)
    ).first()
    text = page_text(demo_client.get(f"/market/adverts/{bid.advert_id}"))
    assert "kurs 1,024" in text and "kurs 1.024" not in text
    # The date and the time of a bid each stay whole when the narrow column wraps.
    assert re.search(r'<td><span class="nowrap">\d{4}-\d\d-\d\d</span> <span class="nowrap">', text)
