"""The hidden reserve and the counteroffer (issue 16 part 3): an advert that ends under its
reserve is provisionally sold; the seller accepts, declines or counters on its advert page; the
highest bidder answers a counter through its bid link; an unanswered window ends it unsold.
Every step is audited and e-mailed, and every refusal says why."""

from datetime import timedelta

import pytest
import pytz
from sqlalchemy import func, select

from app.core import jobs
from app.core.audit import AuditLog
from app.core.models import utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.market import reserve
from app.market.endings import close_ended_adverts
from app.market.models import Advert, AdvertBid, InstanceGroup
from tests.helpers import page_text
from tests.market._admin import tile
from tests.market._adverts import demo_login, sign_in_english
from tests.market._bid import (
    BUYER,
    MALMO,
    SELLER,
    bid_path,
    data_path,
    group,
    last_mail_id,
    link,
    make_advert,
    new_address,
    new_mails,
    page_path,
    parts,
    send,
    token,
    user,
)

# make_advert's bids: Malmö 185 000 SEK, Fjordauto 191 500 NOK (= 187 011 SEK): Fjordauto leads.
HIGHEST, RESERVE = 187_011, 200_000
STOCKHOLM = pytz.timezone("Europe/Stockholm")


@pytest.fixture
def seller(demo_client):
    """The demo seller signed in (reading English) → (client, csrf token)."""
    return demo_login(demo_client)("seller")


@pytest.fixture
def ad(demo_app):
    advert = make_advert()
    advert.reserve_price = RESERVE
    for email, kind in ((BUYER, "bid"), (MALMO, "bid"), (SELLER, "seller")):
        link(advert, email, kind)
    db.session.flush()
    return advert


def reload(advert_id: int) -> Advert:
    db.session.expire_all()
    return db.session.scalar(
        select(Advert).where(Advert.id == advert_id).execution_options(all_instances=True)
    )


def audits(advert_id: int) -> list[str]:
    rows = db.session.scalars(select(AuditLog).order_by(AuditLog.id)).all()
    return [r.action for r in rows if (r.details or {}).get("advert") == advert_id]


def end_bidding(advert: Advert) -> Advert:
    """Let the advert's time run out and run the scheduled ending (and the jobs it queued)."""
    advert.ends_at = utcnow() - timedelta(minutes=1)
    db.session.commit()
    assert close_ended_adverts() >= 1
    jobs.dispatch()
    return reload(advert.id)


@pytest.fixture
def provisional(ad):
    return end_bidding(ad)


def decide(seller, advert: Advert, decision: str, price: str | None = None):
    client, csrf = seller
    data = {"csrf_token": csrf, "decision": decision}
    if price is not None:
        data["counter_price"] = price
    return client.post(f"/market/adverts/{advert.id}/reserve", data=data)


def answer_path(advert: Advert, email: str) -> str:
    return f"/api/_public/market-bid-counter/{parts(advert, link(advert, email, 'bid'))}"


def answer(client, advert: Advert, email: str, choice: str):
    csrf = token(client, page_path("bid", advert, link(advert, email, "bid")))
    return send(client, "POST", answer_path(advert, email), {"answer": choice}, csrf)


# --- what bidders see ----------------------------------------------------------------------


def test_bidders_see_that_the_reserve_is_not_met_never_its_amount(bidder, ad, seller):
    data = bidder.get(data_path("bid", ad, link(ad, BUYER, "bid"))).get_json()
    assert data["reserveNotMet"] is True
    assert "200000" not in str(data) and "reserve" not in {k.lower() for k in data}
    html = page_text(bidder.get(page_path("bid", ad, link(ad, BUYER, "bid"))))
    assert "Reserve not met" in html and "200" + "\u00a0000" not in html
    # The seller sees the amount on its advert page; a buyer signed in sees only "not met".
    client, _csrf = seller
    text = page_text(client.get(f"/market/adverts/{ad.id}"))
    assert "200,000" in text and "hidden from bidders" in text and "Reserve not met" in text


