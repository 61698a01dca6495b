"""Racing bidders: a seeded market (one seller, bidders in two currencies), threads that bid
on one advert through real, parallel database connections, and a check of what they left in
the database. Used by tests/market/test_bid_race.py and by bench/market_bids.py."""

from __future__ import annotations

import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal

from sqlalchemy import select

from app.auth.models import User
from app.core.models import Instance, utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.market.groups import add_partner
from app.market.invites import create_market_company
from app.market.links import ensure_link
from app.market.models import Advert, AdvertBid, AdvertMaximum, ExchangeRate
from app.market.rates import convert_back, convert_up, next_bid, rates_from
from app.market.status import MarketError

START, STEP, RATE = 100_000, 1_000, Decimal("1.0240")  # SEK adverts; 1 SEK = 1.0240 NOK


@dataclass
class Bidder:
    link_id: int
    link_hash: str
    group_hash: str
    advert_id: int
    advert_hash: str
    currency: str
    email: str


@dataclass
class Market:
    seller_instance_id: int
    advert_ids: list[int]
    bidders: list[Bidder]  # one per (advert, user)
    rates: dict[str, Decimal]


def seed_market(
    *, users: int = 20, adverts: int = 1, tag: str = "race", password_hash: str | None = None
) -> Market:
    """One SEK seller with `adverts` published adverts (ending in an hour, start 100 000, step
    1 000) and `users` bidders spread over four partner buyer groups, two in SEK and two in
    NOK, each with a bid link to every advert. Commits."""
    stamp = utcnow().replace(microsecond=0)
    _instance, seller = create_market_company(f"Seller {tag}", "SE", "SEK", buyer=False)
    seller.seller = True
    db.session.add(ExchangeRate(currency="SEK", to_currency="NOK", rate=RATE))
    db.session.flush()
    buyer_groups = []
    for n, (country, currency) in enumerate((("SE", "SEK"), ("NO", "NOK")) * 2):
        instance, group = create_market_company(f"Buyer {tag} {n}", country, currency)
        buyer_groups.append((instance, group))
        add_partner(seller.id, group.id)
    people = []
    for n in range(users):
        instance, group = buyer_groups[n % len(buyer_groups)]
        user = User(
            email=f"{tag}-{n}@market.test", password_hash=password_hash, firstname="Bidder",
            lastname=str(n), roles=["ROLE_USER"], modules=["market"], all_divisions=True,
            home_instance_id=instance.id, active_instance_id=instance.id,
        )  # fmt: skip
        user.instances = [db.session.get(Instance, instance.id)]
        db.session.add(user)
        people.append((user, group))
    db.session.flush()
    activate(seller.instance_id)
    market = Market(seller.instance_id, [], [], rates_from(seller.instance_id, "SEK"))
    for n in range(adverts):
        advert = Advert(
            seller_group_id=seller.id, regno=f"RCE{n:03d}", brand="Volvo", model="V60",
            model_year=2021, currency="SEK", start_price=START, bid_step=STEP,
            ends_at=stamp + timedelta(hours=1), status="published", published_at=stamp,
        )  # fmt: skip
        db.session.add(advert)
        db.session.flush()
        market.advert_ids.append(advert.id)
        for user, group in people:
            link = ensure_link(advert, user.id, group, "bid")
            market.bidders.append(
                Bidder(
                    link.id, link.hash, group.hash, advert.id, advert.hash, group.currency,
                    user.email,
                )
            )  # fmt: skip
    db.session.commit()
    activate(None)
    return market


def minimum_bid(advert_id: int, currency: str) -> int:
    """The lowest bid the advert takes now in `currency`, read in a transaction of its own."""
    db.session.rollback()
    advert = db.session.execute(
        select(Advert)
        .where(Advert.id == advert_id)
        .execution_options(all_instances=True, populate_existing=True)
    ).scalar_one()
    amount = convert_up(next_bid(advert), rates_from(advert.instance_id, advert.currency)[currency])
    db.session.rollback()
    return amount


@dataclass
class Race:
    accepted: list[int] = field(default_factory=list)  # the bid ids the placer returned
    refused: int = 0  # MarketError BID_TOO_LOW: outbid between reading and bidding
    errors: list[str] = field(default_factory=list)  # anything else
    peak: int = 0  # the most bid calls that were inside the database at the same moment
    seconds: float = 0.0


Placer = Callable[[int, int, str], int]  # (link id, amount, request key) -> bid id


