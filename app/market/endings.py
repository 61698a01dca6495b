"""The end of bidding: published adverts whose end time has passed are closed (or, under
their reserve, provisionally sold: app.market.reserve), and their sellers are told by e-mail
(stored, previewable, sent by the mail job). Run on a schedule (app/schedule/table.py); an
advert is ended once, whoever runs first."""

from __future__ import annotations

from collections.abc import Callable

from flask import url_for
from sqlalchemy import Select, or_, select

from app.auth.models import User
from app.core.i18n import user_time_zone
from app.core.models import utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.mail.services import send_mail
from app.market import reserve
from app.market.bidder_mail import mail_links
from app.market.links import link_hashes
from app.market.models import Advert, InstanceGroup, MarketLink
from app.market.notices import _language


def _sellers(advert: Advert) -> list[tuple[User, MarketLink | None]]:
    """Who is told: the holders of the advert's seller links and the user who made it."""
    rows = db.session.execute(
        select(User, MarketLink)
        .outerjoin(
            MarketLink,
            (MarketLink.user_id == User.id)
            & (MarketLink.advert_id == advert.id)
            & (MarketLink.kind == "seller"),
        )
        .where(
            User.active.is_(True),
            or_(MarketLink.id.is_not(None), User.id == advert.created_by_id),
        )
        .order_by(User.id)
        .execution_options(all_instances=True)
    ).all()
    seen, result = set(), []
    for user, link in rows:
        if user.id not in seen:
            seen.add(user.id)
            result.append((user, link))
    return result


def _advert_url(advert: Advert, link: MarketLink | None, group: InstanceGroup | None) -> str:
    # A provisional sale is decided on the signed-in advert page (app.market.reserve).
    if link is not None and group is not None and advert.status != "provisional":
        hashes = link_hashes(link, group, advert)
        return url_for("market.bid_page", action="change-status", _external=True, **hashes)
    return url_for("market.advert_page", advert_id=advert.id, _external=True)


def tell_sellers(advert: Advert, template: str = "market_ended", **context) -> int:
    """Mail each seller that bidding on the advert has ended (or another `template` about it);
    returns the mails sent."""
    group = db.session.get(InstanceGroup, advert.seller_group_id)
    sent = 0
    for user, link in _sellers(advert):
        send_mail(
            to=user.email,
            template=template,
            kind=template,
            language=_language(user),
            time_zone=user_time_zone(user),
            instance_id=advert.instance_id,
            advert=advert,
            user_name=user.firstname or user.email,
            page_url=_advert_url(advert, link, group),
            **context,
        )
        sent += 1
    return sent


def told(advert: Advert, template: str = "market_ended", **context) -> Advert:
    """tell_sellers in the advert's instance; returns the advert."""
    activate(advert.instance_id)
    try:
        tell_sellers(advert, template, **context)
    finally:
        activate(None)
    return advert


def one_by_one(due: Select, step: Callable[[int], Advert | None]) -> int:
    """Run `step(advert_id)` for every advert id `due` selects, each in a transaction of its
    own with the mails' links at hand; a step that returns None changed nothing (rolled back).
    Returns how many steps changed their advert."""
    ids = db.session.scalars(due.execution_options(all_instances=True)).all()
    db.session.commit()
    done = 0
    with mail_links():
        for advert_id in ids:
            if step(advert_id) is None:
                db.session.rollback()
                continue
            db.session.commit()
            done += 1
    return done


def _end(advert_id: int) -> Advert | None:
    advert = reserve.end_advert(advert_id)  # None: closed, withdrawn or its end moved on
    return told(advert) if advert is not None else None


def close_ended_adverts() -> int:
    """End every published advert whose bidding has ended and tell its sellers; one
    transaction per advert. Returns the number ended."""
    due = (
        select(Advert.id)
        .where(Advert.status == "published", Advert.ends_at <= utcnow())
        .order_by(Advert.ends_at)
    )
    return one_by_one(due, _end)
