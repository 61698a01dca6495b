"""The market's own pages for signed-in users: dashboard, statistics, settings, invites and
vehicle requests, on the demo data (Nordbil sells in SEK; Fjordauto buys in NOK)."""

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import delete, func, select

from app.auth.models import User
from app.core.models import Instance, utcnow
from app.core.roles import ROLE_CCMARKET_ADMIN, ROLE_CCMARKET_STATISTICS
from app.core.tenancy import activate
from app.extensions import db
from app.mail.models import EmailMessage
from app.market.groups import add_partner
from app.market.models import (
    Advert,
    AdvertBid,
    ExchangeRate,
    MarketInvite,
    VehicleRequest,
)
from app.market.rates import currency_table, rates_from
from tests.helpers import message_key, page_text
from tests.market._admin import (
    QueryCounter,
    demo_user,
    field_error,
    field_value,
    group_named,
    make_advert,
    make_group,
    make_user,
    sign_in_as,
    text_of,
    tile,
    tile_detail,
)


@pytest.fixture
def as_demo(demo_client):
    """Sign the demo client in as a demo user: `as_demo("seller")` → (client, csrf token)."""
    return lambda name: sign_in_as(demo_client, demo_user(f"{name}@demo.test"))


@pytest.fixture
def as_user(demo_client):
    """Sign the demo client in as any user: `as_user(user)` → (client, csrf token)."""
    return lambda user: sign_in_as(demo_client, user)


PAGES = (
    "/market/dashboard",
    "/market/statistics",
    "/market/settings",
    "/market/invites",
    "/market/vehicle-requests",
    "/market/vehicle-request/add",
)


def nordbil():
    return group_named("Nordbil AB")


def fjordauto():
    return group_named("Fjordauto AS")


def all_adverts():
    return db.session.scalars(
        select(Advert).order_by(Advert.id).execution_options(all_instances=True)
    ).all()


def all_bids():
    return db.session.scalars(select(AdvertBid).execution_options(all_instances=True)).all()


def grouped(amount: int, currency: str) -> str:
    return f"{amount:,} {currency}"


# --- who sees which page -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "expected"),
    [
        # The seller has ROLE_CCMARKET_STATISTICS but no market admin role and does not buy.
        ("seller", (200, 200, 403, 200, 200, 403)),
        # The buyer has no statistics or admin role, and does not sell (no invites).
        ("buyer", (200, 403, 403, 403, 200, 200)),
        # The admin works in Nordbil's instance: a seller, so no new vehicle request.
        ("admin", (200, 200, 200, 200, 200, 403)),
    ],
)
def test_each_page_answers_by_the_menu_rules(as_demo, who, expected):
    client, _token = as_demo(who)
    assert tuple(client.get(path).status_code for path in PAGES) == expected


def test_a_buyer_with_the_market_admin_role_opens_the_settings(as_demo):
    buyer = demo_user("buyer@demo.test")
    buyer.roles = [*buyer.roles, ROLE_CCMARKET_ADMIN]
    db.session.flush()
    client, _token = as_demo("buyer")
    page = client.get("/market/settings?lang=en-GB")
    assert page.status_code == 200
    text = page_text(page)
    # Rates lead from the buyer's own currency (NOK) to the three others.
    for label in ("1 NOK in SEK", "1 NOK in DKK", "1 NOK in EUR"):
        assert label in text
    assert "1 NOK in NOK" not in text


def test_statistics_need_the_role_and_a_market_company(as_user):
    group = nordbil()
    without_role = make_user("plain@nordbil.test", group.instance_id)
    client, _token = as_user(without_role)
    assert client.get("/market/statistics").status_code == 403
    assert "/market/statistics" not in client.get("/market/dashboard").get_data(as_text=True)

    lonely = make_group("Utan Marknad AB", buyer=False, seller=False)
    user = make_user(
        "stats@nomarket.test", lonely.instance_id, roles=["ROLE_USER", ROLE_CCMARKET_STATISTICS]
    )
    client, _token = as_user(user)
    assert client.get("/market/statistics").status_code == 403