def test_a_reserve_met_or_absent_shows_nothing(bidder, ad):
    ad.reserve_price = HIGHEST
    db.session.flush()
    data = bidder.get(data_path("bid", ad, link(ad, BUYER, "bid"))).get_json()
    assert data["reserveNotMet"] is False
    ad.reserve_price = 0  # 0: no reserve
    db.session.flush()
    assert (
        bidder.get(data_path("bid", ad, link(ad, BUYER, "bid"))).get_json()["reserveNotMet"]
        is False
    )


# --- the end of bidding ----------------------------------------------------------------------


def test_ending_under_the_reserve_is_a_provisional_sale_audited_and_mailed(ad):
    before = last_mail_id()
    advert = end_bidding(ad)
    assert advert.status == "provisional"
    assert advert.provisional_group_id == group("Fjord").id
    window = advert.decision_due_at - utcnow()
    assert timedelta(hours=47, minutes=58) < window <= timedelta(hours=48)
    assert "market_advert_provisional" in audits(ad.id)
    # The highest bidder (Fjordauto's Ole, Norwegian, Oslo time) and the seller are told.
    told = new_mails(before, "market_provisional")
    assert [m.to_address for m in told] == [BUYER]
    assert told[0].language == "nb-NO" and "(Oslo, CE" in told[0].body_text
    seller_mail = new_mails(before, "market_ended")
    assert [m.to_address for m in seller_mail] == [SELLER]
    assert "/market/adverts/" in seller_mail[0].body_text  # decided on the advert page
    # The bid page names the state; a late bid is refused.
    assert advert.status == "provisional"


def test_ending_at_or_above_the_reserve_closes_as_before(ad):
    ad.reserve_price = HIGHEST
    before = last_mail_id()
    advert = end_bidding(ad)
    assert advert.status == "closed" and advert.provisional_group_id is None
    assert new_mails(before, "market_provisional") == []


def test_a_late_bid_on_a_provisional_sale_is_refused(bidder, provisional):
    ln = link(provisional, MALMO, "bid")
    csrf = token(bidder, page_path("bid", provisional, ln))
    response = send(
        bidder, "POST", bid_path(provisional, ln), {"bid": 250_000, "requestKey": "late"}, csrf
    )
    assert response.status_code == 422
    assert response.get_json()["key"] == "BIDDING_CLOSED"
    assert "reserve" in response.get_json()["message"]
    assert reload(provisional.id).highest_bid == HIGHEST


# --- the seller's decision -----------------------------------------------------------------


def test_the_seller_sees_the_decision_with_the_bidder_and_the_window(seller, provisional):
    client, _csrf = seller
    text = page_text(client.get(f"/market/adverts/{provisional.id}"))
    assert "Provisionally sold" in text and "Fjordauto" in text
    assert "Accept 187,011" in text and "Send counteroffer" in text and "Decline the bid" in text


def test_the_seller_accepts_the_highest_bid(seller, provisional):
    before = last_mail_id()
    response = decide(seller, provisional, "accept")
    assert response.status_code == 302
    advert = reload(provisional.id)
    assert (advert.status, advert.allocated_group_id, advert.allocated_price) == (
        "allocated", group("Fjord").id, HIGHEST,
    )  # fmt: skip
    assert advert.provisional_group_id is None and advert.decision_due_at is None
    assert "market_reserve_accepted" in audits(provisional.id)
    allocated = new_mails(before, "market_allocated")
    assert {m.to_address for m in allocated} == {BUYER, SELLER}
    buyer_mail = next(m for m in allocated if m.to_address == BUYER)
    assert "/market-bid-unsubscribe/" in buyer_mail.body_text


def test_the_seller_declines_and_the_bidder_is_told_it_ended_unsold(seller, provisional):
    before = last_mail_id()
    assert decide(seller, provisional, "decline").status_code == 302
    advert = reload(provisional.id)
    assert advert.status == "closed" and advert.provisional_group_id is None
    assert "market_reserve_declined" in audits(provisional.id)
    told = new_mails(before, "market_ended_unsold")
    assert [m.to_address for m in told] == [BUYER]
    assert "Nordbil AB" in told[0].body_text