def race(
    app,
    bidders: list[Bidder],
    placer: Placer,
    *,
    threads: int = 16,
    bids: int = 15,
    tries: int | None = None,
    seed: int = 1,
) -> Race:
    """`threads` bidders (one link each) bid on their advert at once until each has `bids`
    accepted bids or has made `tries` attempts (default: 20 per bid). Each bid is the minimum the bidder last
    read plus a small random extra; a bid refused as too low is followed by a fresh read."""
    result, lock = Race(), threading.Lock()
    inside = 0
    barrier = threading.Barrier(threads)

    def bidder(n: int) -> None:
        nonlocal inside
        rng, me = random.Random(seed * 1000 + n), bidders[n % len(bidders)]
        barrier.wait()
        accepted = attempts = 0
        while accepted < bids and attempts < (tries or bids * 20):
            attempts += 1
            with app.app_context():
                try:
                    amount = minimum_bid(me.advert_id, me.currency) + rng.choice(
                        (0, 0, 100, 700, 2500, 6000)
                    )
                    with lock:
                        inside += 1
                        result.peak = max(result.peak, inside)
                    try:
                        bid_id = placer(me.link_id, amount, f"race-{seed}-{n}-{attempts}")
                    finally:
                        with lock:
                            inside -= 1
                except MarketError as error:
                    with lock:
                        if error.key == "BID_TOO_LOW":
                            result.refused += 1
                        else:
                            result.errors.append(f"{error.key}: {error.message}")
                    continue
                except Exception as error:  # noqa: BLE001 - every failure is a finding here
                    with lock:
                        result.errors.append(repr(error)[:200])
                    continue
            accepted += 1
            with lock:
                result.accepted.append(bid_id)

    # The threads stand in for separate server processes. With Python's default 5 ms GIL
    # switch interval the bidder holding the advert's lock waits behind the others for the GIL
    # after each query, which stretches every locked transaction (a convoy the real, separate
    # processes do not have); a short interval keeps the race about the database.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0002)
    started = time.perf_counter()
    try:
        workers = [threading.Thread(target=bidder, args=(n,)) for n in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    finally:
        sys.setswitchinterval(interval)
    result.seconds = time.perf_counter() - started
    return result


def _proxy_problems(advert: Advert, rows: list[AdvertBid]) -> list[str]:
    """What is wrong with the maxima after a race: an automatic bid above its holder's maximum,
    or a group whose maximum could still beat the leader while the leader's own is lower."""
    maxima = db.session.scalars(
        select(AdvertMaximum)
        .where(AdvertMaximum.advert_id == advert.id)
        .execution_options(all_instances=True)
    ).all()
    if not maxima:
        return []
    found = []
    by_link = {m.link_id: m for m in maxima}
    over = [
        r.id
        for r in rows
        if r.automatic and r.link_id in by_link and r.amount > by_link[r.link_id].amount
    ]
    if over:
        found.append(f"{len(over)} automatic bids passed their holder's maximum")
    rates = rates_from(advert.instance_id, advert.currency)
    ceilings: dict[int, int] = {}
    for m in maxima:
        ceilings[m.group_id] = max(
            ceilings.get(m.group_id, 0), convert_back(m.amount, rates[m.currency])
        )
    lead = max(ceilings.get(advert.highest_group_id, 0), advert.highest_bid or 0)
    for group_id, ceiling in ceilings.items():
        if (
            group_id != advert.highest_group_id
            and ceiling >= advert.highest_bid + advert.bid_step
            and ceiling > lead
        ):
            found.append(
                f"group {group_id}'s maximum {ceiling} still beats the leader at {advert.highest_bid}"
            )
    if advert.maxima_count != len(maxima):
        found.append(f"maxima_count is {advert.maxima_count} for {len(maxima)} maxima")
    return found


def problems(advert_id: int, accepted: list[int]) -> list[str]:
    """Everything wrong with the advert's bids after a race, given the ids callers were told
    were accepted: an empty list when the bids were serialised."""
    db.session.rollback()
    found: list[str] = []
    advert = db.session.execute(
        select(Advert)
        .where(Advert.id == advert_id)
        .execution_options(all_instances=True, populate_existing=True)
    ).scalar_one()
    rows = db.session.scalars(
        select(AdvertBid)
        .where(AdvertBid.advert_id == advert_id)
        .order_by(AdvertBid.id)
        .execution_options(all_instances=True)
    ).all()
    twice = sorted(i for i, count in Counter(accepted).items() if count > 1)
    if twice:
        found.append(f"{len(twice)} bid ids were answered to two different bids: {twice[:5]}")
    ids = {row.id for row in rows}
    if missing := set(accepted) - ids:
        found.append(f"{len(missing)} accepted bids are not in the database")
    # The system's bids for maxima are answered to nobody; every other bid was.
    if extra := ids - set(accepted) - {row.id for row in rows if row.automatic}:
        found.append(f"{len(extra)} bids in the database were never answered as accepted")
    found += _proxy_problems(advert, rows)
    keys = Counter((row.link_id, row.request_key) for row in rows)
    if doubled := [key for key, count in keys.items() if count > 1]:
        found.append(f"{len(doubled)} request keys were recorded twice on one link")
    if advert.bid_count != len(rows):
        found.append(f"bid_count is {advert.bid_count} for {len(rows)} bids (lost updates)")
    if rows:
        amounts = [row.advert_amount for row in rows]
        if not advert.highest_bid == amounts[-1] == max(amounts):
            found.append(
                f"highest_bid {advert.highest_bid}, last bid {amounts[-1]}, max {max(amounts)}"
            )
        if advert.highest_group_id != rows[-1].group_id:
            found.append(f"the leader is {advert.highest_group_id}, the last bid's group another")
    elif advert.highest_bid is not None:
        found.append(f"highest_bid {advert.highest_bid} without any bid")
    rates = rates_from(advert.instance_id, advert.currency)
    previous, low, falls = None, 0, 0
    for row in rows:
        wanted = advert.start_price if previous is None else previous + advert.bid_step
        rate = rates[row.currency]
        if row.amount < convert_up(wanted, rate) or row.advert_amount != convert_back(
            row.amount, rate
        ):
            low += 1
        if previous is not None and row.advert_amount <= previous:
            falls += 1
        previous = row.advert_amount
    if low:
        found.append(f"{low} bids were below the next bid at their time")
    if falls:
        found.append(f"{falls} bids did not raise the highest bid")
    db.session.rollback()
    return found