def test_a_company_without_market_presence_gets_a_clear_dashboard(as_user, demo_app):
    from app.core.models import Instance

    instance = Instance(company_name="Ingen Marknad AB")
    db.session.add(instance)
    db.session.flush()
    user = make_user("nobody@nomarket.test", instance.id)
    client, _token = as_user(user)
    page = client.get("/market/dashboard")
    assert page.status_code == 200
    assert "Your company is not on the market yet" in page_text(page)
    assert 'class="market-tile' not in page.get_data(as_text=True)
    for path in PAGES[1:]:
        assert client.get(path).status_code == 403, path


@pytest.fixture(autouse=True)
def _no_demo_vehicle_requests(request, _transaction):
    """These tests count vehicle requests from none: the demo's are removed (inside the test's
    rolled-back transaction)."""
    if "demo_app" in request.fixturenames:
        db.session.execute(delete(VehicleRequest).execution_options(all_instances=True))


# --- dashboard ---------------------------------------------------------------------------------


def test_the_seller_dashboard_counts_match_the_demo_adverts(as_demo):
    group, now = nordbil(), utcnow()
    month = datetime(now.year, now.month, 1, tzinfo=UTC)
    adverts = [a for a in all_adverts() if a.seller_group_id == group.id]
    ids = {a.id for a in adverts}
    open_ = [a for a in adverts if a.status == "published" and a.ends_at > now]
    ended = [
        a
        for a in adverts
        if a.bid_count and (a.status == "closed" or (a.status == "published" and a.ends_at <= now))
    ]
    # Ended under the reserve, waiting for the seller's decision: awaiting too.
    deciding = [a for a in adverts if a.status == "provisional" and a.counter_price is None]
    assert deciding  # the demo's provisional sale
    sold = [a for a in adverts if a.status == "sold" and a.sold_at >= month]
    week = [b for b in all_bids() if b.advert_id in ids and b.created_at >= now - timedelta(7)]

    client, _token = as_demo("seller")
    html = client.get("/market/dashboard").get_data(as_text=True)
    assert tile(html, "Adverts open for bids") == str(len(open_)) == "3"
    assert tile(html, "Bids in the last 7 days") == str(len(week))
    assert tile(html, "Ended with bids, to allocate or decide") == str(len(ended + deciding))
    assert tile(html, "Allocated, awaiting sale") == "1"
    assert tile(html, "Requests from your buyers") == "0"  # the fixture below
    assert tile(html, "Sold this month") == str(len(sold))
    assert tile_detail(html, "Sold this month") == grouped(
        sum(a.allocated_price for a in sold), "SEK"
    )
    # The tiles lead to the lists they count.
    assert 'href="/market/adverts/my-assigned"' in html
    assert 'href="/market/adverts/my-sold"' in html
    assert 'href="/market/invites"' in html


def test_the_buyer_dashboard_counts_match_the_demo_adverts(as_demo):
    group, now = fjordauto(), utcnow()
    month = datetime(now.year, now.month, 1, tzinfo=UTC)
    adverts = all_adverts()
    best = {}
    for bid in sorted(all_bids(), key=lambda b: b.advert_amount):
        best[bid.advert_id] = bid.group_id
    open_ = [a for a in adverts if a.status == "published" and a.ends_at > now]
    leading = [a for a in open_ if best.get(a.id) == group.id]
    deals = [
        a
        for a in adverts
        if a.status == "sold" and a.allocated_group_id == group.id and a.sold_at >= month
    ]

    client, _token = as_demo("buyer")
    html = client.get("/market/dashboard?lang=en-GB").get_data(as_text=True)
    assert tile(html, "Open adverts from your sellers") == str(len(open_)) == "3"
    assert tile(html, "Adverts where you lead") == str(len(leading)) == "1"
    assert tile(html, "Allocated to you") == "1"
    assert tile(html, "Deals this month") == str(len(deals))
    # The buyer's view of the adverts ending soonest names the seller and marks its lead.
    ending = text_of(html.split("Adverts ending soonest", 1)[1])
    assert "Nordbil AB" in ending
    assert ending.count("You lead") == len(leading)


