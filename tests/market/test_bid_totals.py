"""Issue 34: the seller's market statistics count the bids per buyer company from the totals
kept as bids are stored (app.market.bid_totals), not from a year of bids; what they show must
be what the bids themselves give, whichever way a bid was stored (on PostgreSQL a typed bid is
one call of market_place_bid, a maximum's automatic bids and buy now go through Python)."""

from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from sqlalchemy import delete, func, select

from app.extensions import db
from app.market import bid_totals
from app.market.models import Advert, AdvertBid, AdvertBidMonth, InstanceGroup
from app.market.statistics import seller_statistics, twelve_months
from tests.market._bid import (
    BUYER,
    MALMO,
    bid_path,
    group,
    link,
    make_advert,
    new_address,
    page_path,
    send,
    token,
)

EVERY = {"all_instances": True}


@pytest.fixture
def client(demo_app):
    client = demo_app.test_client()
    client.environ_base["REMOTE_ADDR"] = new_address()
    return client


def _post(client, ad, email, body, buy_now=False):
    ln = link(ad, email, "bid")
    path = bid_path(ad, ln)
    if buy_now:
        path = path.replace("/market-bid/", "/market-buy-now/")
    answer = send(client, "POST", path, body, token(client, page_path("bid", ad, ln)))
    assert answer.status_code in (200, 201), answer.json  # 200: a double tap's first bid
    return answer


def from_the_bids(seller: InstanceGroup) -> dict[str, int]:
    """Bids per buyer company on the seller's adverts this year, counted from the bids."""
    start = twelve_months(datetime.now(UTC).date())[0]
    rows = db.session.execute(
        select(InstanceGroup.name, func.count(AdvertBid.id))
        .join(AdvertBid, AdvertBid.group_id == InstanceGroup.id)
        .join(Advert, Advert.id == AdvertBid.advert_id)
        .where(
            Advert.seller_group_id == seller.id,
            AdvertBid.created_at >= datetime(start.year, start.month, 1, tzinfo=UTC),
        )
        .group_by(InstanceGroup.name)
        .execution_options(**EVERY)
    )
    return dict(rows.all())


def shown(seller: InstanceGroup) -> dict[str, int]:
    """Bids per buyer company as the statistics page has them."""
    return {row.name: row.bids for row in seller_statistics(seller).buyers if row.bids}


def month_rows() -> set[tuple]:
    return set(
        db.session.execute(
            select(
                AdvertBidMonth.seller_group_id,
                AdvertBidMonth.buyer_group_id,
                AdvertBidMonth.month,
                AdvertBidMonth.bids,
            ).execution_options(**EVERY, populate_existing=True)
        ).all()
    )


def test_bids_typed_automatic_and_bought_are_counted_as_the_bids_give_them(client):
    seller = group("Nordbil")
    before = shown(seller)
    assert before == from_the_bids(seller) and sum(before.values()) > 0  # the demo's bids

    ad = make_advert(bids=())
    _post(client, ad, BUYER, {"bid": 195_000, "requestKey": "typed-1"})
    _post(client, ad, BUYER, {"bid": 195_000, "requestKey": "typed-1"})  # a double tap
    _post(client, ad, MALMO, {"maximum": 230_000, "requestKey": "max-1"})  # answers at once
    _post(client, ad, BUYER, {"bid": 215_000, "requestKey": "typed-2"})  # Malmö's maximum answers
    other = make_advert(bids=())
    other.buy_now_price = 300_000
    db.session.flush()
    _post(client, other, MALMO, {"requestKey": "buy-1"}, buy_now=True)

    after = shown(seller)
    assert after == from_the_bids(seller)
    assert sum(after.values()) - sum(before.values()) == db.session.scalar(
        select(func.count(AdvertBid.id))
        .where(AdvertBid.advert_id.in_((ad.id, other.id)))
        .execution_options(**EVERY)
    ) == 5  # fmt: skip
    # The rows kept bid by bid are the rows a recount builds from the bids.
    kept = month_rows()
    bid_totals.recount()
    assert month_rows() == kept


def test_a_bid_counts_in_its_utc_month(demo_app):
    ad = db.session.scalar(select(Advert).order_by(Advert.id).execution_options(**EVERY))
    buyer = group("Fjord")
    oslo = timezone(timedelta(hours=2))
    for moment in (
        datetime(2026, 3, 31, 23, 30, tzinfo=UTC),
        datetime(2026, 4, 1, 0, 30, tzinfo=oslo),  # 22:30 UTC on 31 March
        datetime(2026, 4, 1, 0, 30, tzinfo=UTC),
    ):
        bid_totals.count_bid(ad.id, buyer.id, moment)
    by_month = {
        month: bids
        for seller, buyer_id, month, bids in month_rows()
        if (seller, buyer_id) == (ad.seller_group_id, buyer.id)
    }
    assert by_month[date(2026, 3, 1)] == 2 and by_month[date(2026, 4, 1)] == 1


def test_a_removed_buyer_company_takes_its_counts_with_its_bids(client):
    seller, malmo = group("Nordbil"), group("Malm")
    name, malmo_id = malmo.name, malmo.id
    ad = make_advert(bids=())
    _post(client, ad, MALMO, {"bid": 190_000, "requestKey": "gone-1"})
    assert shown(seller).get(name)
    groups = InstanceGroup.__table__
    db.session.execute(delete(groups).where(groups.c.id == malmo_id))
    db.session.expunge(malmo)
    assert name not in shown(seller)
    assert shown(seller) == from_the_bids(seller)
    assert not [row for row in month_rows() if row[1] == malmo_id]


def test_the_recount_command_builds_the_rows_from_the_bids(demo_app):
    """Bids written past the app (a COPY, a restore) are counted by `flask market recount-bids`."""
    kept = month_rows()
    assert kept, "the demo's market has bids"
    db.session.execute(delete(AdvertBidMonth).execution_options(**EVERY))
    db.session.flush()
    assert month_rows() == set()
    result = demo_app.test_cli_runner().invoke(args=["market", "recount-bids"])
    assert result.exit_code == 0, result.output
    assert f"{len(kept)} rows of bids per seller, buyer and month" in result.output
    assert month_rows() == kept
