"""The advert as a holder of a market link sees it: the vehicle, its bids, and what the link's
action (bid, allocate, change status) needs. The public bid page shows it at once and its data
call repeats it with the bids."""

from __future__ import annotations

from datetime import datetime

from flask import url_for
from flask_babel import gettext as _
from sqlalchemy import and_, func, select

from app.core import addresses
from app.core.models import utcnow
from app.extensions import db
from app.market import reserve
from app.market.bidding import buy_now_open
from app.market.links import link_hashes
from app.market.maxima import own_maximum
from app.market.models import Advert, AdvertBid, AdvertImage, InstanceGroup, MarketLink
from app.market.rates import convert_up, next_bid, rates_from
from app.market.status import (
    ALLOCATABLE,
    STATUS_LABELS,
    STATUSES,
    TRANSITIONS,
    bidding_closed_message,
    provisional_message,
)

# The bid history a page shows: the newest bids (the total is in bidCount).
HISTORY_LIMIT = 50


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _history(advert: Advert, own_group_id: int | None) -> list[dict]:
    """The newest bids, naming only the viewer's own group (own_group_id None: name every one)."""
    rows = db.session.execute(
        select(
            AdvertBid.amount,
            AdvertBid.currency,
            AdvertBid.created_at,
            AdvertBid.group_id,
            InstanceGroup.name,
            AdvertBid.automatic,
            AdvertBid.buy_now,
        )
        .join(InstanceGroup, InstanceGroup.id == AdvertBid.group_id)
        .where(AdvertBid.advert_id == advert.id)
        .order_by(AdvertBid.created_at.desc(), AdvertBid.id.desc())
        .limit(HISTORY_LIMIT)
        .execution_options(all_instances=True)
    ).all()
    return [
        {
            "bid": amount,
            "currency": currency,
            "createdAt": iso(created_at),
            "createdByInstanceGroup": (
                {"id": group_id, "name": name}
                if own_group_id is None or group_id == own_group_id
                else None
            ),
            "automatic": automatic,
            "buyNow": buy_now,
        }
        for amount, currency, created_at, group_id, name, automatic, buy_now in rows
    ]


def _bidders(advert: Advert) -> tuple[list[dict], dict[str, str]]:
    """Each bidding group's highest bid (as bidding.group_bids picks it), highest first, and
    the exchange rate each was converted with, by group id (the allocation shows both
    currencies)."""
    top = (
        select(AdvertBid.group_id, func.max(AdvertBid.advert_amount).label("top"))
        .where(AdvertBid.advert_id == advert.id)
        .group_by(AdvertBid.group_id)
        .subquery()
    )
    rows = db.session.execute(
        select(AdvertBid, InstanceGroup.name)
        .join(top, and_(top.c.group_id == AdvertBid.group_id, top.c.top == AdvertBid.advert_amount))
        .join(InstanceGroup, InstanceGroup.id == AdvertBid.group_id)
        .where(AdvertBid.advert_id == advert.id)
        .order_by(AdvertBid.advert_amount.desc(), AdvertBid.id.desc())
        .execution_options(all_instances=True)
    ).all()
    bidders: dict[int, dict] = {}
    rates: dict[str, str] = {}
    for bid, name in rows:
        if bid.group_id not in bidders and bid.rate is not None:
            rates[str(bid.group_id)] = format(bid.rate.normalize(), "f")
        bidders.setdefault(
            bid.group_id,
            {
                "id": bid.group_id,
                "name": name,
                "bid": bid.amount,
                "currency": bid.currency,
                "advertAmount": bid.advert_amount,
                "createdAt": iso(bid.created_at),
            },
        )
    return list(bidders.values()), rates


def _seller_name(advert: Advert, group: InstanceGroup) -> str:
    if group.id == advert.seller_group_id:
        return group.name
    return db.session.scalar(
        select(InstanceGroup.name)
        .where(InstanceGroup.id == advert.seller_group_id)
        .execution_options(all_instances=True)
    )


def _image_urls(action: str, link: MarketLink, group: InstanceGroup, advert: Advert) -> list:
    ids = db.session.scalars(
        select(AdvertImage.id)
        .where(AdvertImage.advert_id == advert.id)
        .order_by(AdvertImage.position, AdvertImage.id)
    ).all()
    hashes = link_hashes(link, group, advert)
    return [
        url_for("market.bid_image", action=action, image_id=image_id, **hashes) for image_id in ids
    ]


def advert_summary(advert: Advert) -> dict:
    return {
        "id": advert.id,
        "status": advert.status,
        "statusLabel": str(STATUS_LABELS[advert.status]),
        "statusNotes": advert.status_notes,
        "highestBid": advert.highest_bid,
        "nextBid": next_bid(advert),
        "allocatedInstanceGroupId": advert.allocated_group_id,
        "allocatedSalesPrice": advert.allocated_price,
        "allocatedNotes": advert.allocated_notes,
        "allocatedAt": iso(advert.allocated_at),
    }


def advert_view(action: str, link: MarketLink, advert: Advert, group: InstanceGroup) -> dict:
    """The vehicle as a link holder sees it: facts, status, end of bidding and photos. The page
    shows it at once; the page's data call repeats it with the bids."""
    return {
        "id": advert.id,
        "registrationNumber": advert.regno,
        "title": advert.title,
        "brand": advert.brand,
        "model": advert.model,
        "modelYear": advert.model_year,
        "mileage": advert.mileage,
        "fuelType": advert.fuel_type,
        "color": advert.color,
        "description": advert.description_read,
        "status": advert.status,
        "statusLabel": str(STATUS_LABELS[advert.status]),
        "endsAt": iso(advert.ends_at),
        "sellerName": _seller_name(advert, group),
        "location": addresses.shown(advert.address_id, advert.instance_id),
        "images": _image_urls(action, link, group, advert),
    }