def test_the_dashboard_lists_the_five_adverts_ending_soonest_in_order(as_demo):
    group, now = nordbil(), utcnow()
    for hours in (30, 10, 20, 40, 50, 60):
        make_advert(group, regno=f"END{hours}", ends_at=now + timedelta(hours=hours))
    make_advert(group, regno="ENDED1", ends_at=now - timedelta(hours=1))
    make_advert(group, status="draft", regno="DRAFT1", ends_at=now + timedelta(hours=1))

    client, _token = as_demo("seller")
    html = client.get("/market/dashboard").get_data(as_text=True)
    table = html.split("Your adverts ending soonest", 1)[1].split("</table>", 1)[0]
    regnos = re.findall(r'<span class="market-regno">([^<]+)</span>', table)
    assert regnos == ["END10", "END20", "END30", "END40", "END50"]


def test_another_sellers_adverts_are_not_counted_for_the_buyer(as_demo):
    """An advert of a seller the buyer has not accepted is neither counted nor listed."""
    stranger = make_group("Främling Bil AB", buyer=False, seller=True)
    make_advert(stranger, regno="STRANGE1", ends_at=utcnow() + timedelta(hours=1))
    client, _token = as_demo("buyer")
    html = client.get("/market/dashboard?lang=en-GB").get_data(as_text=True)
    assert tile(html, "Open adverts from your sellers") == "3"
    assert "STRANGE1" not in html
    assert "Främling" not in html


# --- statistics --------------------------------------------------------------------------------


def test_seller_statistics_show_the_months_and_the_buyer_companies(as_demo):
    now = utcnow()
    client, _token = as_demo("seller")
    page = client.get("/market/statistics")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    monthly = html.split('id="table-selling"', 1)[1].split("</table>", 1)[0]
    assert "<caption" in monthly
    assert len(re.findall(r'<th scope="row">', monthly)) == 12

    adverts = [a for a in all_adverts() if a.seller_group_id == nordbil().id]
    published_now = [
        a
        for a in adverts
        if a.published_at and a.published_at.strftime("%Y-%m") == now.strftime("%Y-%m")
    ]
    first_row = text_of(monthly.split("<tbody>", 1)[1].split("</tr>", 1)[0])
    assert first_row.startswith(now.strftime("%b %Y")[:3])
    assert first_row.split()[2] == str(len(published_now))

    buyers = text_of(html.split('id="table-buyers"', 1)[1].split("</table>", 1)[0])
    for name in ("Fjordauto AS", "Malmö Bilcenter AB"):
        assert name in buyers
    fjord_bids = len([b for b in all_bids() if b.group_id == fjordauto().id])
    assert f"Fjordauto AS {fjord_bids} 1 " in buyers
    # The seller's statistics show no buyer's own table.
    assert 'id="table-buying"' not in html


def test_buyer_statistics_show_bids_won_and_spent_in_its_currency(as_demo):
    buyer = demo_user("buyer@demo.test")
    buyer.roles = [*buyer.roles, ROLE_CCMARKET_STATISTICS]
    db.session.flush()
    group = fjordauto()
    won = [a for a in all_adverts() if a.allocated_group_id == group.id]
    rate = rates_from(nordbil().instance_id, "SEK")["NOK"]
    spent = sum(round(Decimal(a.allocated_price) * rate) for a in won)

    client, _token = as_demo("buyer")
    page = client.get("/market/statistics?lang=en-GB")
    assert page.status_code == 200
    text = text_of(page.get_data(as_text=True))
    assert f"Adverts won {len(won)} Spent {grouped(spent, 'NOK')}" in text
    sellers = text_of(page.get_data(as_text=True).split('id="table-sellers"', 1)[1])
    bids = len([b for b in all_bids() if b.group_id == group.id])
    assert sellers.split("</table>")[0].startswith("Nordbil AB") or "Nordbil AB" in sellers
    assert f"Nordbil AB {bids} {len(won)}" in sellers


# --- settings ----------------------------------------------------------------------------------


