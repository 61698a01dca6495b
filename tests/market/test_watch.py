"""The buyer's watchlist and saved searches (issue 16 part 6): the market list's filters, watching
from the list and the advert's page, the watchlist, saved searches and the e-mail a new matching
advert sends (once per advert and search, in the user's language and zone, with its switch-off
link), the menu, and isolation."""

import re
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from app.core import jobs
from app.core.models import utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.mail.models import EmailMessage
from app.market import watch
from app.market.filters import Criteria
from app.market.invites import create_market_company
from app.market.models import Advert, MarketWatch, SavedSearch, SavedSearchHit
from tests.core._rq import cut_off_once, needs_redis
from tests.helpers import page_text, sign_in
from tests.mail._smtp import subjects_received
from tests.market._adverts import (
    demo_login,
    demo_user,
    group_named,
    make_advert,
    nordbil,
    sign_in_english,
)

LIST = "/market/adverts/list"
WATCHLIST = "/market/adverts/watchlist"
SEARCHES = "/market/saved-searches"


@pytest.fixture
def as_demo(demo_client):
    return demo_login(demo_client)


def fjordauto():
    return group_named("Fjordauto AS")


def row_ids(response) -> list[int]:
    return [int(i) for i in re.findall(r'data-advert-id="(\d+)"', response.get_data(as_text=True))]


def watch_ids(user_id: int) -> set[int]:
    return set(
        db.session.scalars(
            select(MarketWatch.advert_id)
            .where(MarketWatch.user_id == user_id)
            .execution_options(all_instances=True)
        )
    )


def mails_to(address: str, regno: str) -> list[EmailMessage]:
    """The saved-search mails to `address` about the advert `regno`."""
    return list(
        db.session.scalars(
            select(EmailMessage)
            .where(
                EmailMessage.to_address == address,
                EmailMessage.kind == "market_saved_search",
                EmailMessage.subject.contains(regno),
            )
            .order_by(EmailMessage.id)
        )
    )


def buyer_search(criteria: Criteria, name="Test search", notify=True, email="buyer@demo.test"):
    user = demo_user(email)
    group = fjordauto() if email == "buyer@demo.test" else group_named("Malmö Bilcenter AB")
    activate(group.instance_id)
    search = watch.create_search(user.id, name, criteria, notify)
    activate(None)
    return search


# --- the market list's filters -------------------------------------------------------------------


def test_the_list_filters_by_brand_model_year_mileage_fuel_and_country(as_demo):
    client, _ = as_demo("buyer")
    seller = nordbil()
    wanted = make_advert(
        seller, brand="Saab", model="9-3 Aero", model_year=2011, mileage=150_000,
        fuel_type="Petrol", regno="FLT001",
    )  # fmt: skip
    old = make_advert(seller, brand="Saab", model="9-3", model_year=2004, regno="FLT002")
    diesel = make_advert(seller, brand="Saab", model="9-5", model_year=2011, fuel_type="Diesel")
    shown = row_ids(client.get(f"{LIST}?brand=saab"))
    assert {wanted.id, old.id, diesel.id} <= set(shown)
    assert row_ids(client.get(f"{LIST}?brand=Saab&model=aero")) == [wanted.id]
    assert row_ids(client.get(f"{LIST}?brand=Saab&year_from=2010&fuel=Petrol")) == [wanted.id]
    assert row_ids(client.get(f"{LIST}?brand=Saab&year_to=2005")) == [old.id]
    assert row_ids(client.get(f"{LIST}?brand=Saab&max_mileage=160000&year_from=2010")) == [
        wanted.id
    ]
    assert row_ids(client.get(f"{LIST}?brand=Saab&country=SE&fuel=Petrol")) == [wanted.id]
    assert row_ids(client.get(f"{LIST}?brand=Saab&country=DK")) == []


