"""Concurrent bids on one advert, through real parallel database connections (not the
rolled-back test transaction): none is lost, none is recorded twice, and the advert's highest
bid is always its last accepted bid. Runs on SQLite (a file database, BEGIN IMMEDIATE) and, with
TEST_DATABASE_URL, on PostgreSQL (SELECT ... FOR UPDATE) in a database of its own."""

import itertools
import re
import threading
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from app.core.models import utcnow
from app.extensions import db
from app.market.bidding import place_bid, save_bid, save_buy_now
from app.market.links import resolve_bid_link
from app.market.models import Advert, AdvertBid, MarketLink
from app.market.rates import convert_back, convert_up, next_bid, rates_from
from app.market.status import MarketError
from tests.conftest import database_url, make_app
from tests.market._bid import last_mail_id, new_mails
from tests.market._race import problems, race, seed_market

THREADS, BIDS = 16, 12


@pytest.fixture(autouse=True)
def _transaction():
    """These tests commit for real on their own database: no rolled-back test transaction
    (this replaces the autouse fixture of tests/conftest.py for this module)."""
    yield


@pytest.fixture(scope="module")
def race_app(tmp_path_factory):
    # One connection per bidding thread and one for the test itself.
    options = {"pool_pre_ping": True, "pool_size": THREADS + 4, "max_overflow": 0}
    return make_app(database_url(tmp_path_factory, "bidrace"), SQLALCHEMY_ENGINE_OPTIONS=options)


@pytest.fixture
def market(race_app):
    """A fresh seller, one published advert and 20 bidders (SEK and NOK) for each test."""
    with race_app.app_context():
        seeded = seed_market(users=20, adverts=1, tag=f"race{next(_TAGS)}")
        db.session.remove()
    return seeded


_TAGS = itertools.count()


def locked_bid(link_id: int, amount: int, request_key: str) -> int:
    return save_bid(link_id, amount, request_key).bid.id


def proxy_bidder():
    """A placer whose bidders also set a maximum (the bid plus 0-6 steps, never lowered): the
    maxima answer each other inside the bid's transaction."""
    maxima: dict[int, int] = {}
    lock = threading.Lock()

    def place(link_id: int, amount: int, request_key: str) -> int:
        extra = 1_000 * (hash(request_key) % 7)
        with lock:
            maximum = maxima[link_id] = max(maxima.get(link_id, 0), amount + extra)
        return save_bid(link_id, amount, request_key, maximum).bid.id

    return place


def unlocked_bid(link_id: int, amount: int, request_key: str) -> int:
    """The naive way, for the control: read the advert, check, write; no lock."""
    link = db.session.get(MarketLink, link_id)
    advert = db.session.execute(
        select(Advert).where(Advert.id == link.advert_id).execution_options(all_instances=True)
    ).scalar_one()
    rate = rates_from(advert.instance_id, advert.currency)[link.group.currency]
    if amount < convert_up(next_bid(advert), rate):
        raise MarketError("too low", "BID_TOO_LOW")
    bid = AdvertBid(
        instance_id=advert.instance_id, advert_id=advert.id, group_id=link.group_id,
        user_id=link.user_id, link_id=link.id, request_key=request_key, amount=amount,
        currency=link.group.currency, advert_amount=convert_back(amount, rate),
    )  # fmt: skip
    db.session.add(bid)
    advert.highest_bid = bid.advert_amount
    advert.bid_count = (advert.bid_count or 0) + 1
    db.session.commit()
    return bid.id


def test_racing_bidders_lose_no_bid_and_keep_the_highest_consistent(race_app, market):
    result = race(race_app, market.bidders, locked_bid, threads=THREADS, bids=BIDS)

    assert result.errors == []
    assert len(result.accepted) == THREADS * BIDS
    # The bidders really raced: calls overlapped in the database, and some bids were
    # outbid between the bidder's read and its bid (refused, then retried).
    assert result.peak >= 2
    assert result.refused > 0
    with race_app.app_context():
        assert problems(market.advert_ids[0], result.accepted) == []
        bids = db.session.scalars(select(AdvertBid).order_by(AdvertBid.id)).all()
        # Both currencies took part, each at its own rounded-up minimum.
        assert {bid.currency for bid in bids} == {"SEK", "NOK"}
        db.session.remove()
    print(
        f"\n{race_app.config['SQLALCHEMY_DATABASE_URI'].split(':')[0]}: "
        f"{len(result.accepted)} bids from {THREADS} threads in {result.seconds:.2f} s, "
        f"{result.refused} refused as outbid, peak {result.peak} in the database at once"
    )


