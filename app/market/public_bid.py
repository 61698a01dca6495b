"""The public bid page and its calls: bid, allocate and change status through a market link.

Bidders and sellers open these pages from e-mailed links and never sign in. The path parts
(action, group hash, advert hash, user hash) are the authorisation: bidding.resolve_link checks
them all and any wrong part answers 404, the same whichever part it is. Every page and call
counts against the public rate limit.
"""

from __future__ import annotations

from datetime import datetime
from io import BytesIO
from typing import Annotated

from flask import abort, jsonify, redirect, render_template, send_file, url_for
from flask_babel import gettext as _
from pydantic import (
    BaseModel,
    Field,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
)
from pydantic_core import PydanticCustomError
from sqlalchemy import and_, func, select

from app.core.api import Schema, api_call, json_object, parse_body, validation_error
from app.core.locking import immediate
from app.core.messages import message
from app.core.models import utcnow
from app.core.pages import public_page
from app.core.ratelimit import check_public_rate
from app.extensions import db
from app.market import api_bp, bidder_mail, bp, notices, reserve
from app.market.bidding import buy_now_open, save_bid, save_buy_now
from app.market.links import ACTIONS, StaleLink, resolve_bid_link, resolve_link, same_hash
from app.market.maxima import own_maximum
from app.market.models import MAX_AMOUNT, Advert, AdvertBid, AdvertImage, InstanceGroup, MarketLink
from app.market.rates import convert_up, currency_table, format_amount, next_bid, rates_from
from app.market.status import (
    ALLOCATABLE,
    STATUS_LABELS,
    STATUSES,
    TRANSITIONS,
    MarketError,
    allocate,
    bidding_closed_message,
    change_status,
    provisional_message,
)
from app.preparation.files import SMALL_CONTENT_TYPE
from app.preparation.models import FileObject

# The bid history a page shows: the newest bids (the total is in bidCount).
HISTORY_LIMIT = 50
NOTES_MAX = 255


# --- the page --------------------------------------------------------------------------------


def page_texts(action: str) -> dict[str, str]:
    """Every text the page script shows, translated for this request."""
    texts = {
        "loadFailed": _("The advert could not be loaded."),
        "retry": _("Try again"),
        # core.js api(): a call that got no answer.
        "connectionError": _("No connection to the server. Check your network and try again."),
        "timeLeftDays": _("%(days)s d %(hours)s h left"),
        "timeLeftHours": _("%(hours)s h %(minutes)s min left"),
        "timeLeftMinutes": _("%(minutes)s min left"),
        "ended": _("Ended"),
        "noBids": _("No bids yet"),
        "historyMore": _("The %(count)s most recent of %(total)s bids are shown."),
        "yourCompany": _("Your company"),
        "anotherBidder": _("Another bidder"),
        "saving": _("Sending…"),
    }
    if action != "bid":  # the seller's notes field counts its characters
        texts["charactersLeft"] = _("%(count)s of %(max)s characters")
        texts["openAdvert"] = _("Open the advert's page")
    if action == "bid":
        texts |= {
            "currencies": _("Next bid per currency"),
            "nextBid": _("Next bid"),
            "yourCurrency": _("your currency"),
            "bidHint": _("At least %(amount)s %(currency)s."),
            "bidTooLow": _("Your bid must be at least %(amount)s %(currency)s."),
            "leading": _("Your company has the highest bid."),
            "allocatedToYou": _(
                "This vehicle has been allocated to your company for %(amount)s %(currency)s."
            ),
            "automatic": _("automatic"),
            "buyNowTitle": _("Buy now"),
            "buyNow": _("Buy now for %(amount)s %(currency)s"),
            "buyNowHint": _(
                "The first buyer to take this price gets the vehicle and bidding ends."
            ),
            "buyNowConfirm": _("Confirm: buy for %(amount)s %(currency)s"),
            "cancel": _("Cancel"),
            "maximumTitle": _("Bid automatically up to a maximum"),
            "maximumLabel": _("Your maximum in %(currency)s"),
            "maximumHint": _(
                "The system bids for you, one step at a time, up to this amount. "
                "The seller never sees it."
            ),
            "yourMaximum": _("Your maximum is %(amount)s %(currency)s."),
            "setMaximum": _("Set maximum"),
            "raiseMaximum": _("Raise maximum"),
            "softClose": _(
                "A bid in the last %(seconds)s seconds moves the end %(seconds)s seconds after "
                "that bid."
            ),
        } | reserve_texts()
    elif action == "allocate":
        texts |= {
            "bidders": _("Choose the buyer"),
            "noBidders": _("No company has bid on this advert yet, so it cannot be allocated."),
            "bidderBid": _("Highest bid %(amount)s %(currency)s"),
            "bidderRate": _("rate %(rate)s"),
            "priceLabel": _("Sales price in %(currency)s"),
            "priceHint": _("Filled in from the chosen buyer's bid; you may change it."),
            "priceInCurrencies": _("The sales price per currency"),
            "amount": _("Amount"),
            "buyerCurrency": _("the buyer's currency"),
            "notesLabel": _("Notes to the buyer (optional)"),
            "submitAllocate": _("Allocate"),
            "allocatedTo": _("Allocated to %(company)s for %(amount)s %(currency)s."),
        }
    else:
        texts |= {
            "statusLabel": _("New status"),
            "chooseStatus": _("Choose a status"),
            "current": _("%(label)s (current)"),
            "allowedHint": _("From %(current)s the advert can go to: %(allowed)s."),
            "noneAllowed": _("The advert's status can no longer be changed."),
            "notesLabel": _("Notes (optional)"),
            "submitStatus": _("Change status"),
        }
    return texts


