"""The people's links to adverts and the bid-link e-mails: each user's link of a kind to an
advert (created where missing, in the seller's instance), and who gets a bid link when an advert
is published or its links are sent again."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from flask import url_for
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app.auth.models import User, user_instances
from app.core import audit
from app.core.i18n import to_locale, user_time_zone
from app.core.models import utcnow
from app.core.tenancy import activate, active_instance_id
from app.extensions import db
from app.mail.services import send_mail
from app.market.groups import partner_buyers
from app.market.invites import COUNTRY_DEFAULTS, DEFAULT_LANGUAGE
from app.market.links import link_path
from app.market.models import (
    Advert,
    InstanceGroup,
    MarketLink,
)


@contextmanager
def writing_across_instances():
    """Let this request store rows of another instance (a buyer's link lives in the seller's
    instance); every row written inside names its instance itself."""
    before = active_instance_id()
    activate(None)
    try:
        yield
    finally:
        activate(before)


def links_for(adverts: Iterable[Advert], user_id: int, group: InstanceGroup, kind: str):
    """The user's links of one kind to these adverts, created where missing: two queries at
    most, whatever the number of adverts."""
    adverts = list(adverts)
    if not adverts:
        return {}
    ids = [a.id for a in adverts]

    def existing() -> dict[int, MarketLink]:
        return {
            link.advert_id: link
            for link in db.session.scalars(
                select(MarketLink)
                .where(
                    MarketLink.advert_id.in_(ids),
                    MarketLink.user_id == user_id,
                    MarketLink.kind == kind,
                )
                .execution_options(all_instances=True)
            )
        }

    found = existing()
    missing = [a for a in adverts if a.id not in found]
    if missing:
        try:
            with writing_across_instances(), db.session.begin_nested():
                new = [
                    MarketLink(
                        advert_id=a.id,
                        user_id=user_id,
                        group_id=group.id,
                        kind=kind,
                        instance_id=a.instance_id,
                    )
                    for a in missing
                ]
                db.session.add_all(new)
            found.update({link.advert_id: link for link in new})
        except IntegrityError:  # another tab made them at the same moment
            found = existing()
    return found


def public_paths(adverts, links: dict[int, MarketLink], group_hash: str, action: str):
    return {a.id: link_path(links[a.id], action, group_hash, a.hash) for a in adverts}


def absolute(path: str) -> str:
    return url_for("shell.root", _external=True).rstrip("/") + path


# --- the bid-link e-mails ----------------------------------------------------------------------


def recipient_language(user: User, group: InstanceGroup) -> str:
    """The user's own language, else the buyer country's, else Swedish."""
    own = to_locale((user.options or {}).get("language"))
    country = COUNTRY_DEFAULTS.get(group.country_code)
    return own or (to_locale(country[2]) if country else None) or DEFAULT_LANGUAGE


def bid_link_recipients(seller_group: InstanceGroup) -> list[tuple[User, InstanceGroup]]:
    """Every active user with the market module in every partner buyer group, once each,
    except the seller's own users."""
    groups: dict[int, InstanceGroup] = {}
    for group in partner_buyers(seller_group.id):
        if group.buyer:
            groups.setdefault(group.instance_id, group)
    if not groups:
        return []
    # The seller's own people (an admin of both companies, say) do not bid on its adverts.
    own_people = select(user_instances.c.user_id).where(
        user_instances.c.instance_id == seller_group.instance_id
    )
    rows = db.session.execute(
        select(User, user_instances.c.instance_id)
        .join(user_instances, user_instances.c.user_id == User.id)
        .where(
            user_instances.c.instance_id.in_(list(groups)),
            User.active.is_(True),
            User.id.not_in(own_people),
        )
        .order_by(User.id)
    ).all()
    seen: set[int] = set()
    recipients = []
    for user, instance_id in rows:
        if user.id in seen or "market" not in (user.modules or []):
            continue
        seen.add(user.id)
        recipients.append((user, groups[instance_id]))
    return recipients


def send_bid_links(advert: Advert, seller_group: InstanceGroup) -> int:
    """E-mail every buyer user of every partner a personal bid link; return how many."""
    now = utcnow()
    sent = 0
    for user, group in bid_link_recipients(seller_group):
        link = links_for([advert], user.id, group, "bid")[advert.id]
        send_mail(
            to=user.email,
            template="market_bid_link",
            kind="market_bid_link",
            language=recipient_language(user, group),
            instance_id=advert.instance_id,
            advert=advert,
            seller_name=seller_group.name,
            company_name=group.name,
            recipient_name=user.full_name,
            time_zone=user_time_zone(user),
            bid_url=absolute(link_path(link, "bid", group.hash, advert.hash)),
        )
        link.sent_at = now
        sent += 1
    db.session.flush()
    audit.record(
        "market_bid_links_sent", instance_id=advert.instance_id, advert=advert.id, count=sent
    )
    return sent


@dataclass
class SentLink:
    name: str
    email: str
    company: str
    sent_at: datetime | None
    unsubscribed_at: datetime | None = None  # the holder turned the bidder e-mails off


def sent_bid_links(advert: Advert) -> list[SentLink]:
    """Who holds a bid link to the advert, by company, when it was last e-mailed and whether
    its holder unsubscribed from the advert's bidder e-mails."""
    rows = db.session.execute(
        select(
            User.firstname,
            User.lastname,
            User.email,
            InstanceGroup.name,
            MarketLink.sent_at,
            MarketLink.unsubscribed_at,
        )  # fmt: skip
        .join(User, User.id == MarketLink.user_id)
        .join(InstanceGroup, InstanceGroup.id == MarketLink.group_id)
        .where(MarketLink.advert_id == advert.id, MarketLink.kind == "bid")
        .order_by(InstanceGroup.name, User.lastname, User.firstname, User.id)
        .execution_options(all_instances=True)
    ).all()
    return [
        SentLink(f"{first} {last}".strip() or email, email, company, sent_at, unsubscribed)
        for first, last, email, company, sent_at, unsubscribed in rows
    ]