def test_the_price_filter_is_in_the_buyers_currency_with_the_sellers_rate(as_demo):
    """Nordbil sells in SEK at 1 SEK = 1.024 NOK; Fjordauto's highest price is in NOK."""
    client, _ = as_demo("buyer")
    cheap = make_advert(nordbil(), brand="Tatra", start_price=100_000)  # 102 400 NOK
    dear = make_advert(nordbil(), brand="Tatra", start_price=110_000)  # 112 640 NOK
    assert row_ids(client.get(f"{LIST}?brand=Tatra&max_price=102400")) == [cheap.id]
    assert row_ids(client.get(f"{LIST}?brand=Tatra&max_price=102399")) == []
    assert set(row_ids(client.get(f"{LIST}?brand=Tatra&max_price=112640"))) == {cheap.id, dear.id}


def test_refused_filters_answer_422_with_the_message_and_keep_the_input(as_demo):
    client, _ = as_demo("buyer")
    response = client.get(f"{LIST}?year_from=abc&year_to=2001&max_price=-5&fuel=Steam")
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'value="abc"' in html and "Enter a whole number, without decimals." in html
    assert "Not a valid choice." in html or 'aria-invalid="true"' in html
    assert row_ids(response) == []
    second = client.get(f"{LIST}?year_from=2020&year_to=2010")
    assert second.status_code == 422
    assert "The last year cannot be before the first." in page_text(second)


def test_page_links_keep_the_filters(as_demo):
    client, _ = as_demo("buyer")
    for n in range(26):
        make_advert(nordbil(), brand="Lada", regno=f"LAD{n:03d}")
    html = client.get(f"{LIST}?brand=Lada").get_data(as_text=True)
    assert 'href="/market/adverts/list?brand=Lada&amp;page=2"' in html


# --- watching ------------------------------------------------------------------------------------


def test_a_buyer_watches_from_the_list_and_the_page_and_sees_the_watchlist(as_demo):
    client, token = as_demo("buyer")
    buyer = demo_user("buyer@demo.test")
    advert = make_advert(nordbil(), brand="Volvo", model="XC40", regno="WAT001")
    html = client.get(f"{LIST}?q=WAT001").get_data(as_text=True)
    assert f'data-watch="{advert.id}"' in html and 'data-watched="false"' in html
    response = client.post(
        f"/market/adverts/{advert.id}/watch",
        data={"csrf_token": token, "watch": "1", "next": f"{LIST}?q=WAT001"},
    )
    assert response.status_code == 302 and response.location.endswith(f"{LIST}?q=WAT001")
    assert advert.id in watch_ids(buyer.id)
    page = client.get(f"{LIST}?q=WAT001").get_data(as_text=True)
    assert "is on your watchlist" in page and 'data-watched="true"' in page
    # Twice is still one watch; the advert's page shows it pressed too.
    client.post(f"/market/adverts/{advert.id}/watch", data={"csrf_token": token, "watch": "1"})
    assert (
        db.session.scalar(
            select(func.count(MarketWatch.id))
            .where(MarketWatch.advert_id == advert.id)
            .execution_options(all_instances=True)
        )
        == 1
    )
    detail = client.get(f"/market/adverts/{advert.id}").get_data(as_text=True)
    assert 'data-watched="true"' in detail
    watchlist = client.get(WATCHLIST)
    assert watchlist.status_code == 200
    assert advert.id in row_ids(watchlist)
    # Stop watching from the watchlist.
    client.post(
        f"/market/adverts/{advert.id}/watch",
        data={"csrf_token": token, "watch": "0", "next": WATCHLIST},
    )
    assert advert.id not in watch_ids(buyer.id)
    assert advert.id not in row_ids(client.get(WATCHLIST))