def reserve_texts() -> dict[str, str]:
    """The bidder's texts of the reserve and of a provisional sale (app.market.reserve)."""
    return {
        "reserveNotMet": _("Reserve not met"),
        "provisionalYours": _(
            "Bidding ended under the seller's reserve. Your company's bid is the highest: the "
            "seller accepts it, declines it or makes you a counteroffer by %(time)s."
        ),
        "provisionalOther": _("Bidding has ended. The seller is deciding on the highest bid."),
        "counterTitle": _("The seller's counteroffer"),
        "counterText": _(
            "The seller offers your company the vehicle for %(amount)s %(currency)s. "
            "Answer by %(time)s; without an answer the advert ends unsold."
        ),
        "counterOwn": _("About %(amount)s %(currency)s in your currency."),
        "acceptCounter": _("Accept and buy"),
        "declineCounter": _("Decline"),
    }


def _titles(action: str) -> tuple[str, str]:
    """The page's heading and its action card's title."""
    return {
        "bid": (_("Bid on the vehicle"), _("Your bid")),
        "allocate": (_("Allocate the vehicle to a buyer"), _("Allocate the vehicle")),
        "change-status": (_("Change the advert's status"), _("Change the status")),
    }[action]


def _link_missing():
    return render_template("market/bid_missing.html"), 404


@bp.get("/market-bid/<action>/<group_hash>/<advert_hash>/<user_hash>")
@public_page
def bid_page(action: str, group_hash: str, advert_hash: str, user_hash: str):
    """Spec 02: the bid, allocate or change-status page of one person's link."""
    if action not in ACTIONS:
        return redirect(url_for("auth.login"))
    check_public_rate()
    found = resolve_link(action, group_hash, advert_hash, user_hash)
    if found is None:
        return _link_missing()
    link, advert, group = found
    heading, form_title = _titles(action)
    return render_template(
        "market/bid.html",
        action=action,
        heading=heading,
        form_title=form_title,
        advert=advert,
        group=group,
        vehicle=advert_view(action, link, advert, group),
        amount=format_amount,
        link_path=f"{action}/{group_hash}/{advert_hash}/{user_hash}",
        # A bidder's phone loads the bid form only; a seller's link adds the seller's forms.
        page_script="market-bid.js" if action == "bid" else "market-bid-seller.js",
        page_texts=page_texts(action),
    )


@bp.get("/market-bid-image/<action>/<group_hash>/<advert_hash>/<user_hash>/<int:image_id>")
@public_page
def bid_image(action: str, group_hash: str, advert_hash: str, user_hash: str, image_id: int):
    """One of the advert's images (its small variation when there is one) for a link holder."""
    check_public_rate()
    found = resolve_link(action, group_hash, advert_hash, user_hash)
    if found is None:
        abort(404)
    advert = found[1]
    row = db.session.execute(
        select(FileObject.name, FileObject.content_type, FileObject.small, FileObject.data)
        .join(AdvertImage, AdvertImage.file_object_id == FileObject.id)
        .where(AdvertImage.id == image_id, AdvertImage.advert_id == advert.id)
        .where(FileObject.instance_id == advert.instance_id)
    ).first()
    if row is None or not row.content_type.startswith("image/"):
        abort(404)
    small = row.small is not None
    response = send_file(
        BytesIO(row.small if small else row.data),
        mimetype=SMALL_CONTENT_TYPE if small else row.content_type,
        download_name=row.name,
        max_age=0,
        conditional=False,
        etag=False,
    )
    response.headers["Cache-Control"] = "no-store"  # a private file: never kept by a cache
    return response


