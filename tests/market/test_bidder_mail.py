"""Bidder e-mails (issue 16 part 5): outbid, won, allocated, countered, provisional and ended
unsold, each a job after the commit, stored and readable at its preview link, in the
recipient's language and time zone, with one click to the bidder's own page and an unsubscribe
link that needs no sign-in and that the seller's list of bid links shows."""

import re
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from app.core import jobs
from app.core.audit import AuditLog
from app.extensions import db
from app.mail.models import EmailMessage
from app.market import bidder_mail
from app.market.models import MarketLink
from tests.core._rq import cut_off_once, needs_redis
from tests.helpers import page_text
from tests.mail._smtp import subjects_received
from tests.market._adverts import demo_login
from tests.market._bid import (
    BUYER,
    MALMO,
    SELLER,
    bid_path,
    last_mail_id,
    link,
    make_advert,
    new_mails,
    page_path,
    parts,
    send,
    token,
    user,
)

# What each kind's subject says, in English and in German.
SUBJECTS = {
    "outbid": ("You have been outbid", "Sie wurden überboten"),
    "won": ("Your company has won", "Ihr Unternehmen hat den Zuschlag"),
    "allocated": ("has been allocated to", "hat den Zuschlag für"),
    "countered": ("A counteroffer for", "Ein Gegenangebot für"),
    "provisional": ("Bidding ended under the reserve", "Bieten unter dem Mindestpreis beendet"),
    "ended_unsold": ("Ended unsold", "Unverkauft beendet"),
}
# A line of each kind's body, in English and in German.
BODIES = {
    "outbid": ("Another bidder has bid more", "Ein anderer Bieter hat mehr"),
    "won": ("has won this vehicle from Nordbil AB", "den Zuschlag erhalten"),
    "allocated": (
        "Nordbil AB has allocated this vehicle",
        "den Zuschlag für dieses Fahrzeug erteilt",
    ),
    "countered": ("offers you the vehicle for a higher price", "zu einem höheren Preis an"),
    "provisional": ("provisionally sold to you", "vorläufig verkauft"),
    "ended_unsold": ("The advert has ended unsold.", "Das Inserat ist unverkauft beendet."),
}
# Kinds whose mail names a moment (in the reader's zone).
TIMED = {"outbid", "countered", "provisional"}


@pytest.fixture
def ad(demo_app):
    advert = make_advert()
    for email, kind in ((BUYER, "bid"), (MALMO, "bid"), (SELLER, "seller")):
        link(advert, email, kind)
    db.session.flush()
    return advert


def reads(email: str, language: str, zone: str) -> None:
    person = user(email)
    person.options = {**(person.options or {}), "language": language, "timeZone": zone}
    db.session.flush()


def queue_and_run(kind: str, advert, email: str = BUYER, **context) -> list[EmailMessage]:
    """Send one bidder mail as the market does, commit, run the jobs; the mails it stored."""
    before = last_mail_id()
    bidder_mail.send(kind, link(advert, email, "bid"), advert, **context)
    assert new_mails(before) == [], "nothing is rendered before the commit"
    db.session.commit()
    jobs.dispatch()
    return new_mails(before)


def prepare(kind: str, advert) -> dict:
    """Put the advert where the kind's mail finds it."""
    if kind in ("countered", "provisional"):
        advert.status = "provisional"
        advert.reserve_price = 200_000
        advert.provisional_group_id = link(advert, BUYER, "bid").group_id
        advert.decision_due_at = datetime(2026, 12, 1, 15, 30, tzinfo=UTC)
        advert.counter_price = 199_000 if kind == "countered" else None
    if kind in ("won", "allocated"):
        advert.status = "allocated"
        advert.allocated_group_id = link(advert, BUYER, "bid").group_id
        advert.allocated_price = 190_000
        advert.allocated_at = datetime(2026, 11, 20, 10, tzinfo=UTC)
    if kind == "outbid":
        advert.ends_at = datetime(2026, 12, 1, 15, 30, tzinfo=UTC)
        return {"bid": 191_500, "bid_currency": "NOK"}
    if kind == "allocated":
        return {"price": 190_000, "notes": None}
    if kind == "ended_unsold":
        return {"reason": "market_reserve_declined"}
    return {}