def test_the_seller_counters_and_the_bidder_accepts_through_its_link(seller, bidder, provisional):
    before = last_mail_id()
    assert decide(seller, provisional, "counter", "195 000").status_code == 302
    advert = reload(provisional.id)
    assert advert.status == "provisional" and advert.counter_price == 195_000
    assert advert.decision_due_at - utcnow() > timedelta(hours=47, minutes=58)
    countered = new_mails(before, "market_countered")
    assert [m.to_address for m in countered] == [BUYER]
    assert "195" in countered[0].body_text and "(Oslo, CE" in countered[0].body_text
    # The bidder's page shows the counteroffer (in its own currency too) and answers it.
    data = bidder.get(data_path("bid", advert, link(advert, BUYER, "bid"))).get_json()
    assert data["provisional"]["counterPrice"] == 195_000
    assert data["provisional"]["counterInYourCurrency"] == 199_680  # 195 000 x 1.024
    before = last_mail_id()
    response = answer(bidder, advert, BUYER, "accept")
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["advert"]["status"] == "allocated"
    advert = reload(provisional.id)
    assert (advert.status, advert.allocated_price) == ("allocated", 195_000)
    assert audits(provisional.id)[-2:] == ["market_reserve_countered", "market_counter_accepted"]
    assert {m.to_address for m in new_mails(before, "market_allocated")} == {BUYER, SELLER}


def test_the_bidder_declines_the_counter_and_both_sides_are_told(seller, bidder, provisional):
    decide(seller, provisional, "counter", "199000")
    before = last_mail_id()
    response = answer(bidder, provisional, BUYER, "decline")
    assert response.status_code == 200
    advert = reload(provisional.id)
    assert advert.status == "closed" and advert.counter_price is None
    assert "market_counter_declined" in audits(provisional.id)
    seller_mail = new_mails(before, "market_reserve_outcome")
    assert [m.to_address for m in seller_mail] == [SELLER]
    assert "declined your counteroffer" in seller_mail[0].body_text
    assert "Fjordauto" in seller_mail[0].body_text
    assert [m.to_address for m in new_mails(before, "market_ended_unsold")] == [BUYER]


# --- refusals --------------------------------------------------------------------------------


def test_a_counter_not_above_the_highest_bid_is_refused_with_the_price_kept(seller, provisional):
    for typed in ("187011", "1000", "12,5"):
        response = decide(seller, provisional, "counter", typed)
        assert response.status_code == 422
        text = page_text(response)
        assert f'value="{typed}"' in text
        assert "above the highest bid" in text or "whole number" in text
    assert reload(provisional.id).counter_price is None
    assert "market_reserve_countered" not in audits(provisional.id)


def test_steps_that_do_not_fit_the_state_are_refused(seller, bidder, ad, provisional):
    # The seller cannot decide twice, nor the bidder answer before a counter.
    response = answer(bidder, provisional, BUYER, "accept")
    assert response.status_code == 422 and response.get_json()["key"] == "NO_COUNTEROFFER"
    decide(seller, provisional, "counter", "199000")
    response = decide(seller, provisional, "accept")
    assert response.status_code == 422 and "the bidder answers it now" in page_text(response)
    assert reload(provisional.id).status == "provisional"


def test_a_published_advert_has_no_decision_to_make(seller, bidder):
    advert = make_advert()
    link(advert, BUYER, "bid")
    response = decide(seller, advert, "accept")
    assert response.status_code == 422
    assert "no longer provisionally sold" in page_text(response)
    response = answer(bidder, advert, BUYER, "accept")
    assert response.status_code == 422 and response.get_json()["key"] == "ILLEGAL_STATUS"
    assert reload(advert.id).status == "published"


def test_only_the_highest_bidder_answers_the_counter(seller, bidder, provisional):
    decide(seller, provisional, "counter", "199000")
    response = answer(bidder, provisional, MALMO, "accept")
    assert response.status_code == 422
    body = response.get_json()
    assert body["key"] == "NOT_HIGHEST_BIDDER" and "highest bid" in body["message"]
    assert reload(provisional.id).status == "provisional"


