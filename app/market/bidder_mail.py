"""Bidder e-mails: what happens to a bidder on an advert, told to the holder of its bid link.

`send(kind, link, advert, **context)` is the one way in (the bid transaction, allocations, the
end of bidding and the reserve's steps call it). It queues a job that runs after the caller's
commit, so a refused or rolled-back step sends nothing; the job renders the mail in the
recipient's language and time zone, stores it (readable at its preview link) and queues its
delivery. Every mail carries one click to the bidder's own link and one to unsubscribe from
this advert's bidder e-mails (no sign-in: the link's hashes are the authorisation), which the
seller's list of bid links shows. An unsubscribed link gets nothing, checked when queued and
again when the job runs.
"""

from __future__ import annotations

from contextlib import contextmanager

from flask import current_app, has_request_context, url_for
from sqlalchemy import bindparam, select

from app.auth.models import User
from app.core import audit, jobs
from app.core.models import utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.mail.services import stored_by_job
from app.market.bid_links import recipient_language
from app.market.links import link_hashes
from app.market.models import Advert, AdvertBid, InstanceGroup, MarketLink
from app.market.notices import mail_about, names
from app.market.rates import convert_up, next_bid, rates_from

JOB = "app.market.bidder_mail:deliver"  # the job function, as enqueued

# kind -> template in templates/market/emails/; the stored mail's kind is "market_" + kind.
TEMPLATES = {
    "outbid": "market_outbid",
    "won": "market_won",
    "allocated": "market_allocated",
    "countered": "market_countered",
    "provisional": "market_provisional",
    "ended_unsold": "market_unsold",
    "sold": "market_status",  # an allocated advert sold (app.market.notices)
    "closed": "market_status",  # an allocation cancelled
}


def send(kind: str, link: MarketLink, advert: Advert, **context) -> None:
    """Queue the `kind` mail to the holder of the bid `link` about `advert`, sent after the
    current unit of work commits; nothing for a seller's link or an unsubscribed one. `context`
    holds plain values the template may use (amounts, notes)."""
    if kind not in TEMPLATES:
        raise ValueError(f"unknown bidder mail {kind!r}")
    if link.kind != "bid" or link.unsubscribed_at is not None:
        return
    _queue(kind, link.id, advert.id, context)


def _queue(kind: str, link_id: int, advert_id: int, context: dict) -> None:
    jobs.enqueue(JOB, kind, link_id, advert_id, context)


# --- the jobs ----------------------------------------------------------------------------------


@contextmanager
def mail_links():
    """Links in mails are absolute: the request's own address, or BASE_URL in a job."""
    if has_request_context():
        yield
        return
    base = current_app.config.get("BASE_URL") or "http://127.0.0.1:5000"
    with current_app.test_request_context(base_url=base):
        yield


def _one(statement):
    return db.session.execute(statement.execution_options(all_instances=True)).first()


def bidder_urls(
    link: MarketLink, group: InstanceGroup, advert: Advert, language: str
) -> dict[str, str]:
    """The bidder's own page and unsubscribe page of a bid link (absolute; the unsubscribe
    page in the mail's language)."""
    hashes = link_hashes(link, group, advert)
    return {
        "page_url": url_for("market.bid_page", action="bid", _external=True, **hashes),
        "unsubscribe_url": url_for(
            "market.bidder_unsubscribe", lang=language, _external=True, **hashes
        ),
    }


def _job_key(*args) -> str | None:
    """The id of the RQ job that runs deliver(*args) here, or None: run inline, where nothing
    runs it again (and where a job that dispatch() runs inline inside another RQ job, Redis
    being unreachable, is not that job)."""
    # lazy: rq takes ~0.2 s to load; only inside a job
    from rq import get_current_job

    job = get_current_job()
    if job is None or list(job.args) != [JOB, *args]:  # jobs.run(func, *args)
        return None
    return job.id