@pytest.mark.parametrize("kind", sorted(SUBJECTS))
@pytest.mark.parametrize(
    ("language", "index", "zone", "local"),
    [  # the time in the reader's zone, the zone named in their language
        ("en-GB", 0, "America/New_York", "2026-12-01 10:30 (New York, "),
        ("de-DE", 1, "Asia/Tokyo", "2026-12-02 00:30 (Tokio, +0900)"),
    ],
)
def test_each_kind_in_the_readers_language_and_zone_with_its_links(
    bidder, ad, kind, language, index, zone, local
):
    reads(BUYER, language, zone)
    context = prepare(kind, ad)
    db.session.flush()
    mails = queue_and_run(kind, ad, **context)
    assert [(m.to_address, m.kind, m.language) for m in mails] == [
        (BUYER, f"market_{kind}", language)
    ]
    mail = mails[0]
    assert SUBJECTS[kind][index] in mail.subject and ad.regno in mail.subject
    assert BODIES[kind][index] in mail.body_text and BODIES[kind][index] in page_text_of(mail)
    if kind in TIMED:
        assert local in mail.body_text and local in page_text_of(mail)
    # One click to the bidder's own page, and one to unsubscribe (in the mail's language).
    own = page_path("bid", ad, link(ad, BUYER, "bid"))
    assert f"http://127.0.0.1:5000{own}" in mail.body_text  # a job's links: BASE_URL
    assert f'href="http://127.0.0.1:5000{own}"' in mail.body_html
    unsubscribe = f"/market-bid-unsubscribe/{parts(ad, link(ad, BUYER, 'bid'))}?lang={language}"
    assert unsubscribe in mail.body_text and unsubscribe.replace(
        "?", "?"
    ) in mail.body_html.replace("&amp;", "&")
    # Readable at its preview link.
    preview = bidder.get(f"/email-preview/{mail.public_id}")
    assert preview.status_code == 200 and BODIES[kind][index] in page_text(preview)


def page_text_of(mail: EmailMessage) -> str:
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", mail.body_html))


def test_the_counter_names_the_amount_in_the_bidders_own_currency(ad):
    reads(BUYER, "en-GB", "Europe/Oslo")
    prepare("countered", ad)
    mail = queue_and_run("countered", ad)[0]
    assert "199,000\u00a0SEK" in mail.body_text and "about 203,776\u00a0NOK" in mail.body_text


def test_a_manual_bid_that_outbids_another_company_mails_it_after_the_commit(bidder, ad):
    """Fjordauto leads (make_advert); Malmö bids over it through the public call."""
    before = last_mail_id()
    ln = link(ad, MALMO, "bid")
    csrf = token(bidder, page_path("bid", ad, ln))
    response = send(bidder, "POST", bid_path(ad, ln), {"bid": 190_000, "requestKey": "o1"}, csrf)
    assert response.status_code == 201
    outbid = new_mails(before, "market_outbid")
    assert [m.to_address for m in outbid] == [BUYER]
    assert "191\u00a0500\u00a0NOK" in outbid[0].body_text  # its own bid, in Norwegian grouping
    # Outbidding itself, or a double tap, tells nobody again.
    before = last_mail_id()
    send(bidder, "POST", bid_path(ad, ln), {"bid": 190_000, "requestKey": "o1"}, csrf)
    send(bidder, "POST", bid_path(ad, ln), {"bid": 200_000, "requestKey": "o2"}, csrf)
    assert new_mails(before, "market_outbid") == []


def test_a_leader_who_unsubscribed_is_outbid_without_a_mail(bidder, ad):
    link(ad, BUYER, "bid").unsubscribed_at = datetime.now(UTC)
    db.session.commit()
    before = last_mail_id()
    ln = link(ad, MALMO, "bid")
    csrf = token(bidder, page_path("bid", ad, ln))
    response = send(bidder, "POST", bid_path(ad, ln), {"bid": 190_000, "requestKey": "u1"}, csrf)
    assert response.status_code == 201
    jobs.dispatch()
    assert new_mails(before) == []


def test_a_refused_bid_sends_nothing(bidder, ad):
    before = last_mail_id()
    ln = link(ad, MALMO, "bid")
    csrf = token(bidder, page_path("bid", ad, ln))
    assert (
        send(bidder, "POST", bid_path(ad, ln), {"bid": 1, "requestKey": "low"}, csrf).status_code
        == 422
    )
    jobs.dispatch()
    assert new_mails(before) == []


def test_allocation_mails_the_buyer_as_a_bidder_mail_and_the_seller_as_before(bidder, ad):
    before = last_mail_id()
    seller_link = link(ad, SELLER, "seller")
    csrf = token(bidder, page_path("allocate", ad, seller_link))
    body = {
        "allocatedInstanceGroupId": link(ad, BUYER, "bid").group_id,
        "allocatedSalesPrice": 187_011,
    }
    path = f"/api/_public/market-bid/allocate/{parts(ad, seller_link)}"
    assert send(bidder, "PUT", path, body, csrf).status_code == 200
    mails = {m.to_address: m for m in new_mails(before, "market_allocated")}
    assert set(mails) == {BUYER, SELLER}
    assert "/market-bid-unsubscribe/" in mails[BUYER].body_text
    assert "/market-bid-unsubscribe/" not in mails[SELLER].body_text


# --- unsubscribing ---------------------------------------------------------------------------


def unsubscribe_path(advert, email: str = BUYER) -> str:
    return f"/market-bid-unsubscribe/{parts(advert, link(advert, email, 'bid'))}"