def test_a_bad_answer_is_refused_with_its_key(seller, bidder, provisional):
    decide(seller, provisional, "counter", "199000")
    ln = link(provisional, BUYER, "bid")
    csrf = token(bidder, page_path("bid", provisional, ln))
    response = send(bidder, "POST", answer_path(provisional, BUYER), {"answer": "maybe"}, csrf)
    assert response.status_code == 422
    assert reload(provisional.id).status == "provisional"


def test_after_the_window_both_sides_are_refused(seller, bidder, provisional):
    decide(seller, provisional, "counter", "199000")
    advert = reload(provisional.id)
    advert.decision_due_at = utcnow() - timedelta(seconds=1)
    db.session.commit()
    response = answer(bidder, advert, BUYER, "accept")
    assert response.status_code == 422 and response.get_json()["key"] == "WINDOW_PASSED"
    advert = reload(provisional.id)
    advert.counter_price = None  # the seller's own window passed, likewise
    db.session.commit()
    assert "time to answer has passed" in page_text(decide(seller, advert, "accept"))
    assert reload(provisional.id).status == "provisional"


def test_the_window_passing_unanswered_ends_the_sale_unsold(seller, provisional):
    decide(seller, provisional, "counter", "199000")
    advert = reload(provisional.id)
    advert.decision_due_at = utcnow() - timedelta(seconds=1)
    db.session.commit()
    before = last_mail_id()
    assert reserve.expire_decisions() == 1
    jobs.dispatch()
    advert = reload(provisional.id)
    assert advert.status == "closed" and advert.decision_due_at is None
    entry = db.session.scalars(
        select(AuditLog)
        .where(AuditLog.action == "market_reserve_expired")
        .order_by(AuditLog.id.desc())
    ).first()
    assert entry.details["waiting"] == "bidder" and entry.user_id is None
    seller_mail = new_mails(before, "market_reserve_outcome")
    assert "did not answer your counteroffer" in seller_mail[0].body_text
    assert [m.to_address for m in new_mails(before, "market_ended_unsold")] == [BUYER]
    # A second run finds nothing more to do.
    assert reserve.expire_decisions() == 0


def test_other_instances_and_mismatched_links_get_404(seller, bidder, provisional):
    # An advert of another company (Fjordauto's instance) is unknown to Nordbil's seller.
    fjord = group("Fjord")
    activate(fjord.instance_id)
    foreign = Advert(
        seller_group_id=fjord.id, regno="OTH001", brand="Saab", model="9-5", currency="NOK",
        start_price=1000, bid_step=100, ends_at=utcnow(), status="provisional",
        reserve_price=5000, decision_due_at=utcnow() + timedelta(hours=5),
    )  # fmt: skip
    db.session.add(foreign)
    db.session.flush()
    activate(None)
    assert decide(seller, foreign, "accept").status_code == 404
    assert reload(foreign.id).status == "provisional"
    # The counter answer with one part of another advert's link: 404, whichever part.
    decide(seller, provisional, "counter", "199000")
    other = make_advert()
    own = parts(provisional, link(provisional, BUYER, "bid")).split("/")
    theirs = parts(other, link(other, MALMO, "bid")).split("/")
    csrf = token(bidder, page_path("bid", provisional, link(provisional, BUYER, "bid")))
    for i in range(3):
        mixed = own.copy()
        mixed[i] = theirs[i]
        path = "/api/_public/market-bid-counter/" + "/".join(mixed)
        response = send(bidder, "POST", path, {"answer": "accept"}, csrf)
        assert response.status_code == (200 if mixed == own else 404)
    assert reload(provisional.id).status == "provisional"


# --- the reserve on the advert form and in the settings -------------------------------------


