"""E-mails to a bidder about an advert they bid on: `send(kind, link, advert)` stores the mail
in the bidder's language and time zone, with their own link back, and queues its delivery after
the commit (app.mail.services.send_mail).

Kinds used by the bid transaction (app/market/bidding.py): "outbid" (another bidder's maximum
raised past theirs) and "won" (they took the buy-now price). A simple version: the bidder
e-mails of issue 16.5 (unsubscribe and more kinds) replace it with the same signature.
"""

from __future__ import annotations

from flask import url_for
from sqlalchemy import select

from app.auth.models import User
from app.core.i18n import user_time_zone
from app.extensions import db
from app.mail.services import send_mail
from app.market.models import Advert, InstanceGroup, MarketLink
from app.market.notices import _language

KINDS = ("outbid", "won")


def send(kind: str, link: MarketLink, advert: Advert, **context) -> None:
    """Queue the `kind` mail to the holder of the bid link `link` on `advert`."""
    if kind not in KINDS:
        raise ValueError(f"unknown bidder mail {kind!r}")
    user = db.session.get(User, link.user_id)
    group = db.session.scalar(  # the bidder's group lives in the buyer's instance
        select(InstanceGroup)
        .where(InstanceGroup.id == link.group_id)
        .execution_options(all_instances=True)
    )
    if user is None or not user.active or group is None:
        return
    page_url = url_for(
        "market.bid_page", action="bid", group_hash=group.hash, advert_hash=advert.hash,
        user_hash=link.hash, _external=True,
    )  # fmt: skip
    send_mail(
        to=user.email,
        template="market_bidder",
        kind=f"market_{kind}",
        language=_language(user),
        time_zone=user_time_zone(user),
        instance_id=group.instance_id,
        mail_kind=kind,
        user_name=user.firstname or user.email,
        title=advert.title,
        regno=advert.regno,
        highest=advert.highest_bid,
        currency=advert.currency,
        ends_at=advert.ends_at,
        page_url=page_url,
        **context,
    )