def test_unsubscribe_asks_then_stops_every_bidder_mail_and_the_seller_sees_it(
    bidder, ad, demo_client
):
    path = unsubscribe_path(ad)
    page = bidder.get(path)
    assert page.status_code == 200
    assert "Stop e-mails about this advert" in page_text(page)
    assert link(ad, BUYER, "bid").unsubscribed_at is None  # a visit changes nothing
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.get_data(as_text=True)).group(1)
    answer = bidder.post(path, data={"csrf_token": csrf, "subscribe": "0"})
    assert answer.status_code == 200
    assert "You will get no more e-mails about this advert." in page_text(answer)
    db.session.expire_all()
    assert link(ad, BUYER, "bid").unsubscribed_at is not None
    assert db.session.scalar(
        select(func.count())
        .select_from(AuditLog)
        .where(AuditLog.action == "market_bidder_mail_unsubscribed")
    )
    # No bidder mail of any kind reaches it now; Malmö still gets its own.
    for kind in ("outbid", "ended_unsold"):
        context = prepare(kind, ad)
        assert queue_and_run(kind, ad, **context) == []
    assert len(queue_and_run("ended_unsold", ad, MALMO, reason="market_reserve_declined")) == 1
    # The seller's list of bid links shows it.
    client, _csrf = demo_login(demo_client)("seller")
    text = page_text(client.get(f"/market/adverts/{ad.id}"))
    assert text.count("No bidder e-mails") == 1
    # And the same page turns the mails on again.
    answer = bidder.post(path, data={"csrf_token": csrf, "subscribe": "1"})
    assert "You will get e-mails about this advert again." in page_text(answer)
    db.session.expire_all()
    assert link(ad, BUYER, "bid").unsubscribed_at is None


def test_an_unsubscribe_between_queueing_and_sending_is_honoured(ad):
    bidder_mail.send("ended_unsold", link(ad, BUYER, "bid"), ad, reason="market_reserve_declined")
    link(ad, BUYER, "bid").unsubscribed_at = datetime.now(UTC)
    before = last_mail_id()
    db.session.commit()
    jobs.dispatch()
    assert new_mails(before) == []


def test_unsubscribe_links_with_a_wrong_part_get_404(bidder, ad):
    other = make_advert()
    own = parts(ad, link(ad, BUYER, "bid")).split("/")
    theirs = parts(other, link(other, MALMO, "bid")).split("/")
    for i in range(3):
        mixed = own.copy()
        mixed[i] = theirs[i]
        assert bidder.get("/market-bid-unsubscribe/" + "/".join(mixed)).status_code == 404
    # A seller's link is no bidder's: 404 too.
    seller = parts(ad, link(ad, SELLER, "seller"))
    assert bidder.get(f"/market-bid-unsubscribe/{seller}").status_code == 404


def test_a_seller_link_or_an_unknown_kind_gets_no_bidder_mail(ad):
    before = last_mail_id()
    bidder_mail.send("outbid", link(ad, SELLER, "seller"), ad)
    db.session.commit()
    jobs.dispatch()
    assert new_mails(before) == []
    with pytest.raises(ValueError):
        bidder_mail.send("spam", link(ad, BUYER, "bid"), ad)
    assert db.session.get(MarketLink, link(ad, BUYER, "bid").id).unsubscribed_at is None


# --- a job run again -------------------------------------------------------------------------


def cut_off_and_run_again(demo_app, queue, monkeypatch, advert, *, after_sending: bool):
    """Queue one bidder mail to RQ, then work the queue with the job's first run cut off after
    its commit (see cut_off_once): RQ runs the job again. Returns the mails stored."""
    before = last_mail_id()
    with demo_app.test_request_context():
        bid_link = link(advert, BUYER, "bid")
        bidder_mail.send("ended_unsold", bid_link, advert, reason="market_reserve_declined")
        db.session.commit()
        assert jobs.dispatch() == 1
    [job] = queue.jobs
    cut = cut_off_once(monkeypatch, bidder_mail.JOB, after_sending=after_sending)
    assert jobs.make_worker(demo_app).work(burst=True)
    assert cut == [job.id]  # the first run was cut off,
    assert queue.fetch_job(job.id).get_status() == "finished"  # and the same job ran again
    db.session.expire_all()
    return new_mails(before)


@needs_redis
@pytest.mark.parametrize(
    "after_sending",
    # The first run's commit stored the mail, and its delivery job was sent, or never was.
    [True, False],
    ids=["cut-off-after-the-delivery-was-queued", "cut-off-before-the-delivery-was-queued"],
)
def test_a_mail_job_run_again_stores_one_mail_and_the_bidder_gets_it_once(
    demo_app, ad, rq_smtp, monkeypatch, after_sending
):
    queue, smtp = rq_smtp
    mails = cut_off_and_run_again(demo_app, queue, monkeypatch, ad, after_sending=after_sending)
    assert [(m.to_address, m.status) for m in mails] == [(BUYER, "sent")]
    assert subjects_received(smtp) == [mails[0].subject]  # the bidder gets it once