def bid_request(action: str, link: MarketLink, advert: Advert, group: InstanceGroup) -> dict:
    """The page's data for one link: the advert, its bids and what the action needs."""
    now = utcnow()
    seller_view = action != "bid"
    bids = _history(advert, None if seller_view else group.id)
    data = advert_view(action, link, advert, group) | {
        "ended": advert.ends_at <= now,
        "activeGroup": {"id": group.id, "name": group.name},
        "activeGroupCurrency": group.currency,
        "currency": advert.currency,
        "startPrice": advert.start_price,
        "bidStep": advert.bid_step,
        "highestBid": advert.highest_bid,
        "nextBid": next_bid(advert),
        "bidCount": advert.bid_count or 0,
        "advertBids": bids,
        "proxyBidding": advert.proxy_bidding,
        "softCloseSeconds": advert.soft_close_seconds,
    }
    if action == "bid":
        closed = bidding_closed_message(advert, now)
        if closed is None and group.currency not in rates_from(advert.instance_id, advert.currency):
            closed = _(
                "No exchange rate from %(from)s to %(to)s is set for this advert. "
                "Please contact the seller.",
                **{"from": advert.currency, "to": group.currency},
            )
        data |= {
            "biddingOpen": closed is None,
            "closedMessage": closed,
            "leading": advert.highest_bid is not None and advert.highest_group_id == group.id,
            "allocatedToYou": advert.status in ("allocated", "sold")
            and advert.allocated_group_id == group.id,
            "yourMaximum": None,
            "buyNow": None,
        }
        if closed is None:
            data |= _bidder_options(advert, link, group)
        data["highestBidOwn"] = _in_own_currency(advert, group)
        data |= {
            "reserveNotMet": reserve.reserve_not_met(advert),
            "provisional": reserve.counter_view(
                advert, group, rates_from(advert.instance_id, advert.currency).get(group.currency)
            )
            if advert.status == "provisional"
            else None,
            "answerPath": f"_public/market-bid-counter/{group.hash}/{advert.hash}/{link.hash}",
        }
        if data["allocatedToYou"]:
            data |= {
                "allocatedSalesPrice": advert.allocated_price,
                "allocatedNotes": advert.allocated_notes,
            }
        return data
    data |= {
        "statusNotes": advert.status_notes,
        "allocatedInstanceGroupId": advert.allocated_group_id,
        "allocatedSalesPrice": advert.allocated_price,
        "allocatedNotes": advert.allocated_notes,
        "allocatedAt": iso(advert.allocated_at),
    }
    if action == "allocate":
        bidders, rates = _bidders(advert)
        names = {b["id"]: b["name"] for b in bidders}
        data |= _decision_elsewhere(advert)
        data |= {
            "bidders": bidders,
            "bidderRates": rates,
            "canAllocate": advert.status in ALLOCATABLE and bool(bidders),
            "allocatedInstanceGroup": (
                {"id": advert.allocated_group_id, "name": names.get(advert.allocated_group_id)}
                if advert.allocated_group_id
                else None
            ),
            "allocateMessage": _allocate_refusal(advert, bool(bidders)),
        }
    else:
        allowed = TRANSITIONS[advert.status]
        data |= _decision_elsewhere(advert)
        data["statuses"] = [
            {
                "value": status,
                "label": str(STATUS_LABELS[status]),
                "allowed": status in allowed,
                "current": status == advert.status,
            }
            for status in STATUSES
        ]
    return data


def _bidder_options(advert: Advert, link: MarketLink, group: InstanceGroup) -> dict:
    """The bidder's own maximum (their currency; only their own page sees it) and the buy-now
    price in their currency while buy now is offered."""
    options = {}
    if advert.proxy_bidding and (mine := own_maximum(link.id)):
        options["yourMaximum"] = {"amount": mine[0], "currency": mine[1]}
    if buy_now_open(advert):
        rate = rates_from(advert.instance_id, advert.currency).get(group.currency)
        if rate is not None:
            options["buyNow"] = {
                "amount": convert_up(advert.buy_now_price, rate),
                "currency": group.currency,
            }
    return options


def _in_own_currency(advert: Advert, group: InstanceGroup) -> dict | None:
    """The highest bid in the bidder's currency (rounded up, as the next bid is), when theirs
    is not the advert's and a rate is set: a bidder reads prices in their own money."""
    if advert.highest_bid is None or group.currency == advert.currency:
        return None
    rate = rates_from(advert.instance_id, advert.currency).get(group.currency)
    if rate is None:
        return None
    return {"amount": convert_up(advert.highest_bid, rate), "currency": group.currency}


def _decision_elsewhere(advert: Advert) -> dict:
    """A provisional sale is decided on the signed-in advert page, not through a link: the
    seller's link pages say so and lead there (nothing to change or allocate here)."""
    if advert.status != "provisional":
        return {"decisionMessage": None, "decisionUrl": None}
    return {
        "decisionMessage": provisional_message(),
        "decisionUrl": url_for("market.advert_page", advert_id=advert.id),
    }


def _allocate_refusal(advert: Advert, has_bidders: bool) -> str | None:
    if advert.status == "provisional":
        return provisional_message()
    if advert.status not in ALLOCATABLE:
        return _(
            "An advert that is %(status)s cannot be allocated.",
            status=str(STATUS_LABELS[advert.status]).lower(),
        )
    if not has_bidders:
        return _("No company has bid on this advert yet, so it cannot be allocated.")
    return None
