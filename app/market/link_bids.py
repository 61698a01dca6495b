"""Bids through a bidder's link: the link read in the bid's own transaction, and a bid whose
remembered link went stale read afresh and placed again."""

from __future__ import annotations

from app.core.locking import immediate
from app.extensions import db
from app.market.bidding import BidResult, save_bid
from app.market.links import BidLink, StaleLink, resolve_bid_link

Hashes = tuple[str, str, str]  # the link's group, advert and user hashes


def bid_link(hashes: Hashes, fresh: bool = False) -> BidLink | None:
    """The bidder's link of these hashes (remembered by the process unless `fresh`), or None."""
    with immediate():  # on SQLite the link is read in the bid's own transaction, write-locked
        return resolve_bid_link(*hashes, fresh=fresh)


def place_bid(
    hashes: Hashes, link: BidLink, amount: int | None, request_key: str, maximum: int | None
) -> BidResult | None:
    """save_bid; when the remembered link no longer holds (StaleLink: a rate or a currency
    changed, or it is gone) it is read afresh and the bid runs again in a new transaction.
    None: the link is gone now. A fresh link goes stale only in a race with the seller's
    change, so the third try lets StaleLink through."""
    if maximum is not None and not link.checked:  # proxy bidding reads it in its own
        link = bid_link(hashes, fresh=True)  # transaction: no remembered facts
        if link is None:
            return None
    for _attempt in range(2):
        try:
            return save_bid(link, amount, request_key, maximum)
        except StaleLink:
            db.session.rollback()
            link = bid_link(hashes, fresh=True)
            if link is None:
                return None
    return save_bid(link, amount, request_key, maximum)