def test_the_watchlist_shows_state_highest_bid_in_the_users_currency_and_end_time(as_demo):
    client, token = as_demo("buyer")
    ends = (utcnow() + timedelta(days=3)).replace(second=0, microsecond=0)
    advert = make_advert(nordbil(), regno="WAT002", highest_bid=200_000, bid_count=2, ends_at=ends)
    client.post(f"/market/adverts/{advert.id}/watch", data={"csrf_token": token, "watch": "1"})
    html = client.get(WATCHLIST).get_data(as_text=True)
    row = html.split(f'data-advert-id="{advert.id}"', 1)[1].split("</tr>", 1)[0]
    assert "204,800\u00a0NOK" in row  # 200 000 SEK at 1.024, rounded up
    assert "200,000\u00a0SEK" in row
    assert "Published" in row
    assert "2 bids" in row
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", row)
    assert "data-bid-link" in row


def test_a_watched_advert_no_longer_open_to_the_company_leaves_the_list(as_demo):
    client, token = as_demo("buyer")
    advert = make_advert(nordbil(), regno="WAT003")
    client.post(f"/market/adverts/{advert.id}/watch", data={"csrf_token": token, "watch": "1"})
    activate(advert.instance_id)
    advert.status = "withdrawn"
    db.session.flush()
    activate(None)
    response = client.get(WATCHLIST)
    assert advert.id not in row_ids(response)
    assert "no longer on the market for your company" in page_text(response)


def test_watching_refuses_adverts_the_company_may_not_open_and_its_own(demo_app, as_demo):
    client, token = as_demo("buyer")
    draft = make_advert(nordbil(), "draft")
    activate(None)
    with demo_app.test_request_context():
        instance, stranger = create_market_company("Fremmed AS", "NO", "NOK", buyer=True)
        stranger.seller = True
        db.session.flush()
    foreign = make_advert(stranger, regno="FRM001")
    for advert_id in (draft.id, foreign.id, 999_999):
        response = client.post(
            f"/market/adverts/{advert_id}/watch", data={"csrf_token": token, "watch": "1"}
        )
        assert response.status_code == 404
    assert watch_ids(demo_user("buyer@demo.test").id) & {draft.id, foreign.id} == set()
    # A seller (no buyer) has no watchlist: the menu does not show it and the page is a 403.
    seller_client, seller_token = as_demo("seller")
    assert seller_client.get(WATCHLIST).status_code == 403
    own = make_advert(nordbil())
    response = seller_client.post(
        f"/market/adverts/{own.id}/watch", data={"csrf_token": seller_token, "watch": "1"}
    )
    assert response.status_code == 403


def test_each_user_sees_only_their_own_watchlist(demo_client, as_demo):
    client, token = as_demo("buyer")
    advert = make_advert(nordbil(), regno="WAT004")
    client.post(f"/market/adverts/{advert.id}/watch", data={"csrf_token": token, "watch": "1"})
    malmo = demo_user("malmo@demo.test")
    sign_in_english(demo_client, malmo)
    assert advert.id not in row_ids(demo_client.get(WATCHLIST))


# --- saved searches ------------------------------------------------------------------------------


def test_save_a_search_from_the_list_then_list_and_delete_it(as_demo):
    client, token = as_demo("buyer")
    html = client.get(f"{LIST}?brand=Volvo&max_price=300000").get_data(as_text=True)
    save = re.search(r'href="(/market/saved-searches/new\?[^"]+)"', html)
    assert save, "the filtered list offers to save the search"
    form = client.get(save.group(1).replace("&amp;", "&"))
    assert form.status_code == 200
    form_html = form.get_data(as_text=True)
    assert 'value="Volvo"' in form_html and 'value="300000"' in form_html
    response = client.post(
        "/market/saved-searches/new",
        data={
            "csrf_token": token, "name": "Volvos for Bergen", "brand": "Volvo",
            "max_price": "300 000", "notify": "y",
        },
    )  # fmt: skip
    assert response.status_code == 302
    buyer = demo_user("buyer@demo.test")
    search = db.session.scalars(
        select(SavedSearch)
        .where(SavedSearch.user_id == buyer.id, SavedSearch.name == "Volvos for Bergen")
        .execution_options(all_instances=True)
    ).one()
    assert search.criteria == {"brand": "Volvo", "max_price": 300_000}
    assert search.notify is True
    listing = client.get(SEARCHES)
    text = page_text(listing)
    assert "Volvos for Bergen" in text and "Volvo · at most 300,000\u00a0NOK" in text
    assert f'href="{LIST}?brand=Volvo&amp;max_price=300000"' in listing.get_data(as_text=True)
    # Switch its e-mail off and on, then delete it.
    client.post(f"{SEARCHES}/{search.id}/notify", data={"csrf_token": token, "notify": "0"})
    db.session.refresh(search)
    assert search.notify is False
    search_id = search.id
    client.post(f"{SEARCHES}/{search_id}/delete", data={"csrf_token": token})
    db.session.expire_all()
    assert db.session.get(SavedSearch, search_id) is None
    after = client.get(SEARCHES).get_data(as_text=True)
    assert f'data-search-id="{search_id}"' not in after