def deliver(kind: str, link_id: int, advert_id: int, context: dict) -> str:
    """Job: render, store and queue the mail (skipped when the link was unsubscribed or its
    holder deactivated meanwhile). Run again after it was cut off (an RQ retry of the same
    job), it finds the mail it stored and queues its delivery again if that may never have
    been queued, instead of storing a second mail."""
    job_key = _job_key(kind, link_id, advert_id, context)
    if stored_by_job(job_key) is not None:
        return "stored"
    row = _one(
        select(MarketLink, Advert, User, InstanceGroup)
        .join(Advert, Advert.id == MarketLink.advert_id)
        .join(User, User.id == MarketLink.user_id)
        .join(InstanceGroup, InstanceGroup.id == MarketLink.group_id)
        .where(MarketLink.id == link_id, Advert.id == advert_id)
    )
    if row is None:
        return "missing"
    link, advert, user, group = row
    if link.unsubscribed_at is not None or not user.active:
        return "skipped"
    buyer_group_id = advert.allocated_group_id or advert.provisional_group_id or group.id
    seller_name, buyer_name = names(advert, buyer_group_id)
    # The advert's next bid, and its counteroffer, in the bidder's own currency.
    rate = rates_from(advert.instance_id, advert.currency).get(group.currency)
    own = {"own_next_bid": None, "own_counter": None}
    if rate is not None:
        own["own_next_bid"] = convert_up(next_bid(advert), rate)
        if advert.counter_price and group.currency != advert.currency:
            own["own_counter"] = convert_up(advert.counter_price, rate)
    language = recipient_language(user, group)
    activate(advert.instance_id)
    try:
        with mail_links():
            mail_about(
                advert, user, group, TEMPLATES[kind], f"market_{kind}", language,
                to_buyer=True, bidder_mail=True, own_currency=group.currency,
                seller_name=seller_name, buyer_name=buyer_name,
                job_key=job_key, **own, **bidder_urls(link, group, advert, language),
                **context,
            )  # fmt: skip
    finally:
        activate(None)
    return "stored"


# The bid links (subscribed, a bidder's) among :ids, with their company's highest bid on the
# link's advert: one statement, run in the bid transaction (the market's hottest path).
_GROUP_BEST = (
    select(AdvertBid.id)
    .where(AdvertBid.advert_id == MarketLink.advert_id, AdvertBid.group_id == MarketLink.group_id)
    .order_by(AdvertBid.advert_amount.desc(), AdvertBid.id)
    .limit(1)
    .correlate(MarketLink)
    .scalar_subquery()
)
_SUBSCRIBED = (
    select(MarketLink.id, AdvertBid.amount, AdvertBid.currency)
    .outerjoin(AdvertBid, AdvertBid.id == _GROUP_BEST)
    .where(
        MarketLink.id.in_(bindparam("ids", expanding=True)),
        MarketLink.kind == "bid",
        MarketLink.unsubscribed_at.is_(None),
    )
    .order_by(MarketLink.id)
    .execution_options(all_instances=True)
)


def tell(kind: str, advert_id: int, link_ids, **context) -> None:
    """`send` for bid links named by id (the bid transaction's own rules decide who is told),
    without loading them: one statement, then a job per subscribed bidder's link."""
    if link_ids:
        for link_id, _amount, _currency in db.session.execute(_SUBSCRIBED, {"ids": [*link_ids]}):
            _queue(kind, link_id, advert_id, context)


def outbid(advert_id: int, link_ids, read=None) -> None:
    """In a bid's transaction (still under the advert's lock, so the order of the bids is
    settled): each bid link whose company lost the lead in it, by a typed bid or an automatic
    raise (app.market.bidding's BidResult.outbid_links), is sent "outbid" after the commit,
    with its company's own highest bid. A company that raised its own bid, or that an automatic
    raise put back in the lead, is not in `link_ids`. `read`: the subscribed links among them
    with their company's highest bid, when the bid's own statement read them (PostgreSQL)."""
    if link_ids:
        if read is None:
            read = db.session.execute(_SUBSCRIBED, {"ids": [*link_ids]})
        for link_id, amount, currency in read:
            if amount is not None:
                _queue("outbid", link_id, advert_id, {"bid": amount, "bid_currency": currency})


# --- unsubscribing -----------------------------------------------------------------------------


def set_subscribed(link: MarketLink, subscribed: bool) -> None:
    """Turn a bid link's e-mails on or off (audited in the advert's instance)."""
    if subscribed == (link.unsubscribed_at is None):
        return
    link.unsubscribed_at = None if subscribed else utcnow()
    audit.record(
        "market_bidder_mail_resubscribed" if subscribed else "market_bidder_mail_unsubscribed",
        instance_id=link.instance_id,
        advert=link.advert_id,
        link=link.id,
        holder=link.user_id,
    )
