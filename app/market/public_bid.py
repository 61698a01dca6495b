"""The public bid page: bid, allocate or change status through a market link.

Bidders and sellers open these pages from e-mailed links and never sign in. The path parts
(action, group hash, advert hash, user hash) are the authorisation: bidding.resolve_link checks
them all and any wrong part answers 404, the same whichever part it is. Every page and call
counts against the public rate limit. The page's calls are in app.market.public_bid_calls, what
it shows of the advert in app.market.link_view.
"""

from __future__ import annotations

from io import BytesIO

from flask import abort, redirect, render_template, send_file, url_for
from flask_babel import gettext as _
from sqlalchemy import select

from app.core.pages import public_page
from app.core.ratelimit import check_public_rate
from app.extensions import db
from app.market import bp, passport
from app.market.link_view import advert_view
from app.market.links import ACTIONS, resolve_link
from app.market.models import AdvertImage
from app.market.rates import format_amount
from app.preparation.files import SMALL_CONTENT_TYPE
from app.preparation.models import FileObject


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
            "highestOwn": _("%(amount)s %(currency)s in the advert's currency"),
            "confirmBidTitle": _("Place a binding bid?"),
            "confirmBid": _("Your company bids %(amount)s %(currency)s."),
            "confirmBidConverted": _(
                "Your company bids %(amount)s %(currency)s, which is %(advertAmount)s "
                "%(advertCurrency)s in the advert's currency."
            ),
            "confirmBidBinds": _(
                "The bid binds your company and cannot be withdrawn: if it is the highest when "
                "bidding ends, the seller can sell the vehicle to your company for this amount."
            ),
            "confirmBidButton": _("Place binding bid of %(amount)s %(currency)s"),
            "confirmMaximumTitle": _("Set a binding maximum?"),
            "confirmMaximum": _(
                "The system bids for your company, one step at a time, up to %(amount)s "
                "%(currency)s. Every bid it places binds your company like a bid of your own."
            ),
            "confirmMaximumButton": _("Set maximum of %(amount)s %(currency)s"),
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
            "confirmAllocateTitle": _("Allocate the vehicle?"),
            "confirmAllocate": _(
                "You allocate the vehicle to %(company)s for %(amount)s %(currency)s."
            ),
            "confirmAllocateConverted": _(
                "You allocate the vehicle to %(company)s for %(amount)s %(currency)s, which is "
                "%(buyerAmount)s %(buyerCurrency)s in the buyer's currency."
            ),
            "confirmAllocateBinds": _(
                "The allocation binds: the buyer is told by e-mail at once that the vehicle is "
                "theirs for this price."
            ),
            "confirmAllocateButton": _("Allocate for %(amount)s %(currency)s"),
            "cancel": _("Cancel"),
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


def link_missing():
    """The page a link that does not open (any wrong part) gets, with its 404."""
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
        return link_missing()
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
        passport=passport.build(advert),
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
