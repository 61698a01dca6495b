"""The public bid page's calls: read the advert, bid, buy now, poll its state, and allocate or
change the status through a seller's link.

The path's hashes are the authorisation, as for the page (app.market.public_bid): any wrong part
answers 404, the same whichever part it is, and every call counts against the public rate limit.
"""

from __future__ import annotations

from typing import Annotated

from flask import abort, jsonify
from flask_babel import gettext as _
from pydantic import (
    Field,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
)
from pydantic_core import PydanticCustomError
from sqlalchemy import select

from app.core.api import Schema, api_call, json_object, parse_body, parse_data
from app.core.messages import message
from app.core.ratelimit import check_public_rate
from app.extensions import db
from app.market import api_bp, bidder_mail, link_bids, notices
from app.market.bidding import save_buy_now
from app.market.link_view import advert_summary, bid_request, iso
from app.market.links import resolve_link, same_hash
from app.market.models import MAX_AMOUNT, Advert, InstanceGroup, MarketLink
from app.market.rates import currency_table, format_amount
from app.market.status import STATUS_LABELS, STATUSES, MarketError, allocate, change_status

NOTES_MAX = 255


def _found(action: str, group_hash: str, advert_hash: str, user_hash: str):
    """(link, advert, group) of the path, after the rate limit; 404 for any wrong part."""
    check_public_rate()
    found = resolve_link(action, group_hash, advert_hash, user_hash)
    if found is None:
        abort(404)
    return found


PUBLIC = "/_public/market-bid"


@api_call(api_bp, f"{PUBLIC}/<action>/<group_hash>/<advert_hash>/<user_hash>", public=True)
def market_bid_request(action: str, group_hash: str, advert_hash: str, user_hash: str):
    """The bid request of a public link: the advert, its bids and the action's choices."""
    link, advert, group = _found(action, group_hash, advert_hash, user_hash)
    return jsonify(bid_request(action, link, advert, group))


@api_call(
    api_bp, "/_public/market-advert/currencies/<group_hash>/<advert_hash>/<user_hash>", public=True
)
def market_advert_currencies(group_hash: str, advert_hash: str, user_hash: str):
    """The next bid in the advert's currency and in every currency with a rate (rounded up)."""
    check_public_rate()
    found = resolve_link("bid", group_hash, advert_hash, user_hash) or resolve_link(
        "allocate", group_hash, advert_hash, user_hash
    )
    if found is None:
        abort(404)
    return jsonify(currency_table(found[1]))


def _whole(value: int | None) -> int | None:
    if value is not None and value <= 0:
        raise PydanticCustomError("INVALID_VALUE", "INVALID_VALUE")
    return value


