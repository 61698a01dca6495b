"""The hidden reserve and the counteroffer.

An advert may carry a reserve (its currency; bidders never see the amount, at most that it is
not met). Bidding that ends with a highest bid under it does not close the advert: it becomes
*provisionally sold* to the highest bidder's group, and the seller has the group's decision
window (market settings, default 48 hours) to accept that bid (the advert is allocated at it),
decline (the advert closes unsold) or counter with a higher price. A counter gives the bidder
the same window to accept (allocated at the counter price) or decline (closed unsold) through
their own bid link. When a window passes unanswered, the scheduled `expire_decisions` closes
the advert unsold and tells both sides.

Every step locks the advert's row first (as a bid does, app.core.locking), so a late bid, an
answer and the expiry job are serialised: whichever comes second sees the first one's result.
Every step is audited and e-mailed; a step refused leaves nothing behind.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from flask_babel import gettext as _
from sqlalchemy import select

from app.core.models import utcnow
from app.extensions import db
from app.market import bidder_mail, notices
from app.market.endings import one_by_one, tell_sellers, told
from app.market.models import MAX_AMOUNT, Advert, AdvertBid, InstanceGroup, MarketLink
from app.market.rates import convert_up, format_amount
from app.market.status import MarketError, lock_advert, record_change

DEFAULT_HOURS = 48
MAX_HOURS = 14 * 24
DECISIONS = ("accept", "decline", "counter")
ANSWERS = ("accept", "decline")


def reserve_not_met(advert) -> bool:
    """What a bidder may know of the reserve: that there is one the highest bid is under."""
    return bool(advert.reserve_price) and (advert.highest_bid or 0) < advert.reserve_price


def default_reserve(start_price: int, percent: int | None) -> int | None:
    """A new advert's reserve from the seller's default percentage above the start price."""
    if not percent:
        return None
    return min(MAX_AMOUNT, -(-start_price * (100 + percent) // 100))


def _window(advert: Advert) -> timedelta:
    hours = db.session.scalar(
        select(InstanceGroup.decision_hours)
        .where(InstanceGroup.id == advert.seller_group_id)
        .execution_options(all_instances=True)
    )
    return timedelta(hours=hours or DEFAULT_HOURS)


def _leading_link(advert: Advert) -> MarketLink | None:
    """The bid link that placed the group's highest bid on the advert (it gets the mails)."""
    return db.session.scalar(
        select(MarketLink)
        .join(AdvertBid, AdvertBid.link_id == MarketLink.id)
        .where(AdvertBid.advert_id == advert.id, AdvertBid.group_id == advert.provisional_group_id)
        .order_by(AdvertBid.advert_amount.desc(), AdvertBid.id)
        .limit(1)
        .execution_options(all_instances=True)
    )


def _tell_bidder(kind: str, advert: Advert, **context) -> None:
    link = _leading_link(advert)
    if link is not None:
        bidder_mail.send(kind, link, advert, **context)


# --- the end of bidding ------------------------------------------------------------------------


def end_advert(advert_id: int, now: datetime | None = None) -> Advert | None:
    """End a published advert whose time is up: closed, or provisionally sold when its highest
    bid is under the reserve. None (nothing changed) when it is not due any more: closed or
    withdrawn meanwhile, or its end moved on under the lock."""
    now = now or utcnow()
    advert = lock_advert(advert_id)
    if advert.status != "published" or advert.ends_at > now:
        return None
    if advert.highest_bid is None or not reserve_not_met(advert):
        advert.status = "closed"
        return record_change("market_advert_status", advert, "published", None, status="closed")
    leader = db.session.scalar(
        select(AdvertBid.group_id)
        .where(AdvertBid.advert_id == advert.id)
        .order_by(AdvertBid.advert_amount.desc(), AdvertBid.id)
        .limit(1)
        .execution_options(all_instances=True)
    )
    advert.status = "provisional"
    advert.provisional_group_id = leader
    advert.decision_due_at = now + _window(advert)
    record_change(
        "market_advert_provisional", advert, "published", None,
        group=leader, highest=advert.highest_bid, reserve=advert.reserve_price,
    )  # fmt: skip
    _tell_bidder("provisional", advert)
    return advert


# --- the steps ---------------------------------------------------------------------------------


def _refuse_unless_open(advert: Advert, now: datetime, *, countered: bool) -> None:
    """The step fits: the advert is provisionally sold, waiting for this side, in time."""
    if advert.status != "provisional":
        raise MarketError(
            _("The advert is no longer provisionally sold, so there is nothing to answer."),
            "ILLEGAL_STATUS",
        )
    if countered and advert.counter_price is None:
        raise MarketError(_("The seller has made no counteroffer."), "NO_COUNTEROFFER")
    if not countered and advert.counter_price is not None:
        raise MarketError(
            _("You have made a counteroffer: the bidder answers it now."), "COUNTERED"
        )
    if advert.decision_due_at is None or advert.decision_due_at <= now:
        raise MarketError(
            _("The time to answer has passed: the advert ends unsold."), "WINDOW_PASSED"
        )


