"""An advert's status: the states and the changes the seller may make, allocation to a
bidder, whether bidding is open, and the market's refusals (MarketError). Every change locks
the advert's row first (app.core.locking) and is written to the audit log."""

from __future__ import annotations

from datetime import datetime

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import select

from app.core import audit
from app.core.happenings import announce
from app.core.locking import locked
from app.core.models import utcnow
from app.extensions import db
from app.market.models import MAX_AMOUNT, Advert, AdvertBid

STATUSES = ("draft", "published", "closed", "provisional", "allocated", "sold", "withdrawn")
STATUS_LABELS = {
    "draft": _l("Draft"),
    "published": _l("Published"),
    "closed": _l("Closed"),
    # Bidding ended under the reserve: the seller decides (app.market.reserve).
    "provisional": _l("Provisionally sold"),
    "allocated": _l("Allocated"),
    "sold": _l("Sold"),
    "withdrawn": _l("Withdrawn"),
}
# The status changes the change-status form may make. An advert becomes allocated only by an
# allocation (which names the buyer and price); closing an allocated advert cancels it.
TRANSITIONS = {
    "draft": ("published", "withdrawn"),
    "published": ("closed", "withdrawn"),
    "closed": ("published", "withdrawn"),
    # Only the reserve's decisions (accept, decline, counter, the window passing) leave it.
    "provisional": (),
    "allocated": ("sold", "closed"),
    "sold": (),
    "withdrawn": ("draft",),
}
ALLOCATABLE = ("published", "closed")


class MarketError(Exception):
    """A refused market action; the message is translated and shown as it is."""

    def __init__(self, message: str, key: str = "MARKET_REFUSED", **extra) -> None:
        super().__init__(message)
        self.message, self.key, self.extra = message, key, extra


def bidding_closed_message(advert, now: datetime) -> str | None:
    """Why no bid is taken on the advert now, or None while bidding is open (`advert` is an
    Advert or a row with its status and ends_at)."""
    if advert.status == "withdrawn":
        return _("This advert has been withdrawn.")
    if advert.status in ("allocated", "sold"):
        return _("This advert has already been allocated to a buyer.")
    if advert.status == "provisional":
        return _("Bidding has ended under the seller's reserve.")
    if advert.status != "published":
        return _("Bidding on this advert is closed.")
    if advert.ends_at <= now:
        return _("Bidding on this advert has ended.")
    return None


def lock_advert(advert_id: int) -> Advert:
    """The advert, its row locked until the transaction ends (fresh: read after the lock)."""
    # populate_existing: the identity map may hold what was read before the lock.
    return locked(
        select(Advert)
        .where(Advert.id == advert_id)
        .execution_options(all_instances=True, populate_existing=True)
    ).scalar_one()


def group_bids(advert_id: int) -> dict[int, AdvertBid]:
    """Each bidding group's highest bid on the advert (in the advert's currency)."""
    best: dict[int, AdvertBid] = {}
    bids = db.session.scalars(
        select(AdvertBid)
        .where(AdvertBid.advert_id == advert_id)
        .order_by(AdvertBid.advert_amount, AdvertBid.id)
        .execution_options(all_instances=True)
    )
    for bid in bids:
        best[bid.group_id] = bid
    return best


def allocate(advert_id: int, group_id: int, price: int, notes: str | None, user_id: int) -> Advert:
    """Allocate the advert to a group that bid on it, at `price` in the advert's currency."""
    advert = lock_advert(advert_id)
    if advert.status == "provisional":
        raise MarketError(provisional_message(), "ILLEGAL_STATUS")
    if advert.status not in ALLOCATABLE:
        raise MarketError(
            _(
                "An advert that is %(status)s cannot be allocated.",
                status=str(STATUS_LABELS[advert.status]).lower(),
            ),
            "ILLEGAL_STATUS",
        )
    if group_id not in group_bids(advert.id):
        raise MarketError(_("Choose a company that has bid on this advert."), "UNKNOWN_BIDDER")
    if not 0 < price <= MAX_AMOUNT:
        raise MarketError(_("Enter a sales price above zero."), "INVALID_PRICE")
    previous = advert.status
    advert.status = "allocated"
    advert.allocated_group_id = group_id
    advert.allocated_price = price
    advert.allocated_notes = notes or None
    advert.allocated_at = utcnow()
    announce("advert.allocated", advert.instance_id, advertId=advert.id, groupId=group_id,
             price=price, currency=advert.currency)  # fmt: skip
    return record_change(
        "market_advert_allocated", advert, previous, user_id, group=group_id, price=price
    )


def record_change(action: str, advert: Advert, previous: str, user_id: int, **details) -> Advert:
    """Flush a change of the advert and write it to the audit log (in the seller's instance)."""
    db.session.flush()
    audit.record(
        action,
        instance_id=advert.instance_id,
        advert=advert.id,
        previous=previous,
        by=user_id,
        **details,
    )
    return advert


def change_status(advert_id: int, status: str, notes: str | None, user_id: int) -> Advert:
    """Move the advert to `status` if the state machine allows it, or raise MarketError."""
    advert = lock_advert(advert_id)
    if status not in STATUSES:
        raise MarketError(_("Choose a status from the list."), "STATUS_REQUIRED")
    if advert.status == "provisional":
        raise MarketError(provisional_message(), "ILLEGAL_STATUS")
    if status == "allocated" and advert.status in ALLOCATABLE:
        raise MarketError(
            _("Use the allocation form to allocate the advert to a bidder."), "ILLEGAL_STATUS"
        )
    if status not in TRANSITIONS[advert.status]:
        raise MarketError(
            _(
                "An advert cannot go from %(current)s to %(status)s.",
                current=str(STATUS_LABELS[advert.status]).lower(),
                status=str(STATUS_LABELS[status]).lower(),
            ),
            "ILLEGAL_STATUS",
        )
    now = utcnow()
    if status == "published" and advert.ends_at <= now:
        raise MarketError(
            _("The bidding time has ended. Change the end time before publishing again."),
            "ENDED",
        )
    previous = advert.status
    advert.status = status
    advert.status_notes = notes or None
    if status == "published" and advert.published_at is None:
        from app.market.watch import advert_published  # watch builds on this module

        advert.published_at = now
        advert_published(advert)  # first time on the market: the saved searches are matched
    if status == "sold":
        advert.sold_at = now
    if previous == "allocated" and status == "closed":
        advert.allocated_group_id = advert.allocated_price = advert.allocated_at = None
        advert.allocated_notes = None
    return record_change("market_advert_status", advert, previous, user_id, status=status)


def provisional_message() -> str:
    """Why a provisional sale's status is not changed or allocated by hand: the seller's
    decision (app.market.reserve) is made on the advert's page."""
    return _(
        "Bidding ended under your reserve: accept, decline or counter the highest bid on the "
        "advert's page in DealerCare. Its status follows your decision."
    )


def allowed_statuses(advert: Advert) -> tuple[str, ...]:
    return TRANSITIONS[advert.status]
