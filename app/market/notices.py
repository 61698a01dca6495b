"""E-mails about an advert's outcome: its allocation, and a sale or cancelled allocation.

Each recipient gets the mail in their own language with their own link back to the advert.
The buyer's side goes through app.market.bidder_mail (the same bidder e-mails as outbid or
countered: a job after the commit, an unsubscribe link, the bidder's own page); the sellers'
mails are rendered here. Mails are stored (previewable) and sent by a job after the request's
commit, so a refused change sends nothing.
"""

from __future__ import annotations

from flask import url_for
from sqlalchemy import or_, select

from app.auth.models import User
from app.core.i18n import to_locale, user_time_zone
from app.extensions import db
from app.mail.services import send_mail
from app.market import bidder_mail
from app.market.links import link_hashes
from app.market.models import Advert, InstanceGroup, MarketLink

DEFAULT_LANGUAGE = "sv-SE"


def _language(user: User) -> str:
    return to_locale((user.options or {}).get("language")) or DEFAULT_LANGUAGE


def _recipients(advert: Advert, buyer_group_id: int, sellers: bool):
    """(link, user, group) of the buyer group's bid links and, with `sellers`, the seller links
    of the advert, one per person."""
    kinds = [(MarketLink.kind == "bid") & (MarketLink.group_id == buyer_group_id)]
    if sellers:
        kinds.append(MarketLink.kind == "seller")
    rows = db.session.execute(
        select(MarketLink, User, InstanceGroup)
        .join(User, User.id == MarketLink.user_id)
        .join(InstanceGroup, InstanceGroup.id == MarketLink.group_id)
        .where(MarketLink.advert_id == advert.id, or_(*kinds), User.active.is_(True))
        .order_by(MarketLink.kind, MarketLink.id)
        .execution_options(all_instances=True)
    ).all()
    seen: set[int] = set()
    for link, user, group in rows:
        if user.id not in seen:
            seen.add(user.id)
            yield link, user, group


def _page_url(link: MarketLink, group: InstanceGroup, advert: Advert) -> str:
    action = "bid" if link.kind == "bid" else "change-status"
    return url_for(
        "market.bid_page", action=action, _external=True, **link_hashes(link, group, advert)
    )


def names(advert: Advert, buyer_group_id: int) -> tuple[str, str]:
    found = dict(
        db.session.execute(
            select(InstanceGroup.id, InstanceGroup.name)
            .where(InstanceGroup.id.in_((advert.seller_group_id, buyer_group_id)))
            .execution_options(all_instances=True)
        ).all()
    )
    return found.get(advert.seller_group_id, ""), found.get(buyer_group_id, "")


def _send_to_recipients(
    advert: Advert, group_id: int, sellers: bool, template: str, kind: str, /, **ctx
) -> int:
    """One mail per recipient (see _recipients) with the advert's common fields; returns the
    mails sent (a bidder's is queued as a bidder mail of `kind`, "market_" left off)."""
    seller_name, buyer_name = names(advert, group_id)
    sent = 0
    for link, user, group in _recipients(advert, group_id, sellers=sellers):
        if link.kind == "bid":
            bidder_mail.send(kind.removeprefix("market_"), link, advert, **ctx)
            sent += link.unsubscribed_at is None
            continue
        mail_about(
            advert, user, group, template, kind, _language(user),
            to_buyer=False, seller_name=seller_name, buyer_name=buyer_name,
            page_url=_page_url(link, group, advert), **ctx,
        )  # fmt: skip
        sent += 1
    return sent


def mail_about(
    advert: Advert,
    user: User,
    group: InstanceGroup,
    template: str,
    kind: str,
    language: str,
    /,
    **ctx,
):
    """A mail about the advert to one user of `group`, in their language and zone, with the
    advert's common fields (the sellers' notices here, every bidder mail)."""
    return send_mail(
        to=user.email, template=template, kind=kind, language=language,
        time_zone=user_time_zone(user), instance_id=group.instance_id, advert=advert,
        user_name=user.firstname or user.email, regno=advert.regno, title=advert.title,
        currency=advert.currency, **ctx,
    )  # fmt: skip


def notify_allocation(advert: Advert) -> int:
    """Tell the allocated group's bidders and the advert's sellers; returns the mails sent."""
    return _send_to_recipients(
        advert,
        advert.allocated_group_id,
        True,
        "market_allocated",
        "market_allocated",
        price=advert.allocated_price,
        notes=advert.allocated_notes,
    )


def notify_status(advert: Advert, previous: str, group_id: int | None, price: int | None) -> int:
    """After a status change: tell the buyer of an allocated advert that it is now sold, or
    that the allocation was cancelled (back to closed). Other changes send nothing."""
    if previous != "allocated" or group_id is None or advert.status not in ("sold", "closed"):
        return 0
    return _send_to_recipients(
        advert,
        group_id,
        False,
        "market_status",
        f"market_{advert.status}",
        sold=advert.status == "sold",
        price=price,
        notes=advert.status_notes,
    )