# --- reading the advert ----------------------------------------------------------------------


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _found(action: str, group_hash: str, advert_hash: str, user_hash: str):
    """(link, advert, group) of the path, after the rate limit; 404 for any wrong part."""
    check_public_rate()
    found = resolve_link(action, group_hash, advert_hash, user_hash)
    if found is None:
        abort(404)
    return found


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
            "createdAt": _iso(created_at),
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
                "createdAt": _iso(bid.created_at),
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
    return [
        url_for(
            "market.bid_image",
            action=action,
            group_hash=group.hash,
            advert_hash=advert.hash,
            user_hash=link.hash,
            image_id=image_id,
        )
        for image_id in ids
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
        "allocatedAt": _iso(advert.allocated_at),
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
        "description": advert.description,
        "status": advert.status,
        "statusLabel": str(STATUS_LABELS[advert.status]),
        "endsAt": _iso(advert.ends_at),
        "sellerName": _seller_name(advert, group),
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
        "allocatedAt": _iso(advert.allocated_at),
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


# --- the calls -------------------------------------------------------------------------------

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


def _refused(exc: MarketError):
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
        "createdAt": _iso(bid.created_at),
    }


def _bid_link_or_404(group_hash: str, advert_hash: str, user_hash: str, fresh: bool = False):
    """The bidder's link (remembered by the process unless `fresh`), or 404."""
    with immediate():  # on SQLite the link is read in the bid's own transaction, write-locked
        link = resolve_bid_link(group_hash, advert_hash, user_hash, fresh=fresh)
    if link is None:
        abort(404)
    return link


def _save_bid(hashes: tuple[str, str, str], link, body: BidBody):
    """save_bid; when the remembered link no longer holds (StaleLink: a rate or a currency
    changed, or it is gone) it is read afresh (or is a 404 now) and the bid runs again in a new
    transaction. A fresh link goes stale only in a race with the seller's change."""
    for _attempt in range(2):
        try:
            return save_bid(link, body.bid, body.request_key, body.maximum)
        except StaleLink:
            db.session.rollback()
            link = _bid_link_or_404(*hashes, fresh=True)
    return save_bid(link, body.bid, body.request_key, body.maximum)


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
    link = _bid_link_or_404(*hashes)
    body = parse_body(BidBody)  # the link first: an unknown one is a 404 whatever its body
    if body.maximum is not None and not link.checked:  # proxy bidding reads it in its own
        link = _bid_link_or_404(*hashes, fresh=True)  # transaction: no remembered facts
    try:
        result = _save_bid(hashes, link, body)
    except MarketError as exc:
        db.session.rollback()
        return _refused(exc)
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
        "endsAt": _iso(result.ends_at),
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
    link = _bid_link_or_404(group_hash, advert_hash, user_hash, fresh=True)
    body = parse_body(BuyNowBody)
    try:
        result = save_buy_now(
            link,
            body.request_key,
            notify=lambda _bought: bidder_mail.tell("won", link.advert_id, [link.link_id]),
        )
    except MarketError as exc:
        db.session.rollback()
        return _refused(exc)
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
            "endsAt": _iso(row.ends_at),
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


def _body(model: type[BaseModel], data: dict) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, model) from None


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
            body = _body(AllocateBody, data)
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
            body = _body(StatusBody, data)
            before = (advert.status, advert.allocated_group_id, advert.allocated_price)
            advert = change_status(advert_id, body.status, body.status_notes, user_id)
            notices.notify_status(advert, *before)
            text = _("The status is now %(status)s.", status=str(STATUS_LABELS[advert.status]))
    except MarketError as exc:
        db.session.rollback()
        return _refused(exc)
    db.session.commit()
    return jsonify({"message": text, "advert": advert_summary(advert)})
