"""Maximum bids (proxy bidding): a bidder's hidden ceiling, stored or raised, and the bids the
system places for the maxima under the advert's lock, so that the company with the highest
ceiling leads at the least the step rules need, as if everyone had bid step by step."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from flask_babel import gettext as _

from app.market.bid_store import BidStore, Book, store
from app.market.links import BidLink
from app.market.rates import convert_back, convert_up, format_amount
from app.market.status import MarketError


@dataclass
class _Ceiling:
    """A group's proxy ceiling in the advert's currency: its highest maximum (for the leader at
    least its highest bid) and the time that ranks it against equal ceilings."""

    group_id: int
    amount: int
    set_at: datetime | None
    maximum: object | None  # the row of _MAXIMA it comes from


def _ceilings(book: Book, maxima: list) -> dict[int, _Ceiling]:
    best: dict[int, _Ceiling] = {}
    for row in maxima:
        rate = book.rates.get(row.currency)
        if rate is None:  # the seller removed the rate: that maximum cannot bid
            continue
        amount = convert_back(row.amount, rate)
        held = best.get(row.group_id)
        if held is None or amount > held.amount:
            best[row.group_id] = _Ceiling(row.group_id, amount, row.set_at, row)
    if book.leader is not None:
        held = best.get(book.leader)
        if held is None or held.amount < book.highest:
            best[book.leader] = _Ceiling(book.leader, book.highest, None, None)
    return best


def _rank(ceilings: list[_Ceiling]) -> list[_Ceiling]:
    """Highest ceiling first; equal ceilings: the earliest maximum first."""
    return sorted(ceilings, key=lambda c: (-c.amount, c.set_at or datetime.max.replace(tzinfo=UTC)))


def _auto_bid(book: Book, ceiling: _Ceiling, target: int, key: str) -> bool:
    """The system's bid of `target` (advert's currency) for a maximum, in its holder's
    currency rounded up; False when that would pass the maximum."""
    row = ceiling.maximum
    amount = convert_up(target, book.rates[row.currency])
    if amount > row.amount:
        return False
    book.write(row.group_id, row.user_id, row.link_id, row.currency, amount, key, automatic=True)
    return True


def resolve_proxies(book: Book, maxima: list) -> None:
    """Let the maxima answer: the group with the highest ceiling (ties: the earliest maximum)
    ends up leading at the least the step rules need. When it is challenged, the runner-up's
    maximum is spent first (its last bid the winner can still beat by a step), then the winner
    bids one step above it: the outcome of bidding step by step, in at most two stored bids."""
    for _round in range(8):  # each round writes a bid and raises the highest; two or three do
        ceilings = _ceilings(book, maxima)
        ranked = [
            c
            for c in _rank(list(ceilings.values()))
            if c.group_id == book.leader or c.amount >= book.next
        ]
        if not ranked or (len(ranked) == 1 and ranked[0].group_id == book.leader):
            return
        winner, others = ranked[0], ranked[1:]
        runner = others[0] if others else None
        auto_key = f"auto-{secrets.token_hex(12)}"  # each automatic bid: a key of its own
        if winner.group_id == book.leader:
            # Challenged: the challenger spends its maximum up to where the winner still beats it.
            target = min(runner.amount, winner.amount - book.step)
            if target < book.next or runner.maximum is None:
                return
            if not _auto_bid(book, runner, target, auto_key):
                return
            continue
        if runner is not None and runner.maximum is not None:
            target = min(runner.amount, winner.amount - book.step)
            if target >= book.next and _auto_bid(book, runner, target, auto_key):
                continue
        if winner.maximum is None or not _auto_bid(book, winner, book.next, auto_key):
            return


def set_maximum(
    store: BidStore, link: BidLink, maxima: list, own, maximum: int, now: datetime, count: int
):
    """Store or raise the link's maximum (`own`: its row in `maxima`, if any); a lower one is
    refused. Returns the maxima as they are now and their count."""
    if own is not None and maximum < own.amount:
        raise MarketError(
            _(
                "A maximum can only be raised. Yours is %(amount)s %(currency)s.",
                amount=format_amount(own.amount),
                currency=own.currency,
            ),
            "MAXIMUM_LOWER",
        )
    if own is not None and maximum == own.amount:
        return maxima, count
    if own is None:
        store.insert_maximum(
            {
                "instance_id": link.instance_id, "advert_id": link.advert_id,
                "link_id": link.link_id, "group_id": link.group_id, "user_id": link.user_id,
                "amount": maximum, "currency": link.currency, "set_at": now,
            },
        )  # fmt: skip
        count += 1
        row_id = None
    else:
        store.raise_maximum(own.id, maximum, now)
        row_id = own.id
    mine = _MaximumRow(
        row_id, link.link_id, link.group_id, link.user_id, maximum, link.currency, now
    )
    return [m for m in maxima if m.link_id != link.link_id] + [mine], count


@dataclass(frozen=True)
class _MaximumRow:
    id: int | None
    link_id: int
    group_id: int
    user_id: int | None
    amount: int
    currency: str
    set_at: datetime


def own_maximum(link_id: int) -> tuple[int, str] | None:
    """The bidder's own maximum on the advert of their link (amount, currency), or None. Only
    the bidder's own page asks for it; no page or call of the seller's does."""
    row = store().own_maximum(link_id)
    return (row.amount, row.currency) if row else None