class BidBody(Schema):
    # The bid is required unless a maximum is given (the system then bids for it); null gets
    # the same FIELD_REQUIRED as a missing field, but the published schema says what is
    # accepted: a whole number above zero. (The maximum comes first: the bid's check reads it.)
    maximum: Annotated[
        int | None, WithJsonSchema({"type": "integer", "minimum": 1, "maximum": MAX_AMOUNT})
    ] = None
    bid: Annotated[
        int | None, WithJsonSchema({"type": "integer", "minimum": 1, "maximum": MAX_AMOUNT})
    ] = Field(default=None, validate_default=True)
    request_key: str = Field(alias="requestKey", min_length=1, max_length=40)

    @field_validator("maximum")
    @classmethod
    def _positive(cls, value: int | None) -> int | None:
        return _whole(value)

    @field_validator("bid")
    @classmethod
    def _present(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is None and info.data.get("maximum") is None:
            raise PydanticCustomError("FIELD_REQUIRED", "FIELD_REQUIRED")
        return _whole(value)


class BuyNowBody(Schema):
    request_key: str = Field(alias="requestKey", min_length=1, max_length=40)


class PlacedBid(Schema):
    id: int
    bid: int
    currency: str
    created_at: str = Field(serialization_alias="createdAt")


# Published only: the view writes the same keys itself (_bid_json, market_bid_place), keeping
# a bid's CPU free of a model; the generated-client gate (tests/gates/test_openapi.py) reads an
# answer through this schema.
class BidPlaced(Schema):
    """A bid's answer: placed (201), or the same requestKey again or a maximum saved (200)."""

    message: str
    bid: PlacedBid | None
    next_bid: int | None = Field(serialization_alias="nextBid")
    leading: bool
    maximum: int | None
    ends_at: str | None = Field(serialization_alias="endsAt")
    extended: bool


def refused(exc: MarketError):
    body = {"message": exc.message, "error": exc.key, "key": exc.key}
    if "next_bid" in exc.extra:
        body["nextBid"] = exc.extra["next_bid"]
    response = jsonify(body)
    response.status_code = 422
    return response


def _bid_json(bid) -> dict | None:
    """A placed bid as the bid calls answer it."""
    if bid is None:
        return None
    return {
        "id": bid.id,
        "bid": bid.amount,
        "currency": bid.currency,
        "createdAt": iso(bid.created_at),
    }


def _bid_link_or_404(hashes: link_bids.Hashes, fresh: bool = False):
    """The bidder's link of the path (remembered by the process unless `fresh`), or 404."""
    link = link_bids.bid_link(hashes, fresh=fresh)
    if link is None:
        abort(404)
    return link


@api_call(
    api_bp,
    f"{PUBLIC}/<group_hash>/<advert_hash>/<user_hash>",
    "POST",
    bodies=(BidBody,),
    response=BidPlaced,
    public=True,
    success=(200, 201),
)
def market_bid_place(group_hash: str, advert_hash: str, user_hash: str):
    """Place a bid through a bidder's link (201; the same requestKey again: 200, one bid).
    With `maximum` (proxy bidding) the bidder's hidden maximum is set or raised and the system
    bids for it, one step at a time; a maximum alone bids the next bid for the bidder (or, while
    they lead, only saves the maximum: 200). A refusal because the bid is too low also tells
    the lowest bid now accepted (nextBid). `leading` says whether the bidder still holds the
    highest bid after other bidders' maxima answered; `endsAt` is the end, moved by a late bid."""
    check_public_rate()
    hashes = (group_hash, advert_hash, user_hash)
    link = _bid_link_or_404(hashes)
    body = parse_body(BidBody)  # the link first: an unknown one is a 404 whatever its body
    try:
        result = link_bids.place_bid(hashes, link, body.bid, body.request_key, body.maximum)
    except MarketError as exc:
        db.session.rollback()
        return refused(exc)
    if result is None:  # the link went away while the bid was retried
        abort(404)
    bid = result.bid
    if bid is None:
        text = _("Your maximum is saved. Your company still has the highest bid.")
    elif not result.leading and not result.duplicate:
        text = _(
            "Your bid is placed, but another bidder's maximum is higher: you have been outbid."
        )
    else:
        text = message("BID_SENT")
    answer = {
        "message": text,
        "bid": _bid_json(bid),
        "nextBid": result.next_bid,
        "leading": result.leading,
        "maximum": result.maximum,
        "endsAt": iso(result.ends_at),
        "extended": result.extended,
    }
    return jsonify(answer), 201 if bid is not None and not result.duplicate else 200


@api_call(
    api_bp,
    "/_public/market-buy-now/<group_hash>/<advert_hash>/<user_hash>",
    "POST",
    bodies=(BuyNowBody,),
    public=True,
    success=(200, 201),
)
def market_bid_buy_now(group_hash: str, advert_hash: str, user_hash: str):
    """Buy the vehicle at its buy-now price through a bidder's link: the first taker gets it
    (201) and bidding ends; a later taker is refused (422 BOUGHT_BY_OTHER)."""
    check_public_rate()
    # Buy now decides on the link's facts as read in its own transaction.
    link = _bid_link_or_404((group_hash, advert_hash, user_hash), fresh=True)
    body = parse_body(BuyNowBody)
    try:
        result = save_buy_now(
            link,
            body.request_key,
            notify=lambda _bought: bidder_mail.tell("won", link.advert_id, [link.link_id]),
        )
    except MarketError as exc:
        db.session.rollback()
        return refused(exc)
    bid = result.bid
    answer = {
        "message": _("You bought the vehicle for %(amount)s %(currency)s. The seller will contact you.",
                     amount=format_amount(bid.amount), currency=bid.currency),
        "bid": _bid_json(bid),
    }  # fmt: skip
    return jsonify(answer), 200 if result.duplicate else 201


_STATE = select(
    MarketLink.kind,
    InstanceGroup.hash,
    Advert.hash,
    Advert.status,
    Advert.ends_at,
    Advert.highest_bid,
    Advert.bid_count,
).select_from(
    MarketLink.__table__.join(Advert.__table__, Advert.id == MarketLink.advert_id).join(
        InstanceGroup.__table__, InstanceGroup.id == MarketLink.group_id
    )
)


@api_call(
    api_bp, "/_public/market-advert/state/<group_hash>/<advert_hash>/<user_hash>", public=True
)
def market_advert_state(group_hash: str, advert_hash: str, user_hash: str):
    """The live end of bidding, the status and the count of bids of a link's advert: one small
    read the bid page polls, so that a soft-close extension shows without a reload."""
    check_public_rate()
    row = None
    if len(user_hash) <= 64:
        row = db.session.execute(_STATE.where(MarketLink.hash == user_hash)).first()
    if row is None or not (same_hash(row[1], group_hash) & same_hash(row[2], advert_hash)):
        abort(404)
    return jsonify(
        {
            "status": row.status,
            "endsAt": iso(row.ends_at),
            "highestBid": row.highest_bid,
            "bidCount": row.bid_count or 0,
        }
    )


def _required(value):
    if value is None:
        raise PydanticCustomError("FIELD_REQUIRED", "FIELD_REQUIRED")
    return value


class AllocateBody(Schema):
    """allocate: the bidder's group, the sales price and notes."""

    allocated_instance_group_id: Annotated[
        int | None, WithJsonSchema({"type": "integer", "minimum": 1})
    ] = Field(alias="allocatedInstanceGroupId")
    allocated_sales_price: Annotated[
        int | None, WithJsonSchema({"type": "integer", "minimum": 1, "maximum": MAX_AMOUNT})
    ] = Field(alias="allocatedSalesPrice")
    allocated_notes: str | None = Field(default=None, alias="allocatedNotes", max_length=NOTES_MAX)

    @field_validator("allocated_instance_group_id")
    @classmethod
    def _group(cls, value: int | None) -> int:
        return _required(value)

    @field_validator("allocated_sales_price")
    @classmethod
    def _price(cls, value: int | None) -> int:
        if _required(value) <= 0:
            raise PydanticCustomError("INVALID_VALUE", "INVALID_VALUE")
        return value


class StatusBody(Schema):
    """change-status: the new status and notes."""

    status: Annotated[str | None, WithJsonSchema({"type": "string", "enum": list(STATUSES)})] = (
        Field(max_length=20)
    )
    status_notes: str | None = Field(default=None, alias="statusNotes", max_length=NOTES_MAX)

    @field_validator("status")
    @classmethod
    def _status(cls, value: str | None) -> str:
        if not value:
            raise PydanticCustomError("FIELD_REQUIRED", "FIELD_REQUIRED")
        if value not in STATUSES:
            raise PydanticCustomError("INVALID_VALUE", "INVALID_VALUE")
        return value


@api_call(
    api_bp,
    f"{PUBLIC}/<action>/<group_hash>/<advert_hash>/<user_hash>",
    "PUT",
    public=True,
    bodies=(AllocateBody, StatusBody),
)
def market_bid_update(action: str, group_hash: str, advert_hash: str, user_hash: str):
    """Allocate the advert or change its status through a seller's link (one body per action:
    allocate {allocatedInstanceGroupId, allocatedSalesPrice, allocatedNotes}, change-status
    {status, statusNotes})."""
    if action not in ("allocate", "change-status"):
        abort(404)
    link, advert, _group = _found(action, group_hash, advert_hash, user_hash)
    data = json_object()
    advert_id, user_id = advert.id, link.user_id
    try:
        if action == "allocate":
            body = parse_data(AllocateBody, data)
            advert = allocate(
                advert_id,
                body.allocated_instance_group_id,
                body.allocated_sales_price,
                body.allocated_notes,
                user_id,
            )
            notices.notify_allocation(advert)
            text = _("The advert has been allocated. The buyer and the seller get an e-mail.")
        else:
            body = parse_data(StatusBody, data)
            before = (advert.status, advert.allocated_group_id, advert.allocated_price)
            advert = change_status(advert_id, body.status, body.status_notes, user_id)
            notices.notify_status(advert, *before)
            text = _("The status is now %(status)s.", status=str(STATUS_LABELS[advert.status]))
    except MarketError as exc:
        db.session.rollback()
        return refused(exc)
    db.session.commit()
    return jsonify({"message": text, "advert": advert_summary(advert)})


# The calls a bidder's page makes most: their rate-limit count goes to Redis as they start.
