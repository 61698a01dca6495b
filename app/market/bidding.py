"""Bids, maximum bids and buy now through a bidder's link, and their commit.

Every bid locks the advert's row for the whole decision (app.core.locking), so concurrent
bidders on one advert are serialised and its highest bid is always consistent; inside the lock
the maxima answer (app.market.maxima), the soft close moves the end, and the advert's state is
written once. The same request key on the same link records one bid. What is read and written
goes through one interface, app.market.bid_store.BidStore (on PostgreSQL a bid without maxima
is one call of the database function market_place_bid)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from flask_babel import gettext as _
from sqlalchemy.exc import IntegrityError

from app.core import audit
from app.core.happenings import announce
from app.core.models import utcnow
from app.extensions import db
from app.market import bidder_mail
from app.market.bid_store import BidStore, Book, PlacedBid, store
from app.market.links import BidLink, StaleLink, bid_link
from app.market.maxima import resolve_proxies, set_maximum
from app.market.models import MAX_AMOUNT
from app.market.rates import convert_back, convert_up, format_amount, next_bid, rates_from
from app.market.status import MarketError, bidding_closed_message


@dataclass(frozen=True)
class BidResult:
    bid: PlacedBid | None  # the bidder's own bid; None when a maximum alone was set
    duplicate: bool
    next_bid: int | None  # after this bid, in the bidder's currency
    leading: bool = True  # the bidder's company holds the highest bid after the transaction
    maximum: int | None = None  # the bidder's maximum now (their currency)
    ends_at: datetime | None = None
    extended: bool = False  # the soft close moved the end
    # Links of bidders whose company lost the lead in this transaction, to a typed bid or an
    # automatic raise, and did not win it back (they get a mail).
    outbid_links: tuple[int, ...] = ()
    # What bidder_mail.outbid would read for them, when the bid's own statement read it:
    # (subscribed bid link, its company's highest bid, currency); None: not read.
    outbid_mails: tuple[tuple[int, int, str], ...] | None = None


def _earlier_after_lock(state, link_id: int, request_key: str) -> PlacedBid | None:
    """The bid of this link and request key stored before the advert's lock was granted: read
    by market_place_bid after its lock when `state` is that function's answer, else now."""
    if "earlier_id" not in state._fields:
        return store().earlier(link_id, request_key)
    if state.earlier_id is None:
        return None
    return PlacedBid(
        state.earlier_id, state.earlier_amount, state.earlier_currency,
        state.earlier_advert_amount, state.earlier_created_at,
    )  # fmt: skip


def _no_rate(link: BidLink) -> MarketError:
    return MarketError(
        _(
            "No exchange rate from %(from)s to %(to)s is set for this advert. "
            "Please contact the seller.",
            **{"from": link.advert_currency, "to": link.currency},
        ),
        "NO_EXCHANGE_RATE",
    )


def _too_large() -> MarketError:
    return MarketError(_("The amount is too large."), "BID_TOO_HIGH")


def place_bid(
    link: BidLink | int,
    amount: int | None,
    request_key: str,
    maximum: int | None = None,
) -> BidResult:
    """Record a bid (and/or set the bidder's maximum) through a bidder's link, or raise
    MarketError. The advert's row is locked for the whole decision; inside it the maxima
    answer (proxy bids), the soft close moves the end, and the advert's state is written once.
    The same request key on the same link records one bid.

    This is the market's hottest path, so it speaks in columns, not objects: the rates are read
    before the lock (they do not depend on the bids), then under the lock one read of the
    advert's row, the maxima only when there are any, the bid's insert and one update."""
    link = bid_link(link) if isinstance(link, int) else link
    bids = store()
    state = None
    if maximum is None and amount is not None:
        state, result = _in_one_call(bids, link, amount, request_key)
        if result is not None:
            return result
    if state is None:  # (a remembered link's facts are checked under the lock)
        state = bids.locked_state(link)
    proxy = state.proxy_bidding and (state.maxima_count or maximum is not None)
    # Maxima may be in any currency: then every rate; else the link's own, read with it.
    rates = rates_from(link.instance_id, link.advert_currency) if proxy else link.rates()
    try:
        return _place(bids, link, state, rates, amount, request_key, maximum)
    except MarketError:
        if duplicate := _double_tap(state, link, request_key, rates):
            return duplicate
        raise


def _double_tap(state, link: BidLink, request_key: str, rates: dict) -> BidResult | None:
    """For a refused bid: the first tap's answer again when the request key was used before
    on the link (a double tap, whose first tap raised the next bid or ended the advert by a
    rule). Looked up after the lock, in a statement of its own, so on PostgreSQL (read
    committed) it sees the bid the lock waited for. Accepted bids need no look-up: a second
    insert of the key breaks the unique constraint."""
    if earlier := _earlier_after_lock(state, link.link_id, request_key):
        return BidResult(
            earlier, duplicate=True, next_bid=_next_in(state, rates.get(link.currency))
        )
    return None