def test_a_refused_saved_search_keeps_the_input_and_saves_nothing(as_demo):
    client, token = as_demo("buyer")
    before = db.session.scalar(
        select(func.count(SavedSearch.id)).execution_options(all_instances=True)
    )
    response = client.post(
        "/market/saved-searches/new",
        data={"csrf_token": token, "name": "", "brand": "Volvo", "year_from": "20x"},
    )
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'value="Volvo"' in html and 'value="20x"' in html
    assert 'data-message-key="FIELD_REQUIRED"' in html
    assert "Enter a whole number, without decimals." in html
    long_name = client.post(
        "/market/saved-searches/new", data={"csrf_token": token, "name": "x" * 101}
    )
    assert long_name.status_code == 422
    assert 'data-message-key="FIELD_TOO_LONG"' in long_name.get_data(as_text=True)
    after = db.session.scalar(
        select(func.count(SavedSearch.id)).execution_options(all_instances=True)
    )
    assert after == before


def test_searches_of_others_are_not_found(demo_client, as_demo):
    mine = buyer_search(Criteria(brand="Volvo"), name="Malmö's Volvos", email="malmo@demo.test")
    client, token = as_demo("buyer")
    assert "Malmö's Volvos" not in page_text(client.get(SEARCHES))
    for action, data in (("delete", {}), ("notify", {"notify": "0"})):
        response = client.post(f"{SEARCHES}/{mine.id}/{action}", data={"csrf_token": token, **data})
        assert response.status_code == 404
    assert db.session.get(SavedSearch, mine.id).notify is True


# --- the e-mail of a new advert ------------------------------------------------------------------