def settings_form(token: str, **values) -> dict:
    form = {
        "csrf_token": token,
        "rate_NOK": "1.024",
        "rate_DKK": "0.648",
        "rate_EUR": "0.0868",
        "bid_step": "1000",
        "invite_terms": "Terms.",
    }
    form.update(values)
    return form


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("rate_NOK", "abc", "at most six decimals"),
        ("rate_NOK", "-1", "at most six decimals"),
        ("rate_NOK", "0", "at most six decimals"),
        ("rate_EUR", "0.1234567", "at most six decimals"),
        ("rate_DKK", "100000000", "at most six decimals"),
        ("bid_step", "0", "from 1 to"),
        ("bid_step", "12.5", "whole number"),
        ("bid_step", "", "FIELD_REQUIRED"),
        ("invite_terms", "x" * 5001, "5000"),
    ],
)
def test_settings_refuse_bad_values_and_keep_the_input(as_demo, field, value, message):
    group = nordbil()
    before = {c: Decimal(r) for c, r in _rates(group).items()}
    client, token = as_demo("admin")
    page = client.post("/market/settings", data=settings_form(token, **{field: value}))
    assert page.status_code == 422
    html = page.get_data(as_text=True)
    error = field_error(html, field) or ""
    if message == "FIELD_REQUIRED":
        assert message_key(page, field) == "FIELD_REQUIRED"
    else:
        assert message in error
    if field != "invite_terms":
        assert field_value(html, field) == value
    # Nothing is saved: the other (valid) fields did not reach the database either.
    db.session.expire_all()
    assert {c: Decimal(r) for c, r in _rates(group).items()} == before
    assert db.session.get(type(group), group.id).invite_terms != "Terms."


def _rates(group) -> dict[str, Decimal]:
    rows = db.session.scalars(
        select(ExchangeRate)
        .where(ExchangeRate.instance_id == group.instance_id)
        .execution_options(all_instances=True)
    )
    return {r.to_currency: r.rate for r in rows}


def test_settings_save_rates_bid_step_and_terms(as_demo):
    group = nordbil()
    client, token = as_demo("admin")
    answer = client.post(
        "/market/settings",
        data=settings_form(
            token,
            rate_NOK="1,05",  # a comma is read as the decimal point
            rate_DKK="",  # emptied: the rate is removed
            rate_EUR=" 0.091234 ",
            bid_step="2 500",
            invite_terms="  Pay within 5 days.  ",
        ),
    )
    assert answer.status_code == 302
    assert answer.headers["Location"].endswith("/market/settings")
    db.session.expire_all()
    assert _rates(group) == {"NOK": Decimal("1.05"), "EUR": Decimal("0.091234")}
    saved = db.session.get(type(group), group.id)
    assert saved.bid_step == 2500
    assert saved.invite_terms == "Pay within 5 days."

    # The bid page's currency table now uses the new rates.
    assert rates_from(group.instance_id, "SEK") == {
        "SEK": Decimal(1),
        "EUR": Decimal("0.091234"),
        "NOK": Decimal("1.05"),
    }
    advert = make_advert(group, start_price=100_000)
    table = currency_table(advert)
    assert {r["currency"]: r["nextBid"] for r in table["exchangeRates"]} == {
        "SEK": 100_000,
        "EUR": 9124,
        "NOK": 105_000,
    }

    # The page shows what was saved, and a rate can be added back.
    page = client.get("/market/settings")
    html = page.get_data(as_text=True)
    assert "The market settings are saved." in page_text(page)
    assert field_value(html, "rate_NOK") == "1.05"
    assert field_value(html, "rate_DKK") == ""
    assert field_value(html, "bid_step") == "2500"
    client.post("/market/settings", data=settings_form(token, rate_DKK="0.66"))
    db.session.expire_all()
    assert _rates(group)["DKK"] == Decimal("0.66")


# --- invites -----------------------------------------------------------------------------------


def invite_form(token: str, **values) -> dict:
    form = {
        "csrf_token": token,
        "existing_group": "",
        "company_name": "Bergen Bil AS",
        "company_id": "912345678",
        "email": "Kontakt@BergenBil.test",
        "language": "en-GB",
    }
    form.update(values)
    return form


