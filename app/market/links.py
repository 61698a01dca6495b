"""The public links that carry the market's pages and calls: one per user, advert and kind
(bid, seller), found by the four parts of its path. Every part is compared in constant time and
any wrong part answers the same (None: the caller's 404); on success the advert's instance is
the active one for the rest of the request.

A bid reads only what it needs of its link (BidLink), and each process remembers the links it
has read, so a bidder's next bid needs no statement for them: the bid's locked read checks that
what was remembered still holds (app.market.bid_store), else StaleLink and the caller reads the
link afresh."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import bindparam, select

from app.core.cache import LRUCache
from app.core.tenancy import activate
from app.extensions import db
from app.market.models import Advert, ExchangeRate, InstanceGroup, MarketLink

ACTIONS = {"bid": "bid", "allocate": "seller", "change-status": "seller"}
_rate_t, _advert_t, _link_t, _group_t = (
    m.__table__ for m in (ExchangeRate, Advert, MarketLink, InstanceGroup)
)


def ensure_link(advert: Advert, user_id: int, group: InstanceGroup, kind: str) -> MarketLink:
    """The user's link to the advert, created on first use."""
    link = db.session.scalar(
        select(MarketLink)
        .where(
            MarketLink.advert_id == advert.id,
            MarketLink.user_id == user_id,
            MarketLink.kind == kind,
        )
        .execution_options(all_instances=True)
    )
    if link is None:
        link = MarketLink(
            advert_id=advert.id,
            user_id=user_id,
            group_id=group.id,
            kind=kind,
            instance_id=advert.instance_id,
        )
        db.session.add(link)
        db.session.flush()
    return link


def link_path(link: MarketLink, action: str, group_hash: str, advert_hash: str) -> str:
    return f"/market-bid/{action}/{group_hash}/{advert_hash}/{link.hash}"


def link_hashes(link: MarketLink, group: InstanceGroup, advert: Advert) -> dict[str, str]:
    """The parts of a link's paths besides its action, as url_for takes them."""
    return {"group_hash": group.hash, "advert_hash": advert.hash, "user_hash": link.hash}


def same_hash(a: str, b: str) -> bool:
    """Whether two hashes are equal, compared in constant time."""
    return hmac.compare_digest(a.encode(), b.encode())


def resolve_link(action: str, group_hash: str, advert_hash: str, user_hash: str):
    """The (link, advert, group) the four path parts name, or None when any part is wrong.

    Every part is compared in constant time and the answer is the same whichever is wrong.
    On success the advert's instance becomes the active one for the rest of the request."""
    kind = ACTIONS.get(action)
    if kind is None or len(user_hash) > 64:
        return None
    row = db.session.execute(
        select(MarketLink, Advert, InstanceGroup)
        .join(Advert, Advert.id == MarketLink.advert_id)
        .join(InstanceGroup, InstanceGroup.id == MarketLink.group_id)
        .where(MarketLink.hash == user_hash)
        .execution_options(all_instances=True)
    ).first()
    if row is None:
        return None
    link, advert, group = row
    ok = (
        same_hash(group.hash, group_hash)
        & same_hash(advert.hash, advert_hash)
        & (link.kind == kind)
    )
    if not ok:
        return None
    activate(advert.instance_id)
    return link, advert, group


@dataclass(frozen=True)
class BidLink:
    """What placing a bid needs to know about a bidder's link, read in one statement."""

    link_id: int
    advert_id: int
    group_id: int
    user_id: int
    instance_id: int
    advert_currency: str
    currency: str  # the bidder's
    # What 1 advert_currency is worth in the bidder's currency, read with the link (None: the
    # seller keeps no rate for it); 1 for the advert's own currency.
    rate: Decimal | None = None
    # False: remembered from an earlier request, not read in this transaction; the bid's
    # locked read checks it still holds, else StaleLink.
    checked: bool = True

    def rates(self) -> dict[str, Decimal]:
        """The rates a bid without maxima needs: the advert's currency and the bidder's."""
        rates = {self.advert_currency: Decimal(1)}
        if self.rate is not None and self.rate > 0:
            rates.setdefault(self.currency, Decimal(self.rate))
        return rates


# The link, its advert's and group's currencies and the seller's rate between them, in one
# statement (the rate does not depend on the bids, so it is read before the lock).
_BID_LINK = select(
    _link_t.c.id,
    _link_t.c.advert_id,
    _link_t.c.group_id,
    _link_t.c.user_id,
    _advert_t.c.instance_id,
    _advert_t.c.currency,
    _group_t.c.currency,
    _rate_t.c.rate,
    _link_t.c.kind,
    _group_t.c.hash,
    _advert_t.c.hash,
).select_from(
    _link_t.join(_advert_t, _advert_t.c.id == _link_t.c.advert_id)
    .join(_group_t, _group_t.c.id == _link_t.c.group_id)
    .outerjoin(
        _rate_t,
        (_rate_t.c.instance_id == _advert_t.c.instance_id)
        & (_rate_t.c.currency == _advert_t.c.currency)
        & (_rate_t.c.to_currency == _group_t.c.currency),
    )
)
_BID_LINK_BY_HASH = _BID_LINK.where(_link_t.c.hash == bindparam("hash"))
_BID_LINK_BY_ID = _BID_LINK.where(_link_t.c.id == bindparam("id"))


class StaleLink(Exception):
    """A link remembered from an earlier request no longer holds (the seller changed its rate
    or a currency, or the link is gone): the caller reads it afresh and tries again."""


# Each process remembers the links it has read (user hash -> _BID_LINK's row), so a bidder's
# next bid needs no statement of its own for them: the bid's locked read checks that what was
# remembered still holds (BidStore.locked_state, market_place_bid's `facts`). Hashes, kinds, and a
# link's advert, group and user never change; currencies and rates may, and are checked.
_LINKS = LRUCache(4096)


def resolve_bid_link(
    group_hash: str, advert_hash: str, user_hash: str, fresh: bool = False
) -> BidLink | None:
    """resolve_link for placing a bid: the same checks, only the columns a bid needs (from
    the process's memory of the link unless `fresh`: then `checked` is False and the bid's
    locked read checks it)."""
    if len(user_hash) > 64:
        return None
    row = None if fresh else _LINKS.get(user_hash)
    checked = row is None
    if row is None:
        row = db.session.connection().execute(_BID_LINK_BY_HASH, {"hash": user_hash}).first()
        if row is None:
            _LINKS.discard(user_hash)  # gone since it was remembered
            return None
        _LINKS.put(user_hash, tuple(row))
    *values, kind, real_group_hash, real_advert_hash = row
    ok = same_hash(real_group_hash, group_hash) & same_hash(real_advert_hash, advert_hash)
    if not (ok and kind == "bid"):
        return None
    link = BidLink(*values, checked=checked)
    activate(link.instance_id)
    return link


def bid_link(link_id: int) -> BidLink:
    """The BidLink of a link known by its id (read now)."""
    row = db.session.connection().execute(_BID_LINK_BY_ID, {"id": link_id}).one()
    return BidLink(*row[:8])