def bid_page(app, bidder):
    """A bidder's bid page opened in a browser session of its own: its bid(amount, key) POSTs
    the public call with the page's CSRF token and returns the answer."""
    client = app.test_client()
    parts = f"{bidder.group_hash}/{bidder.advert_hash}/{bidder.link_hash}"
    html = client.get(f"/market-bid/bid/{parts}").get_data(as_text=True)
    token = re.search(r'<meta name="csrf-token" content="([^"]+)"', html).group(1)

    def bid(amount: int, request_key: str):
        return client.post(
            f"/api/_public/market-bid/{parts}",
            json={"bid": amount, "requestKey": request_key},
            headers={"X-CSRFToken": token},
        )

    return bid


def public_call(app, bidders):
    """A placer that bids as the bid page does: POST /api/_public/market-bid/... from the
    bidder's own browser session (one test client per thread and link, with its CSRF token),
    so the link's read and the bid share one transaction as in production."""
    local, by_id = threading.local(), {b.link_id: b for b in bidders}

    def place(link_id: int, amount: int, request_key: str) -> int:
        sessions = local.__dict__.setdefault("sessions", {})
        if link_id not in sessions:
            sessions[link_id] = bid_page(app, by_id[link_id])
        answer = sessions[link_id](amount, request_key)
        body = answer.get_json()
        if answer.status_code == 422:
            raise MarketError(body["message"], body["key"])
        assert answer.status_code == 201, body
        return body["bid"]["id"]

    return place