def test_inviting_a_company_stores_and_mails_the_invite_once(as_demo):
    group = nordbil()
    client, token = as_demo("seller")
    answer = client.post("/market/invites", data=invite_form(token))
    assert answer.status_code == 302
    invite = db.session.scalars(
        select(MarketInvite)
        .where(MarketInvite.email == "kontakt@bergenbil.test")
        .execution_options(all_instances=True)
    ).one()
    assert (invite.seller_group_id, invite.company_name, invite.company_id, invite.language) == (
        group.id,
        "Bergen Bil AS",
        "912345678",
        "en-GB",
    )
    mail = db.session.scalars(
        select(EmailMessage).where(EmailMessage.to_address == "kontakt@bergenbil.test")
    ).one()
    assert invite.hash in mail.body_text

    page = client.get("/market/invites")
    text = page_text(page)
    assert "Bergen Bil AS is invited" in text
    rows = page.get_data(as_text=True).split("Invitations sent", 1)[1].split("</tr>")
    row = text_of(next(r for r in rows if "Bergen Bil AS" in r))
    assert "kontakt@bergenbil.test" in row and "English" in row and "Open" in row

    # The same address again (in other letters) while the first is open: refused, kept.
    again = client.post("/market/invites", data=invite_form(token, email="kontakt@bergenbil.TEST"))
    assert again.status_code == 422
    html = again.get_data(as_text=True)
    assert "already open" in field_error(html, "email")
    assert field_value(html, "company_name") == "Bergen Bil AS"
    count = db.session.scalar(
        select(func.count(MarketInvite.id))
        .where(func.lower(MarketInvite.email) == "kontakt@bergenbil.test")
        .execution_options(all_instances=True)
    )
    assert count == 1


@pytest.mark.parametrize(
    ("values", "field", "key"),
    [
        ({"email": ""}, "email", "FIELD_REQUIRED"),
        ({"email": "not-an-address"}, "email", "INVALID_EMAIL"),
        ({"company_name": ""}, "company_name", "FIELD_REQUIRED"),
        ({"company_name": "x" * 201}, "company_name", "FIELD_TOO_LONG"),
    ],
)
def test_an_invite_with_bad_input_is_refused(as_demo, values, field, key):
    client, token = as_demo("seller")
    before = db.session.scalar(
        select(func.count(MarketInvite.id)).execution_options(all_instances=True)
    )
    page = client.post("/market/invites", data=invite_form(token, **values))
    assert page.status_code == 422
    assert message_key(page, field) == key
    after = db.session.scalar(
        select(func.count(MarketInvite.id)).execution_options(all_instances=True)
    )
    assert after == before


def test_an_existing_company_is_offered_by_name_only(as_demo):
    other = make_group("Trondheim Bilsalg AS", buyer=True, currency="NOK")
    other.company_id, other.contact_email = "998877665", "secret@trondheim.test"
    not_buyer = make_group("Kun Selger AS", buyer=False, seller=True)
    db.session.flush()

    client, token = as_demo("seller")
    # A company is offered when the seller's user works for it too (what the seller knows).
    seller = db.session.scalars(
        select(User).where(User.email == "seller@demo.test").execution_options(all_instances=True)
    ).one()
    seller.instances = [
        *seller.instances,
        *(db.session.get(Instance, g.instance_id) for g in (other, not_buyer)),
    ]
    db.session.flush()
    html = client.get("/market/invites").get_data(as_text=True)
    select_html = html.split('id="existing_group"', 1)[1].split("</select>", 1)[0]
    options = re.findall(r"<option[^>]*>([^<]*)</option>", select_html)
    assert "Trondheim Bilsalg AS" in options
    # Partners already trading and companies that do not buy are not offered.
    assert "Fjordauto AS" not in options and "Kun Selger AS" not in options
    assert "998877665" not in html and "secret@trondheim.test" not in html

    # A company not offered cannot be chosen by its id.
    refused = client.post(
        "/market/invites", data=invite_form(token, existing_group=str(not_buyer.id))
    )
    assert refused.status_code == 422
    assert "Choose a company from the list." in field_error(
        refused.get_data(as_text=True), "existing_group"
    )

    answer = client.post(
        "/market/invites",
        data=invite_form(token, existing_group=str(other.id), company_name="", email="a@t.test"),
    )
    assert answer.status_code == 302
    invite = db.session.scalars(
        select(MarketInvite)
        .where(MarketInvite.email == "a@t.test")
        .execution_options(all_instances=True)
    ).one()
    assert (invite.invited_group_id, invite.company_name) == (other.id, "Trondheim Bilsalg AS")