def publish_draft(seller_client, token, advert: Advert):
    """Publish a draft through the seller's edit form (as a seller does)."""
    return seller_client.post(
        f"/market/adverts/{advert.id}/edit",
        data={
            "csrf_token": token, "action": "publish", "regno": advert.regno,
            "brand": advert.brand, "model": advert.model,
            "model_year": str(advert.model_year or ""), "mileage": str(advert.mileage or ""),
            "start_price": str(advert.start_price), "bid_step": str(advert.bid_step),
            "ends_at": (utcnow() + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M"),
            "fuel_type": advert.fuel_type or "",
        },
    )  # fmt: skip


def test_a_new_matching_advert_is_emailed_once_per_search_in_the_users_language(demo_app, as_demo):
    buyer = demo_user("buyer@demo.test")
    buyer.options = {**(buyer.options or {}), "language": "nb-NO", "timeZone": "Europe/Oslo"}
    matching = buyer_search(Criteria(brand="Polestar", max_price=500_000), name="Polestar")
    other = buyer_search(Criteria(brand="Cupra"), name="Cupra")
    draft = make_advert(
        nordbil(), "draft", brand="Polestar", model="2", model_year=2022, mileage=30_000,
        start_price=350_000, regno="PLS001",
    )  # fmt: skip
    seller_client, token = as_demo("seller")
    assert publish_draft(seller_client, token, draft).status_code == 302
    mails = mails_to("buyer@demo.test", "PLS001")
    assert len(mails) == 1
    mail = mails[0]
    assert mail.language == "nb-NO"
    assert "Polestar" in mail.subject and "PLS001" in mail.subject
    assert mail.subject.startswith("Ny annonse for «Polestar»")
    assert f"/market/adverts/{draft.id}" in mail.body_html
    assert f"/market/saved-search-off/{matching.token}" in mail.body_html
    assert "358\u00a0400\u00a0NOK" in mail.body_text  # 350 000 SEK at 1.024
    assert "(Oslo, CE" in mail.body_text  # the zone named
    hits = db.session.scalars(
        select(SavedSearchHit)
        .where(SavedSearchHit.advert_id == draft.id)
        .execution_options(all_instances=True)
    ).all()
    assert [(h.search_id, h.mail_id) for h in hits] == [(matching.id, mail.id)]
    assert other.id not in {h.search_id for h in hits}
    # Closed and published again, or the job run twice: still one mail per advert and search.
    with demo_app.test_request_context():
        assert watch.notify_new_advert(draft.id) == 0
    assert len(mails_to("buyer@demo.test", "PLS001")) == 1
    # The preview link shows it.
    preview = seller_client.get(f"/email-preview/{mail.public_id}")
    assert preview.status_code == 200 and "PLS001" in page_text(preview)


def test_the_match_mail_in_english_and_swedish(demo_app, as_demo):
    buyer = demo_user("buyer@demo.test")
    buyer.options = {**(buyer.options or {}), "language": "en-GB"}
    malmo = demo_user("malmo@demo.test")
    malmo.options = {**(malmo.options or {}), "language": "sv-SE"}
    buyer_search(Criteria(brand="Lynk"), name="Lynk")
    buyer_search(Criteria(brand="Lynk"), name="Lynk SE", email="malmo@demo.test")
    draft = make_advert(nordbil(), "draft", brand="Lynk", model="01", regno="LYN001")
    seller_client, token = as_demo("seller")
    assert publish_draft(seller_client, token, draft).status_code == 302
    [english] = mails_to("buyer@demo.test", "LYN001")
    [swedish] = mails_to("malmo@demo.test", "LYN001")
    assert english.subject.startswith("New advert for “Lynk”")
    assert "Open the advert" in english.body_text
    assert "Switch off e-mails for this search" in english.body_text
    assert swedish.language == "sv-SE"
    assert "Lynk SE" in swedish.subject and not swedish.subject.startswith("New advert")
    assert "Open the advert" not in swedish.body_text
    assert "100\u00a0000\u00a0SEK" in swedish.body_text  # Malmö bids in SEK: no conversion


def test_adverts_the_company_may_not_see_never_match(demo_app, as_demo):
    """A seller that is not Fjordauto's partner publishes a matching advert: no mail."""
    buyer_search(Criteria(brand="Aiways"), name="Aiways")
    with demo_app.test_request_context():
        _instance, stranger = create_market_company("Fremmed AS", "NO", "NOK", buyer=False)
        stranger.seller = True
        db.session.flush()
    advert = make_advert(stranger, brand="Aiways", regno="AIW001")
    with demo_app.test_request_context():
        assert watch.notify_new_advert(advert.id) == 0
    assert mails_to("buyer@demo.test", "AIW001") == []


def test_a_switched_off_search_sends_nothing_and_the_mails_link_switches_it_off(
    demo_client, as_demo
):
    search = buyer_search(Criteria(brand="Dacia"), name="Dacia")
    page = demo_client.get(f"/market/saved-search-off/{search.token}?lang=en-GB")
    assert page.status_code == 200
    assert "Switch off e-mails for this search" in page_text(page)
    db.session.refresh(search)
    assert search.notify is True  # opening the link changes nothing
    token = re.search(r'name="csrf-token" content="([^"]+)"', page.get_data(as_text=True))
    done = demo_client.post(
        f"/market/saved-search-off/{search.token}", data={"csrf_token": token.group(1)}
    )
    assert done.status_code == 200 and "switched off" in page_text(done)
    db.session.refresh(search)
    assert search.notify is False
    assert demo_client.get("/market/saved-search-off/not-a-token").status_code == 404
    draft = make_advert(nordbil(), "draft", brand="Dacia", regno="DAC001")
    seller_client, token = as_demo("seller")
    assert publish_draft(seller_client, token, draft).status_code == 302
    assert mails_to("buyer@demo.test", "DAC001") == []


def test_publishing_through_the_change_status_link_matches_too(demo_app):
    search = buyer_search(Criteria(brand="Smart"), name="Smart")
    draft = make_advert(nordbil(), "draft", brand="Smart", model="#1")
    from app.market.status import change_status

    with demo_app.test_request_context():
        activate(draft.instance_id)
        change_status(draft.id, "published", None, demo_user("seller@demo.test").id)
        db.session.commit()
        jobs.dispatch()
    hits = db.session.scalars(
        select(SavedSearchHit)
        .where(SavedSearchHit.search_id == search.id)
        .execution_options(all_instances=True)
    ).all()
    assert [h.advert_id for h in hits] == [draft.id]


@needs_redis
def test_a_match_job_run_again_before_it_queued_the_deliveries_sends_the_mail_it_stored(
    demo_app, rq_smtp, monkeypatch
):
    queue, smtp = rq_smtp
    job = "app.market.watch:notify_new_advert"
    # Worked in this process (as the mail jobs are), where the test's transaction is.
    monkeypatch.setattr(jobs, "IN_PROCESS", jobs.IN_PROCESS | {job})
    buyer_search(Criteria(brand="Byton"), name="Byton")
    advert = make_advert(nordbil(), brand="Byton", model="M-Byte", regno="BYT001")
    with demo_app.test_request_context():
        watch.advert_published(advert)
        db.session.commit()
        assert jobs.dispatch() == 1
    [queued] = queue.jobs
    # Its first run stores the hit and the mail, and is cut off before it queues the delivery.
    cut = cut_off_once(monkeypatch, job, after_sending=False)
    assert jobs.make_worker(demo_app).work(burst=True)
    assert cut == [queued.id]
    db.session.expire_all()
    [mail] = mails_to("buyer@demo.test", "BYT001")
    assert mail.status == "sent"
    assert subjects_received(smtp) == [mail.subject]


# One list query for every saved search, with the list's own conditions (per search before).
SEARCH_CASES = [
    Criteria(),
    Criteria(brand="Genesis"),
    Criteria(brand="genesis", model="gv"),
    Criteria(brand="Volvo"),
    Criteria(model="GV70 2.5T"),
    Criteria(q="GNS 001"),
    Criteria(q="nothing like it"),
    Criteria(year_from=2022, year_to=2022),
    Criteria(year_from=2023),
    Criteria(year_to=2021),
    Criteria(max_mileage=21_000),
    Criteria(max_mileage=20_999),
    Criteria(fuel="Petrol"),
    Criteria(fuel="Diesel"),
    Criteria(country="SE"),
    Criteria(country="NO"),
    # 400 000 SEK: 409 600 NOK for Fjordauto at 1.024, 400 000 SEK for Malmö.
    Criteria(max_price=409_600),
    Criteria(max_price=409_599),
    Criteria(max_price=400_000),
    Criteria(brand="Genesis", max_price=399_999, country="SE"),
]


def genesis() -> Advert:
    return make_advert(
        nordbil(), brand="Genesis", model="GV70 2.5T", model_year=2022, mileage=21_000,
        fuel_type="Petrol", start_price=400_000, regno="GNS001",
    )  # fmt: skip


def one_by_one(advert: Advert, criteria: Criteria, group) -> bool:
    """The market list's query for one search, as each search was matched before."""
    from app.market.adverts import market_condition

    found = db.session.scalar(
        select(Advert.id)
        .where(Advert.id == advert.id, market_condition(group), *criteria.conditions(group))
        .execution_options(all_instances=True)
    )
    return found is not None


def test_one_statement_matches_as_the_list_query_did_search_by_search(demo_app, monkeypatch):
    monkeypatch.setattr(watch, "MATCH_BATCH", 7)  # several statements of searches, in order
    advert = genesis()
    groups = (fjordauto(), group_named("Malmö Bilcenter AB"))
    cases = [(c, g) for g in groups for c in SEARCH_CASES]
    expected = [one_by_one(advert, c, g) for c, g in cases]
    assert True in expected and False in expected
    with demo_app.test_request_context():
        assert watch.matching(advert, cases) == expected
        # A seller that is no partner: nothing matches for either buyer.
        _instance, stranger = create_market_company("Fremd GmbH", "DE", "EUR", buyer=False)
        stranger.seller = True
        db.session.flush()
        other = make_advert(stranger, brand="Genesis", regno="GNS002")
        assert watch.matching(other, cases) == [one_by_one(other, c, g) for c, g in cases]
        assert not any(watch.matching(other, cases))


def test_the_same_searches_are_mailed_as_the_list_query_finds(demo_app):
    searches = [
        buyer_search(c, name=f"Case {n} {email}", email=email)
        for email in ("buyer@demo.test", "malmo@demo.test")
        for n, c in enumerate(SEARCH_CASES)
    ]
    advert = genesis()
    groups = {
        demo_user("buyer@demo.test").id: fjordauto(),
        demo_user("malmo@demo.test").id: group_named("Malmö Bilcenter AB"),
    }
    expected = {
        s.id
        for s in searches
        if one_by_one(advert, Criteria.from_json(s.criteria), groups[s.user_id])
    }
    with demo_app.test_request_context():
        assert watch.notify_new_advert(advert.id) == len(expected)
    hits = db.session.scalars(
        select(SavedSearchHit.search_id)
        .where(SavedSearchHit.advert_id == advert.id)
        .execution_options(all_instances=True)
    ).all()
    assert set(hits) == expected and len(hits) == len(expected)
    sent = mails_to("buyer@demo.test", "GNS001") + mails_to("malmo@demo.test", "GNS001")
    assert len(sent) == len(expected)


def test_matching_costs_the_same_statements_however_many_searches(demo_app):
    from tests.preparation.manage_helpers import QueryCounter

    advert = genesis()
    buyer_search(Criteria(brand="Volvo"), name="No match")

    def statements() -> int:
        with demo_app.test_request_context(), QueryCounter() as counter:
            assert watch.notify_new_advert(advert.id) == 0
        return counter.count

    few = statements()
    for n in range(30):  # none matches, every kind of criterion, both buyer companies
        email = "malmo@demo.test" if n % 2 else "buyer@demo.test"
        buyer_search(
            Criteria(brand="Volvo", max_price=100_000 + n, country="SE", year_from=2000 + n),
            name=f"No match {n}",
            email=email,
        )
    assert statements() == few


# --- menu and demo ---------------------------------------------------------------------------------


def test_the_buyers_menu_has_watchlist_and_saved_searches_translated(demo_client):
    buyer = demo_user("buyer@demo.test")
    buyer.options = {**(buyer.options or {}), "language": "de-DE"}
    sign_in(demo_client, buyer)
    html = demo_client.get(WATCHLIST).get_data(as_text=True)
    nav = html.split('id="shell-nav"', 1)[1].split("</nav>", 1)[0]
    assert 'data-menu-key="market.watchlist"' in nav
    assert 'data-menu-key="market.saved-searches"' in nav
    assert "Merkliste" in nav and "Gespeicherte Suchen" in nav


def test_the_demo_buyer_watches_an_advert_and_has_a_saved_search_that_mailed(as_demo):
    client, _ = as_demo("buyer")
    assert row_ids(client.get(WATCHLIST))
    html = client.get(SEARCHES).get_data(as_text=True)
    assert html.count('class="card saved-search"') == 1
    demo_mails = db.session.scalars(
        select(EmailMessage).where(
            EmailMessage.to_address == "buyer@demo.test",
            EmailMessage.kind == "market_saved_search",
        )
    ).all()
    assert len(demo_mails) == 1