def _form(csrf: str, **values) -> dict:
    ends = (utcnow() + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M")
    return {
        "csrf_token": csrf, "regno": "RES123", "brand": "Volvo", "model": "V90",
        "start_price": "200 000", "bid_step": "1 000", "ends_at": ends, **values,
    }  # fmt: skip


def _newest_advert() -> Advert:
    return db.session.scalar(
        select(Advert).order_by(Advert.id.desc()).execution_options(all_instances=True)
    )


def test_a_new_advert_takes_the_sellers_default_reserve_or_its_own(seller):
    client, csrf = seller
    nordbil = group("Nordbil")
    nordbil.reserve_percent = 10
    db.session.commit()
    form = client.get("/market/advert/add")
    assert "10 % above the start price" in page_text(form)
    assert client.post("/market/advert/add", data=_form(csrf)).status_code == 302
    assert _newest_advert().reserve_price == 220_000
    assert client.post("/market/advert/add", data=_form(csrf, reserve_price="0")).status_code == 302
    assert _newest_advert().reserve_price == 0  # none
    response = client.post("/market/advert/add", data=_form(csrf, reserve_price="150000"))
    assert response.status_code == 422
    assert "at least the start price" in page_text(response)
    assert 'value="150000"' in page_text(response)


def test_the_settings_keep_the_reserve_defaults(demo_client):
    client, csrf = demo_login(demo_client)("admin")  # the market administrator
    page = client.get("/market/settings")
    assert "Reserve and counteroffer" in page_text(page)
    nordbil = group("Nordbil")
    data = {
        "csrf_token": csrf, "bid_step": "1000", "rate_NOK": "1.024", "rate_DKK": "0.648",
        "rate_EUR": "0.0868", "invite_terms": nordbil.invite_terms or "",
        "reserve_percent": "12", "decision_hours": "24",
    }  # fmt: skip
    assert client.post("/market/settings", data=data).status_code == 302
    db.session.expire_all()
    nordbil = db.session.get(InstanceGroup, nordbil.id)
    assert (nordbil.reserve_percent, nordbil.decision_hours) == (12, 24)
    response = client.post("/market/settings", data=data | {"decision_hours": "1000"})
    assert response.status_code == 422 and 'value="1000"' in page_text(response)
    db.session.expire_all()
    assert db.session.get(InstanceGroup, nordbil.id).decision_hours == 24


def test_the_decision_window_follows_the_setting(ad):
    nordbil = group("Nordbil")
    nordbil.decision_hours = 6
    advert = end_bidding(ad)
    window = advert.decision_due_at - utcnow()
    assert timedelta(hours=5, minutes=58) < window <= timedelta(hours=6)


def test_the_lock_serialises_an_answer_after_the_expiry(seller, bidder, provisional):
    """Expiry and answer in either order: whichever comes second sees the first's result."""
    decide(seller, provisional, "counter", "199000")
    advert = reload(provisional.id)
    advert.decision_due_at = utcnow() - timedelta(seconds=1)
    db.session.commit()
    reserve.expire_decisions()
    response = answer(bidder, provisional, BUYER, "accept")
    assert response.status_code == 422 and response.get_json()["key"] == "ILLEGAL_STATUS"
    assert reload(provisional.id).status == "closed"
    assert (
        db.session.scalar(
            select(func.count()).select_from(AdvertBid).where(AdvertBid.advert_id == provisional.id)
        )
        == 2
    )
    assert user(BUYER) is not None


# --- the provisional sale in the other views -----------------------------------------------


def _week(moment) -> str:
    year, week, _day = moment.astimezone(STOCKHOLM).isocalendar()
    return f"{year}-W{week:02d}"


def test_the_dashboard_counts_the_sale_awaiting_the_sellers_decision(seller, provisional):
    client, _csrf = seller
    label = "Ended with bids, to allocate or decide"
    waiting = int(tile(client.get("/market/dashboard").get_data(as_text=True), label))
    assert waiting >= 2  # the demo's provisional sale and this one
    # Once countered, the bidder answers: the seller has nothing to do meanwhile.
    decide(seller, provisional, "counter", "199000")
    assert tile(client.get("/market/dashboard").get_data(as_text=True), label) == str(waiting - 1)


def test_my_events_show_the_sellers_decision_deadline_until_countered(seller, provisional):
    client, _csrf = seller
    due = provisional.decision_due_at
    text = page_text(client.get(f"/my-events?week={_week(due)}"))
    local = due.astimezone(STOCKHOLM)
    decision = f'<time datetime="{due.isoformat()}">{local:%H:%M}</time>'
    assert decision in text and "Your decision is due" in text
    assert "Accept, decline or counter the highest bid" in text
    assert f'href="/market/adverts/{provisional.id}"' in text
    # The end of bidding stays in its week although the advert is no longer open nor closed.
    ended = page_text(client.get(f"/my-events?week={_week(provisional.ends_at)}"))
    assert f'<time datetime="{provisional.ends_at.isoformat()}">' in ended
    decide(seller, provisional, "counter", "199000")
    text = page_text(client.get(f"/my-events?week={_week(due)}"))
    assert decision not in text


def test_another_bidder_still_opens_and_watches_the_provisional_advert(demo_app, ad):
    # Malmö bid, watches the advert and lost the lead: once bidding ended under the reserve it
    # may open the advert as it could a closed one, and it stays on its watchlist.
    client = demo_app.test_client()
    client.environ_base["REMOTE_ADDR"] = new_address()
    csrf = sign_in_english(client, user(MALMO))
    form = {"csrf_token": csrf, "watch": "1"}
    assert client.post(f"/market/adverts/{ad.id}/watch", data=form).status_code == 302
    provisional = end_bidding(ad)
    assert provisional.status == "provisional"
    page = client.get(f"/market/adverts/{provisional.id}")
    assert page.status_code == 200
    text = page_text(page)
    assert "Provisionally sold" in text
    assert "The seller is deciding on the highest bid" in text
    assert "200 000" not in text  # never the reserve's amount
    watchlist = client.get("/market/adverts/watchlist").get_data(as_text=True)
    assert f'href="/market/adverts/{provisional.id}"' in watchlist
    assert "watch-gone" not in watchlist


def test_the_change_status_link_leads_to_the_decision_and_changes_nothing(seller, provisional):
    client, _csrf = seller
    ln = link(provisional, SELLER, "seller")
    for action in ("change-status", "allocate"):
        data = client.get(data_path(action, provisional, ln)).get_json()
        assert "accept, decline or counter the highest bid" in data["decisionMessage"]
        assert data["decisionUrl"] == f"/market/adverts/{provisional.id}"
    data = client.get(data_path("change-status", provisional, ln)).get_json()
    assert not any(s["allowed"] for s in data["statuses"])
    csrf = token(client, page_path("change-status", provisional, ln))
    assert '"openAdvert": "Open the advert' in page_text(
        client.get(page_path("change-status", provisional, ln))
    )
    for status in ("closed", "withdrawn", "published", "allocated", "sold"):
        response = send(
            client, "PUT", data_path("change-status", provisional, ln), {"status": status}, csrf
        )
        assert response.status_code == 422, status
        body = response.get_json()
        assert body["key"] == "ILLEGAL_STATUS" and "on the advert's page" in body["message"]
    group_id = reload(provisional.id).provisional_group_id
    body = {"allocatedInstanceGroupId": group_id, "allocatedSalesPrice": HIGHEST}
    response = send(client, "PUT", data_path("allocate", provisional, ln), body, csrf)
    assert response.status_code == 422 and "on the advert's page" in response.get_json()["message"]
    advert = reload(provisional.id)
    assert advert.status == "provisional" and advert.allocated_group_id is None
    assert audits(provisional.id)[-1] == "market_advert_provisional"
    # The decision's own page still takes the decision.
    assert decide(seller, provisional, "decline").status_code == 302
    assert reload(provisional.id).status == "closed"
    # Closed unsold, the link offers the ordinary changes again.
    data = client.get(data_path("change-status", provisional, ln)).get_json()
    assert data["decisionMessage"] is None
    assert {s["value"] for s in data["statuses"] if s["allowed"]} == {"published", "withdrawn"}


def test_the_bid_page_of_a_provisional_sale_has_no_seller_message(bidder, provisional):
    data = bidder.get(data_path("bid", provisional, link(provisional, BUYER, "bid"))).get_json()
    assert "decisionMessage" not in data and data["provisional"]["yours"] is True