def test_the_invites_page_lists_the_partners_and_only_this_sellers_invites(as_demo):
    stranger = make_group("Annan Säljare AB", buyer=False, seller=True)
    activate(stranger.instance_id)
    db.session.add(
        MarketInvite(
            seller_group_id=stranger.id,
            company_name="Hemlig Kund AB",
            email="hemlig@kund.test",
        )
    )
    db.session.flush()
    activate(None)
    client, _token = as_demo("seller")
    text = page_text(client.get("/market/invites"))
    partners = text.split("Your buyers", 1)[1].split("Invitations sent", 1)[0]
    assert "Fjordauto AS" in partners and "Malmö Bilcenter AB" in partners
    assert "Vestkyst Bil AS" in text  # the demo's open invite
    assert "Hemlig Kund AB" not in text and "hemlig@kund.test" not in text


# --- vehicle requests --------------------------------------------------------------------------


def request_form(token: str, **values) -> dict:
    form = {
        "csrf_token": token,
        "brand": "Saab",
        "model": "9-3",
        "model_year_from": "2008",
        "model_year_to": "2011",
        "max_mileage": "150 000",
        "max_price": "90000",
        "notes": "Convertible, any colour.",
    }
    form.update(values)
    return form


def request_card(html: str, title: str) -> str:
    for card in re.findall(r'<li class="card market-request[^"]*">(.*?)</li>', html, re.S):
        if f"<h3>{title}</h3>" in card:
            return text_of(card)
    raise AssertionError(f"no request card {title!r}")


def test_a_buyer_adds_a_request_and_its_partner_seller_sees_it(as_demo, as_user):
    group = fjordauto()
    client, token = as_demo("buyer")
    answer = client.post("/market/vehicle-request/add", data=request_form(token))
    assert answer.status_code == 302
    saved = db.session.scalars(select(VehicleRequest).execution_options(all_instances=True)).one()
    assert (saved.group_id, saved.instance_id, saved.currency) == (
        group.id,
        group.instance_id,
        "NOK",
    )
    assert (saved.model_year_from, saved.model_year_to, saved.max_mileage, saved.max_price) == (
        2008,
        2011,
        150_000,
        90_000,
    )
    mine = request_card(
        client.get("/market/vehicle-requests?lang=en-GB").get_data(as_text=True), "Saab 9-3"
    )
    assert "Active" in mine and "2008–2011" in mine and "90 000 NOK" in mine.replace(",", " ")

    # The partner seller sees it, with its own matching adverts (brand and model, any case).
    seller = nordbil()
    make_advert(seller, brand="SAAB", model="9-3")
    make_advert(seller, status="draft", brand="Saab", model="9-3")
    make_advert(seller, status="withdrawn", brand="Saab", model="9-3")
    make_advert(seller, brand="Saab", model="9-5")
    client, _token = as_demo("seller")
    card = request_card(client.get("/market/vehicle-requests").get_data(as_text=True), "Saab 9-3")
    assert "Fjordauto AS" in card
    assert "2 matching adverts" in card
    # Its dashboard counts the partners' active requests, not those of other buyers.
    outsider = make_group("Utomstående Köpare AB")
    activate(outsider.instance_id)
    db.session.add(VehicleRequest(group_id=outsider.id, brand="Saab", currency="SEK"))
    db.session.flush()
    activate(None)
    dashboard = client.get("/market/dashboard").get_data(as_text=True)
    assert tile(dashboard, "Requests from your buyers") == "1"

    # A seller the buyer has not accepted does not see it.
    stranger = make_group("Främling Bil AB", buyer=False, seller=True)
    user = make_user("seller@framling.test", stranger.instance_id)
    client, _token = as_user(user)
    page = client.get("/market/vehicle-requests")
    assert page.status_code == 200
    assert "Saab" not in page_text(page) and "Fjordauto" not in page_text(page)


def test_a_request_without_a_model_matches_every_advert_of_the_brand(as_demo):
    seller = nordbil()
    make_advert(seller, brand="Lancia", model="Delta")
    make_advert(seller, brand="lancia", model="Ypsilon")
    client, token = as_demo("buyer")
    client.post("/market/vehicle-request/add", data=request_form(token, brand="Lancia", model=""))
    client, _token = as_demo("seller")
    card = request_card(client.get("/market/vehicle-requests").get_data(as_text=True), "Lancia")
    assert "2 matching adverts" in card