def _in_one_call(bids: BidStore, link: BidLink, amount: int, request_key: str):
    """A bid without a maximum in one round trip, where the store has such a call
    (PostgreSQL). Returns the advert's locked state and the result, None when the call took no
    bid: then the lock is still held and the general path decides from the state (a refusal's
    reason, or the maxima that must answer). (None, None) where the store has no such call."""
    rate = link.rates().get(link.currency)
    if rate is None or not 0 < amount <= MAX_AMOUNT:
        return None, None
    advert_amount, now = convert_back(amount, rate), utcnow()
    values = {
        "now": now, "advert_amount": advert_amount, "user_id": link.user_id,
        "request_key": request_key, "amount": amount, "rate": rate,
    }  # fmt: skip
    row = bids.place_in_one_call(link, values)
    if row is None or row.bid_id is None:
        return row, None
    # Who led until this bid (the locked row as it was): the link of its last bid, which is
    # also its highest (every bid tops all before it), read by the same statement.
    lost = row.lost_link
    placed = BidResult(
        PlacedBid(row.bid_id, amount, link.currency, advert_amount, now),
        duplicate=False,
        next_bid=convert_up(advert_amount + row.bid_step, rate),
        leading=True,
        ends_at=row.new_ends_at,
        extended=row.new_ends_at != row.ends_at,
        outbid_links=(lost,) if lost is not None else (),
        outbid_mails=((lost, row.lost_amount, row.lost_currency),) if row.lost_mailed else (),
    )
    return row, placed


def _open_book(
    bids: BidStore, link: BidLink, state, rates: dict, now: datetime
) -> tuple[Book, int]:
    """The advert's book for a bid, and the lowest bid it takes in the bidder's currency; or
    MarketError when bidding is closed or the bidder's currency has no rate."""
    if reason := bidding_closed_message(state, now):
        raise MarketError(reason, "BIDDING_CLOSED")
    if (rate := rates.get(link.currency)) is None:
        raise _no_rate(link)
    book = Book(bids, link, state, rates, now)
    return book, convert_up(book.next, rate)


def _check_amount(link: BidLink, amount: int, minimum: int) -> None:
    if amount < minimum:
        raise MarketError(
            _(
                "Your bid must be at least %(amount)s %(currency)s.",
                amount=format_amount(minimum),
                currency=link.currency,
            ),
            "BID_TOO_LOW",
            next_bid=minimum,
        )
    if amount > MAX_AMOUNT:
        raise _too_large()


def _place(
    bids: BidStore, link: BidLink, state, rates: dict, amount, request_key: str, maximum
) -> BidResult:
    now = utcnow()
    book, minimum = _open_book(bids, link, state, rates, now)
    own_lead = state.highest_group_id == link.group_id
    automatic = False
    if maximum is not None:
        if not state.proxy_bidding:
            raise MarketError(_("This advert takes no maximum bids."), "PROXY_OFF")
        if maximum > MAX_AMOUNT:
            raise _too_large()
        floor = amount if amount is not None else minimum
        if maximum < floor:
            raise MarketError(
                _("Your maximum must be at least %(amount)s %(currency)s.",
                  amount=format_amount(floor), currency=link.currency),
                "MAXIMUM_TOO_LOW", next_bid=floor,
            )  # fmt: skip
        if amount is None and not own_lead:
            # A maximum alone: the system bids the minimum for it now (an automatic bid).
            amount, automatic = minimum, True
    if amount is not None:
        _check_amount(link, amount, minimum)
    maxima = (
        bids.maxima(link.advert_id)
        if state.proxy_bidding and (state.maxima_count or maximum is not None)
        else []
    )
    count = state.maxima_count
    own = next((m for m in maxima if m.link_id == link.link_id), None)
    if maximum is not None:
        maxima, count = set_maximum(bids, link, maxima, own, maximum, now, count)
    placed = None
    if amount is not None:
        placed = book.write(
            link.group_id, link.user_id, link.link_id, link.currency, amount, request_key,
            automatic=automatic,
        )  # fmt: skip
    if maxima:
        resolve_proxies(book, maxima)
    ends_at, extended = state.ends_at, False
    window = timedelta(seconds=state.soft_close_seconds or 0)
    if book.placed and window and ends_at - now < window:
        ends_at, extended = now + window, True
    if book.placed or count != state.maxima_count:
        bids.save_state(
            {
                "advert_id": link.advert_id, "highest": book.highest, "leader": book.leader,
                "placed": len(book.placed), "maxima": count, "ends": ends_at, "now": now,
            },
        )  # fmt: skip
        book.count()
    outbid, mails = _outbid(bids, link.advert_id, state, book)
    return BidResult(
        placed,
        duplicate=False,
        next_bid=convert_up(book.next, rates[link.currency]),
        leading=book.leader == link.group_id,
        maximum=maximum if maximum is not None else (own.amount if own else None),
        ends_at=ends_at,
        extended=extended,
        outbid_links=outbid,
        outbid_mails=mails,
    )