def _settle(advert: Advert) -> int:
    """Forget the provisional sale's state; returns the group it was with."""
    group_id = advert.provisional_group_id
    advert.provisional_group_id = advert.counter_price = advert.decision_due_at = None
    return group_id


def _sell(advert: Advert, price: int, user_id: int | None, action: str, now: datetime) -> Advert:
    group_id = _settle(advert)
    advert.status = "allocated"
    advert.allocated_group_id, advert.allocated_price = group_id, price
    advert.allocated_notes, advert.allocated_at = None, now
    record_change(action, advert, "provisional", user_id, group=group_id, price=price)
    notices.notify_allocation(advert)  # the buyer (a bidder mail) and the sellers
    return advert


def _unsold(advert: Advert, user_id: int | None, action: str, **details) -> Advert:
    """Close the advert unsold and tell the bidder (the group's leading link)."""
    _tell_bidder("ended_unsold", advert, reason=action, **details)
    group_id = _settle(advert)
    advert.status = "closed"
    return record_change(action, advert, "provisional", user_id, group=group_id, **details)


def seller_decides(
    advert_id: int, decision: str, user_id: int, counter_price: int | None = None
) -> Advert:
    """The seller's answer to a provisional sale: accept the highest bid, decline, or counter
    with a price above it (which the bidder then answers). Raises MarketError when refused."""
    now = utcnow()
    advert = lock_advert(advert_id)
    if decision not in DECISIONS:
        raise MarketError(_("Choose accept, decline or counter."), "INVALID_VALUE")
    _refuse_unless_open(advert, now, countered=False)
    if decision == "accept":
        return _sell(advert, advert.highest_bid, user_id, "market_reserve_accepted", now)
    if decision == "decline":
        return _unsold(advert, user_id, "market_reserve_declined")
    if counter_price is None:
        raise MarketError(_("Enter the price you offer the vehicle for."), "FIELD_REQUIRED")
    if not advert.highest_bid < counter_price <= MAX_AMOUNT:
        raise MarketError(
            _(
                "The counteroffer must be above the highest bid of %(amount)s %(currency)s.",
                amount=format_amount(advert.highest_bid),
                currency=advert.currency,
            ),
            "COUNTER_TOO_LOW",
        )
    advert.counter_price = counter_price
    advert.decision_due_at = now + _window(advert)
    record_change(
        "market_reserve_countered", advert, "provisional", user_id,
        group=advert.provisional_group_id, price=counter_price,
    )  # fmt: skip
    _tell_bidder("countered", advert)
    return advert


def bidder_answers(advert_id: int, group_id: int, answer: str, user_id: int) -> Advert:
    """The highest bidder's answer to the seller's counteroffer, through its bid link: accept
    (allocated at the counter price) or decline (closed unsold)."""
    now = utcnow()
    advert = lock_advert(advert_id)
    _refuse_unless_open(advert, now, countered=True)
    if advert.provisional_group_id != group_id:
        raise MarketError(
            _("Only the company with the highest bid can answer the counteroffer."),
            "NOT_HIGHEST_BIDDER",
        )
    if answer == "accept":
        return _sell(advert, advert.counter_price, user_id, "market_counter_accepted", now)
    price, buyer = advert.counter_price, notices.names(advert, group_id)[1]
    _unsold(advert, user_id, "market_counter_declined", price=price)
    tell_sellers(
        advert, "market_reserve_outcome", outcome="declined", price=price, buyer_name=buyer
    )
    return advert


def expire_decisions(now: datetime | None = None) -> int:
    """Job: close unsold every provisional sale whose window passed unanswered and tell both
    sides; one transaction per advert. Returns the number closed."""
    now = now or utcnow()

    def expire(advert_id: int) -> Advert | None:
        advert = lock_advert(advert_id)
        if advert.status != "provisional" or advert.decision_due_at > now:
            return None  # answered meanwhile
        waiting = "bidder" if advert.counter_price is not None else "seller"
        price = advert.counter_price
        buyer = notices.names(advert, advert.provisional_group_id)[1]
        _unsold(advert, None, "market_reserve_expired", waiting=waiting)
        return told(
            advert, "market_reserve_outcome",
            outcome=f"expired_{waiting}", price=price, buyer_name=buyer,
        )  # fmt: skip

    due = (
        select(Advert.id)
        .where(Advert.status == "provisional", Advert.decision_due_at <= now)
        .order_by(Advert.decision_due_at)
    )
    return one_by_one(due, expire)


def counter_view(advert: Advert, group: InstanceGroup, rate) -> dict:
    """What a bidder's page shows of a provisional sale (nothing of the reserve's amount)."""
    mine = advert.provisional_group_id == group.id
    data = {
        "yours": mine,
        "dueAt": advert.decision_due_at.isoformat() if advert.decision_due_at else None,
        "counterPrice": advert.counter_price if mine else None,
        "counterInYourCurrency": None,
    }
    if mine and advert.counter_price is not None and rate is not None:
        data["counterInYourCurrency"] = convert_up(advert.counter_price, rate)
    return data