@pytest.mark.parametrize(
    ("values", "field", "message"),
    [
        ({"brand": ""}, "brand", "FIELD_REQUIRED"),
        (
            {"model_year_from": "2015", "model_year_to": "2012"},
            "model_year_to",
            "cannot come before",
        ),
        ({"model_year_from": "1850"}, "model_year_from", "from 1900 to"),
        ({"model_year_to": str(utcnow().year + 5)}, "model_year_to", "from 1900 to"),
        ({"max_mileage": "-5"}, "max_mileage", "from 0 to"),
        ({"max_price": "lots"}, "max_price", "whole number"),
        ({"notes": "x" * 1001}, "notes", "FIELD_TOO_LONG"),
    ],
)
def test_a_request_with_bad_input_is_refused_and_kept(as_demo, values, field, message):
    client, token = as_demo("buyer")
    page = client.post("/market/vehicle-request/add?lang=en-GB", data=request_form(token, **values))
    assert page.status_code == 422
    html = page.get_data(as_text=True)
    if message.isupper():
        assert message_key(page, field) == message
    else:
        assert message in field_error(html, field)
    assert field_value(html, "brand") == values.get("brand", "Saab")
    if field != "notes":
        assert field_value(html, field) == values[field]
    assert (
        db.session.scalar(
            select(func.count(VehicleRequest.id)).execution_options(all_instances=True)
        )
        == 0
    )


def test_closing_and_reopening_a_request(as_demo):
    client, token = as_demo("buyer")
    client.post("/market/vehicle-request/add", data=request_form(token))
    saved = db.session.scalars(select(VehicleRequest).execution_options(all_instances=True)).one()
    answer = client.post(f"/market/vehicle-requests/{saved.id}/close", data={"csrf_token": token})
    assert answer.status_code == 302
    db.session.expire_all()
    assert saved.active is False
    seller, _token = as_demo("seller")
    assert "Saab" not in page_text(seller.get("/market/vehicle-requests"))

    client, token = as_demo("buyer")
    card = request_card(
        client.get("/market/vehicle-requests?lang=en-GB").get_data(as_text=True), "Saab 9-3"
    )
    assert "Closed" in card and "Open again" in card
    client.post(f"/market/vehicle-requests/{saved.id}/reopen", data={"csrf_token": token})
    db.session.expire_all()
    assert saved.active is True


def test_another_companys_request_cannot_be_closed(as_demo):
    malmo = group_named("Malmö Bilcenter AB")
    activate(malmo.instance_id)
    theirs = VehicleRequest(group_id=malmo.id, brand="Audi", currency="SEK", active=True)
    db.session.add(theirs)
    db.session.flush()
    activate(None)
    client, token = as_demo("buyer")
    for action in ("close", "reopen"):
        answer = client.post(
            f"/market/vehicle-requests/{theirs.id}/{action}", data={"csrf_token": token}
        )
        assert answer.status_code == 404
    assert (
        client.post(
            "/market/vehicle-requests/999999999/close", data={"csrf_token": token}
        ).status_code
        == 404
    )
    db.session.expire_all()
    assert theirs.active is True
    # Nor is it listed among the buyer's own.
    assert "Audi" not in page_text(client.get("/market/vehicle-requests"))


def test_a_seller_cannot_add_or_close_requests(as_demo):
    client, token = as_demo("seller")
    assert client.post("/market/vehicle-request/add", data=request_form(token)).status_code == 403
    assert (
        client.post("/market/vehicle-requests/1/close", data={"csrf_token": token}).status_code
        == 403
    )


# --- queries stay constant ---------------------------------------------------------------------


def _queries(client, path: str) -> int:
    client.get(path)  # warm the shell's caches
    with QueryCounter() as counter:
        assert client.get(path).status_code == 200
    return counter.count