def test_racing_bidders_through_the_public_call_lose_nothing(race_app, market, monkeypatch):
    """The same race through the bid page's call, where the link is read inside the bid's
    transaction (on SQLite that transaction holds the write lock from its first read)."""
    monkeypatch.setitem(race_app.config, "PUBLIC_RATE_LIMIT", "1000000/60")
    result = race(race_app, market.bidders, public_call(race_app, market.bidders), bids=BIDS // 2)

    assert result.errors == []
    assert len(result.accepted) == THREADS * (BIDS // 2)
    assert result.peak >= 2 and result.refused > 0
    with race_app.app_context():
        assert problems(market.advert_ids[0], result.accepted) == []
        db.session.remove()


def test_racing_bidders_with_maxima_near_the_end_stay_serialised_and_extend_it(race_app, market):
    """The same race with proxy bidding: every bidder also sets a maximum, the advert ends in a
    minute (soft close 120 s), so bids extend it. Nothing lost or doubled, every automatic bid
    within its maximum, no maximum left that beats the leader, and the end moved."""
    advert_id = market.advert_ids[0]
    with race_app.app_context():
        advert = db.session.get(Advert, advert_id)
        advert.ends_at = utcnow() + timedelta(seconds=60)
        ends_before = advert.ends_at
        db.session.commit()
        db.session.remove()
    result = race(race_app, market.bidders, proxy_bidder(), threads=THREADS, bids=BIDS // 2)

    assert result.errors == []
    assert len(result.accepted) == THREADS * (BIDS // 2)
    assert result.peak >= 2
    with race_app.app_context():
        assert problems(advert_id, result.accepted) == []
        advert = db.session.get(Advert, advert_id)
        automatic = db.session.scalar(
            select(func.count())
            .select_from(AdvertBid)
            .where(AdvertBid.advert_id == advert_id, AdvertBid.automatic.is_(True))
        )
        assert automatic > 0  # the maxima did answer
        assert advert.ends_at > ends_before  # late bids moved the end
        assert advert.ends_at - utcnow() <= timedelta(seconds=120)
        db.session.remove()
    print(
        f"\nwith maxima: {len(result.accepted)} bids + {automatic} automatic from {THREADS} "
        f"threads in {result.seconds:.2f} s, {result.refused} refused as outbid"
    )


def test_two_buy_now_takers_at_the_same_moment_one_wins_the_other_is_told(race_app, market):
    advert_id = market.advert_ids[0]
    with race_app.app_context():
        db.session.get(Advert, advert_id).buy_now_price = 150_000
        db.session.commit()
        db.session.remove()
    # Two bidders of different companies (SEK and NOK) take it at once.
    takers = [market.bidders[0].link_id, market.bidders[1].link_id]
    answers, barrier = [], threading.Barrier(2)

    def take(link_id: int) -> None:
        with race_app.app_context():
            barrier.wait()
            try:
                answers.append(("won", save_buy_now(link_id, f"buy-{link_id}").bid.id))
            except MarketError as error:
                db.session.rollback()
                answers.append((error.key, error.message))
            db.session.remove()

    threads = [threading.Thread(target=take, args=(link_id,)) for link_id in takers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(kind for kind, _ in answers) == ["BOUGHT_BY_OTHER", "won"]
    refusal = next(text for kind, text in answers if kind == "BOUGHT_BY_OTHER")
    assert refusal == "Another buyer bought this vehicle first. Bidding has ended."
    won = next(bid_id for kind, bid_id in answers if kind == "won")
    with race_app.app_context():
        advert = db.session.get(Advert, advert_id)
        bids = db.session.scalars(select(AdvertBid).where(AdvertBid.advert_id == advert_id)).all()
        assert [(b.id, b.buy_now) for b in bids] == [(won, True)]
        assert (advert.status, advert.allocated_price, advert.bid_count) == (
            "allocated",
            150_000,
            1,
        )
        assert advert.allocated_group_id == bids[0].group_id == advert.highest_group_id
        db.session.remove()


def test_the_same_request_key_sent_twice_at_once_records_one_bid(race_app, market):
    link_id, advert_id = market.bidders[0].link_id, market.advert_ids[0]
    amount = convert_up(100_000, market.rates[market.bidders[0].currency])
    answers, barrier = [], threading.Barrier(2)

    def tap() -> None:
        with race_app.app_context():
            barrier.wait()
            result = save_bid(link_id, amount, "double-tap")
            answers.append((result.bid.id, result.duplicate))

    taps = [threading.Thread(target=tap) for _ in range(2)]
    for thread in taps:
        thread.start()
    for thread in taps:
        thread.join()

    assert len(answers) == 2
    assert answers[0][0] == answers[1][0]  # both taps are told about the same bid
    assert sorted(duplicate for _id, duplicate in answers) == [False, True]
    with race_app.app_context():
        count = db.session.scalar(
            select(func.count()).select_from(AdvertBid).where(AdvertBid.advert_id == advert_id)
        )
        advert = db.session.get(Advert, advert_id)
        assert (count, advert.bid_count, advert.highest_bid) == (1, 1, 100_000)
        db.session.remove()


def test_control_the_same_race_without_the_lock_goes_wrong(race_app, market):
    """Proves the race test can fail: the same bidders through a read-then-write without the
    lock. Both databases let the writers overwrite each other (lost bid counts, a highest bid
    that is not the last one): PostgreSQL in READ COMMITTED, SQLite since its transactions read
    in autocommit until their first write (app.core.locking.lock_before_write), where a stale
    snapshot's writer used to be refused with 'database is locked'."""
    result = race(race_app, market.bidders, unlocked_bid, threads=THREADS, bids=BIDS, tries=30)

    with race_app.app_context():
        found = problems(market.advert_ids[0], result.accepted)
        dialect = db.engine.dialect.name
        db.session.remove()
    print(f"\nwithout the lock ({dialect}): {found} {len(result.errors)} errors")
    assert any("lost updates" in problem for problem in found)


def _committed_bids(app, advert_id: int) -> list[tuple[int, bool]]:
    """The advert's bids as another connection sees them: (advert amount, automatic)."""
    with app.app_context():
        rows = db.session.execute(
            select(AdvertBid.advert_amount, AdvertBid.automatic)
            .where(AdvertBid.advert_id == advert_id)
            .order_by(AdvertBid.id)
            .execution_options(all_instances=True)
        ).all()
        db.session.remove()
    return [tuple(row) for row in rows]


def test_a_bid_is_stored_when_it_answers_and_a_refusal_keeps_its_reasons(race_app, market):
    """A bid whose link was remembered (as the public call's usually is) is stored by its
    commit; its refusals are the next bid for a bid too low, the first answer again for a
    double tap, and the end for a closed advert, and a refusal leaves no lock behind."""
    first, rival = market.bidders[0], market.bidders[2]
    advert_id = market.advert_ids[0]
    with race_app.app_context():
        mine, theirs = (
            resolve_bid_link(b.group_hash, b.advert_hash, b.link_hash) for b in (first, rival)
        )
        db.session.rollback()  # each bid below begins its own unit of work, as a request
        placed = place_bid(mine, 100_000, "alone-1")
        db.session.commit()
        assert _committed_bids(race_app, advert_id) == [(100_000, False)]
        again = save_bid(mine, 100_000, "alone-1")
        assert (again.duplicate, again.bid.id, again.next_bid) == (True, placed.bid.id, 101_000)
        with pytest.raises(MarketError) as refused:
            save_bid(theirs, 100_500, "alone-2")
        assert (refused.value.key, refused.value.extra) == ("BID_TOO_LOW", {"next_bid": 101_000})
        db.session.rollback()
        # Nothing of the refusal stayed, and no lock: the rival's next bid goes through.
        assert save_bid(theirs, 101_000, "alone-3").next_bid == 102_000
        db.session.get(Advert, advert_id).ends_at = utcnow() - timedelta(seconds=1)
        db.session.commit()
        with pytest.raises(MarketError) as closed:
            save_bid(mine, 200_000, "alone-4")
        assert closed.value.key == "BIDDING_CLOSED"
        db.session.remove()
    assert _committed_bids(race_app, advert_id) == [(100_000, False), (101_000, False)]


def test_a_bid_under_a_rivals_maximum_is_answered_by_it(race_app, market):
    """A bid without a maximum where another company holds one: the call refuses it to Python
    (the maxima must answer), which decides again under a new lock; the maximum answers with
    an automatic bid one step above, and the bidder is told it is outbid."""
    holder, bidder = market.bidders[0], market.bidders[2]
    advert_id = market.advert_ids[0]
    with race_app.app_context():
        save_bid(holder.link_id, 100_000, "max-1", 110_000)
        link = resolve_bid_link(bidder.group_hash, bidder.advert_hash, bidder.link_hash)
        db.session.rollback()
        answer = save_bid(link, 105_000, "max-2")
        assert (answer.duplicate, answer.leading, answer.next_bid) == (False, False, 107_000)
        db.session.remove()
    assert _committed_bids(race_app, advert_id) == [
        (100_000, False), (105_000, False), (106_000, True),
    ]  # fmt: skip


# PostgreSQL: a commit that takes its time or fails. A deferred trigger runs at the commit, after
# the bid's call has answered.
COMMIT_PROBE = """
CREATE FUNCTION bid_commit_probe() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF starts_with(NEW.request_key, 'slow-') THEN PERFORM pg_sleep(1); END IF;
  IF starts_with(NEW.request_key, 'fail-') THEN RAISE EXCEPTION 'refused at the commit'; END IF;
  IF starts_with(NEW.request_key, 'full-') THEN
    RAISE EXCEPTION 'could not write' USING ERRCODE = 'disk_full';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER bid_commit_probe AFTER INSERT ON advert_bid
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bid_commit_probe();
"""


@pytest.fixture
def commit_probe(race_app):
    with race_app.app_context():
        if db.engine.dialect.name != "postgresql":
            pytest.skip("the probe is a PostgreSQL deferred trigger")
        with db.engine.begin() as connection:
            connection.exec_driver_sql(COMMIT_PROBE)
        yield
        with db.engine.begin() as connection:
            connection.exec_driver_sql("DROP TRIGGER bid_commit_probe ON advert_bid")
            connection.exec_driver_sql("DROP FUNCTION bid_commit_probe")


def _mails_after(app, before: int | None = None):
    """The newest mail's id, or with `before` the kinds of the mails stored after it."""
    with app.app_context():
        found = last_mail_id() if before is None else [m.kind for m in new_mails(before)]
        db.session.remove()
    return found


def test_a_bids_answer_leaves_only_once_its_commit_is_durable(race_app, market, commit_probe):
    """Whoever is told "accepted" finds the bid stored, even when the commit takes a second."""
    bid = bid_page(race_app, market.bidders[0])
    answer = bid(100_000, "slow-1")  # its commit takes a second (the probe)
    assert answer.status_code == 201, answer.get_json()
    # Read at once from another connection: an answer sent before the commit was written would
    # find nothing stored yet.
    assert _committed_bids(race_app, market.advert_ids[0]) == [(100_000, False)]


@pytest.mark.parametrize(
    ("key", "status", "message"),
    [
        ("fail-1", 500, "Something went wrong on our side. We have logged it."),
        ("full-1", 507, "There is no room left to store this. Nothing was saved"),
    ],
)
def test_a_bid_whose_commit_fails_is_answered_as_the_failure_and_mails_no_one(
    race_app, market, commit_probe, key, status, message
):
    """A commit that fails after the call answered: the bidder gets the app's answer to that
    database error, nothing is stored, and the bidder it would have outbid gets no mail; the
    next bid goes through."""
    rival, bidder = (bid_page(race_app, b) for b in (market.bidders[0], market.bidders[2]))
    assert rival(100_000, "ok-1").status_code == 201
    before = _mails_after(race_app)

    answer = bid_page(race_app, market.bidders[2])(101_000, key)
    body = answer.get_json()
    assert answer.status_code == status
    assert body["message"].startswith(message)
    assert body["requestId"] == answer.headers["X-Request-Id"] != ""
    assert _committed_bids(race_app, market.advert_ids[0]) == [(100_000, False)]
    assert _mails_after(race_app, before) == []

    assert bidder(101_000, "ok-2").status_code == 201  # outbids the rival, who is told
    assert _mails_after(race_app, before) == ["market_outbid"]