def _outbid(bids: BidStore, advert_id: int, state, book: Book):
    """The links of the companies that lost the lead in this transaction, and what
    bidder_mail.outbid needs of them when the locked state already read it: the usual case,
    where the one company outbid is the leader at the lock that bid nothing since."""
    wrote = {group for group, *_ in book.placed}
    links = []
    for group, link_id in dict(book.outbid).items():
        if group == book.leader:
            continue
        if link_id is None:
            read = group == state.highest_group_id and group not in wrote
            link_id = state.lost_link if read else bids.last_link(advert_id, group)
        if link_id is not None:
            links.append(link_id)
    if links != [state.lost_link] or state.highest_group_id in wrote:
        return tuple(links), None
    return tuple(links), (
        ((state.lost_link, state.lost_amount, state.lost_currency),) if state.lost_mailed else ()
    )


def _next_in(state, rate: Decimal | None) -> int | None:
    return convert_up(next_bid(state), rate) if rate is not None else None


# --- buy now -------------------------------------------------------------------------------


def buy_now_open(state) -> bool:
    """Buy now is offered while the advert has a price for it and the next bid has not passed
    it (`state`: an Advert or a row with its bidding columns)."""
    return state.buy_now_price is not None and next_bid(state) <= state.buy_now_price


def buy_now(link: BidLink | int, request_key: str) -> BidResult:
    """Take the advert's buy-now price through a bidder's link: serialised like a bid (the
    advert's row lock), the first taker's bid is stored (marked buy now) and the advert is
    allocated to its company at once; any later taker is refused with BOUGHT_BY_OTHER."""
    link = bid_link(link) if isinstance(link, int) else link
    if not link.checked:
        raise StaleLink
    rates = link.rates()
    rate = rates.get(link.currency)
    bids = store()
    state = bids.locked_state(link)
    if earlier := bids.earlier(link.link_id, request_key):
        return BidResult(earlier, duplicate=True, next_bid=None)
    now = utcnow()
    if state.status in ("allocated", "sold") and state.buy_now_price is not None:
        raise MarketError(
            _("Another buyer bought this vehicle first. Bidding has ended."), "BOUGHT_BY_OTHER"
        )
    if reason := bidding_closed_message(state, now):
        raise MarketError(reason, "BIDDING_CLOSED")
    if rate is None:
        raise _no_rate(link)
    if not buy_now_open(state):
        raise MarketError(
            _("This vehicle can no longer be bought at a fixed price; place a bid instead."),
            "BUY_NOW_CLOSED",
        )
    book = Book(bids, link, state, rates, now)
    amount = convert_up(state.buy_now_price, rate)
    placed = book.write(
        link.group_id, link.user_id, link.link_id, link.currency, amount, request_key,
        buy_now=True,
    )  # fmt: skip
    bids.mark_bought(link, state.buy_now_price, placed, now)
    book.count()
    audit.record(
        "market_advert_bought",
        instance_id=link.instance_id,
        advert=link.advert_id,
        previous=state.status,
        group=link.group_id,
        price=state.buy_now_price,
    )
    return BidResult(placed, duplicate=False, next_bid=None, ends_at=now)


def save_bid(
    link: BidLink | int,
    amount: int | None,
    request_key: str,
    maximum: int | None = None,
    notify: Callable[[BidResult], None] | None = None,
) -> BidResult:
    """place_bid and commit; a double tap that raced past the lookup returns the first bid.
    `notify(result)` runs inside the transaction, before the commit: the mails it stores are
    there exactly when the bid is (and on SQLite it writes under the lock the bid holds)."""
    link = bid_link(link) if isinstance(link, int) else link
    return _committed(link, request_key, notify, place_bid, amount, request_key, maximum)


def save_buy_now(
    link: BidLink | int, request_key: str, notify: Callable[[BidResult], None] | None = None
) -> BidResult:
    """buy_now and commit (a double tap: the first answer again); `notify` as for save_bid."""
    link = bid_link(link) if isinstance(link, int) else link
    return _committed(link, request_key, notify, buy_now, request_key)


def _committed(link: BidLink, request_key: str, notify, action, *args) -> BidResult:
    try:
        result = action(link, *args)
        if not result.duplicate:  # whoever lost the lead is told, by a mail sent after the commit
            bidder_mail.outbid(link.advert_id, result.outbid_links, result.outbid_mails)
            if notify is not None:
                notify(result)
            if result.bid is not None:
                announce(
                    "bid.placed", link.instance_id, advertId=link.advert_id,
                    amount=result.bid.amount, currency=result.bid.currency,
                    advertAmount=result.bid.advert_amount, advertCurrency=link.advert_currency,
                )  # fmt: skip
        db.session.commit()
        return result
    except IntegrityError:
        db.session.rollback()
        earlier = store().earlier(link.link_id, request_key)
        if earlier is None:
            raise
        return BidResult(earlier, duplicate=True, next_bid=None)
