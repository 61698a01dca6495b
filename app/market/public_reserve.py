"""The bidder's side of a provisional sale and of the bidder e-mails, through the bid link:
answering the seller's counteroffer, and turning the advert's e-mails off or on again.

Both are authorised by the link's three hashes like the bid page (any wrong part: 404) and
count against the public rate limit; neither needs signing in.
"""

from __future__ import annotations

from typing import Literal

from flask import abort, jsonify, render_template, request
from flask_babel import gettext as _

from app.core.api import Schema, api_call, parse_body
from app.core.pages import public_page
from app.core.ratelimit import check_public_rate
from app.extensions import db
from app.market import api_bp, bidder_mail, bp, reserve
from app.market.link_view import advert_summary
from app.market.links import resolve_link
from app.market.public_bid import link_missing
from app.market.public_bid_calls import PUBLIC, refused
from app.market.status import MarketError


class CounterAnswerBody(Schema):
    """The bidder's answer to the seller's counteroffer."""

    answer: Literal["accept", "decline"]


@api_call(
    api_bp,
    f"{PUBLIC}-counter/<group_hash>/<advert_hash>/<user_hash>",
    "POST",
    bodies=(CounterAnswerBody,),
    public=True,
)
def market_counter_answer(group_hash: str, advert_hash: str, user_hash: str):
    """Accept or decline the seller's counteroffer through the highest bidder's link (422 with
    the reason when it cannot be answered: no counter, not the highest bidder, too late)."""
    check_public_rate()
    found = resolve_link("bid", group_hash, advert_hash, user_hash)
    if found is None:
        abort(404)
    link, advert, group = found
    body = parse_body(CounterAnswerBody)
    try:
        advert = reserve.bidder_answers(advert.id, group.id, body.answer, link.user_id)
    except MarketError as exc:
        db.session.rollback()
        return refused(exc)
    db.session.commit()
    text = (
        _("You have bought the vehicle. The seller will contact you about payment and collection.")
        if body.answer == "accept"
        else _("You have declined the counteroffer. The advert ends unsold.")
    )
    return jsonify({"message": text, "advert": advert_summary(advert)})


@bp.route("/market-bid-unsubscribe/<group_hash>/<advert_hash>/<user_hash>", methods=["GET", "POST"])
@public_page
def bidder_unsubscribe(group_hash: str, advert_hash: str, user_hash: str):
    """The unsubscribe link of every bidder e-mail: the page asks (a link checker's visit
    changes nothing); its button turns this advert's bidder e-mails off, or on again."""
    check_public_rate()
    found = resolve_link("bid", group_hash, advert_hash, user_hash)
    if found is None:
        return link_missing()
    link, advert, group = found
    done = None
    if request.method == "POST":
        subscribed = request.form.get("subscribe") == "1"
        bidder_mail.set_subscribed(link, subscribed)
        db.session.commit()
        done = subscribed
    return render_template(
        "market/unsubscribe.html",
        advert=advert,
        subscribed=link.unsubscribed_at is None,
        done=done,
        bid_url=f"/market-bid/bid/{group_hash}/{advert_hash}/{user_hash}",
    )