def _grow_the_market() -> None:
    """More adverts, bids, partners, invites and requests on both sides."""
    seller, buyer = nordbil(), fjordauto()
    for n in range(6):
        advert = make_advert(seller, brand="Saab", model="9-3", bid_count=1, highest_bid=120_000)
        activate(seller.instance_id)
        db.session.add(
            AdvertBid(
                advert_id=advert.id, group_id=buyer.id, request_key=f"grow-{n}", amount=123_000,
                currency="NOK", advert_amount=120_000,
            )
        )  # fmt: skip
        db.session.flush()
        activate(None)
    for n in range(3):
        other = make_group(f"Ny Köpare {n} AB")
        add_partner(seller.id, other.id)
        activate(other.instance_id)
        db.session.add(VehicleRequest(group_id=other.id, brand="Saab", currency="SEK"))
        db.session.flush()
        activate(seller.instance_id)
        db.session.add(
            MarketInvite(seller_group_id=seller.id, company_name=f"Ny {n}", email=f"n{n}@t.test")
        )
        db.session.flush()
        activate(None)
    other_seller = make_group("Annan Säljare AB", buyer=False, seller=True)
    add_partner(other_seller.id, buyer.id)
    make_advert(other_seller, brand="Saab")
    activate(buyer.instance_id)
    db.session.add(VehicleRequest(group_id=buyer.id, brand="Saab", currency="NOK"))
    db.session.flush()
    activate(None)


def test_queries_do_not_grow_with_the_market(as_demo):
    buyer = demo_user("buyer@demo.test")
    buyer.roles = [*buyer.roles, ROLE_CCMARKET_STATISTICS]
    db.session.flush()
    pages = {
        "seller": ("/market/dashboard", "/market/statistics", "/market/invites", "/market/vehicle-requests"),
        "buyer": ("/market/dashboard", "/market/statistics", "/market/vehicle-requests", "/market/vehicle-request/add"),
        "admin": ("/market/settings",),
    }  # fmt: skip
    before = {}
    for who, paths in pages.items():
        client, _token = as_demo(who)
        before.update({(who, p): _queries(client, p) for p in paths})
    _grow_the_market()
    after = {}
    for who, paths in pages.items():
        client, _token = as_demo(who)
        after.update({(who, p): _queries(client, p) for p in paths})
    assert after == before


def test_statistics_put_each_advert_in_its_utc_month(as_user):
    """Grouping by month happens in the database (SQLite and PostgreSQL alike): an advert sold
    at 23:30 UTC on the last day of a month counts in that month, not the next."""
    from app.market.statistics import seller_statistics, twelve_months

    assert twelve_months(datetime(2026, 1, 15).date())[0] == datetime(2025, 2, 1).date()
    assert twelve_months(datetime(2026, 1, 15).date())[-1] == datetime(2026, 1, 1).date()

    group = make_group("Månadsbil AB", buyer=False, seller=True)
    today = utcnow().date()
    months = twelve_months(today)
    previous = months[-2]  # last month
    last_day = datetime(months[-1].year, months[-1].month, 1, tzinfo=UTC) - timedelta(minutes=30)
    first_day = datetime(previous.year, previous.month, 1, tzinfo=UTC)
    for price, start in ((110_000, 100_000), (130_000, 100_000)):
        make_advert(
            group, status="sold", start_price=start, allocated_price=price, bid_count=3,
            published_at=first_day, sold_at=last_day, allocated_at=last_day,
        )  # fmt: skip
    make_advert(group, published_at=first_day - timedelta(days=400))  # older than a year

    stats = seller_statistics(group, today)
    row = stats.months[-2]
    assert (row.month, row.published, row.sold, row.sold_value) == (previous, 2, 2, 240_000)
    assert (row.average_bids, row.average_price, row.average_start) == (3.0, 120_000, 100_000)
    assert round(row.price_change, 1) == 20.0
    assert stats.months[-1].sold == 0
    assert sum(m.published for m in stats.months) == 2

    user = make_user(
        "stats@manadsbil.test", group.instance_id, roles=["ROLE_USER", ROLE_CCMARKET_STATISTICS]
    )
    client, _token = as_user(user)
    text = text_of(client.get("/market/statistics?lang=en-GB").get_data(as_text=True))
    assert "Adverts published 2 Adverts sold 2 Sales value 240,000 SEK" in text
    assert "+20.0%" in text
