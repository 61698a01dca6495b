"""Watchlist and saved searches of the users of buyer companies, and the e-mail a saved search
sends when a new advert matches it.

Watches and searches belong to the user and the company they work in (its instance); the
adverts they name live in the sellers' instances, so every advert query names the viewer's
group and runs across instances, narrowed by what that group may open (adverts.py). A new
advert is matched in a job queued when it is first published: the market list's own query with
the search's criteria (app.market.filters) must find it, so an advert the company may not see
never matches. Each search mails about an advert once (a unique row per search and advert).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from flask import url_for
from sqlalchemy import and_, delete, func, select
from sqlalchemy.exc import IntegrityError

from app.auth.models import Membership, User
from app.core import jobs
from app.core.i18n import user_time_zone
from app.extensions import db
from app.mail.models import EmailMessage
from app.mail.services import redeliver, send_mail
from app.market.adverts import (
    Seller,
    market_condition,
    own_best_bids,
    visible_condition,
)
from app.market.bid_links import recipient_language, writing_across_instances
from app.market.bidder_mail import mail_links
from app.market.filters import Criteria
from app.market.groups import partner_buyers
from app.market.models import (
    Advert,
    InstanceGroup,
    MarketWatch,
    SavedSearch,
    SavedSearchHit,
)
from app.market.rates import convert_up, rates_from

MAX_SEARCHES = 50
NAME_MAX = 100


# --- the watchlist -----------------------------------------------------------------------------


def may_watch(advert: Advert, group: InstanceGroup) -> bool:
    """A buyer watches the adverts of others it may open (not its own company's)."""
    return group.buyer and advert.seller_group_id != group.id


def watched_ids(user_id: int, advert_ids: Iterable[int]) -> set[int]:
    """Which of these adverts the user watches (in the active company)."""
    ids = list(advert_ids)
    if not ids:
        return set()
    return set(
        db.session.scalars(
            select(MarketWatch.advert_id).where(
                MarketWatch.user_id == user_id, MarketWatch.advert_id.in_(ids)
            )
        )
    )


def set_watch(user_id: int, advert: Advert, on: bool) -> bool:
    """Watch (or stop watching) an advert; returns whether anything changed. Only flushes."""
    if not on:
        result = db.session.execute(
            delete(MarketWatch).where(
                MarketWatch.user_id == user_id, MarketWatch.advert_id == advert.id
            )
        )
        return bool(result.rowcount)
    if advert.id in watched_ids(user_id, [advert.id]):
        return False
    try:
        with db.session.begin_nested():
            db.session.add(MarketWatch(user_id=user_id, advert_id=advert.id))
    except IntegrityError:  # the same click in another tab, at the same moment
        return False
    return True


class Rates:
    """Each seller's exchange rates into one currency, read once per seller and page."""

    def __init__(self, currency: str) -> None:
        self.currency = currency
        self._known: dict[tuple[int, str], Decimal | None] = {}

    def convert(self, advert: Advert, amount: int | None) -> int | None:
        """`amount` of the advert's currency in this currency, rounded up as a next bid is
        (None without a rate)."""
        if amount is None:
            return None
        key = (advert.instance_id, advert.currency)
        if key not in self._known:
            self._known[key] = rates_from(*key).get(self.currency)
        rate = self._known[key]
        return convert_up(amount, rate) if rate is not None else None


@dataclass
class WatchRow:
    advert: Advert
    seller_name: str
    highest: int | None  # the highest bid in the viewer's currency
    start: int | None  # the start price in the viewer's currency
    watched_at: object


def watchlist(user_id: int, group: InstanceGroup) -> tuple[list[WatchRow], int]:
    """The user's watched adverts the company may still open, soonest ending first, and how
    many watched adverts it may no longer open (withdrawn, or allocated to another buyer)."""
    rows = db.session.execute(
        select(Advert, Seller.name, MarketWatch.created_at)
        .join(MarketWatch, MarketWatch.advert_id == Advert.id)
        .join(Seller, Seller.id == Advert.seller_group_id)
        .where(
            MarketWatch.user_id == user_id,
            MarketWatch.instance_id == group.instance_id,
            visible_condition(group),
        )
        .order_by(Advert.ends_at, Advert.id)
        .execution_options(all_instances=True)
    ).all()
    total = db.session.scalar(
        select(func.count(MarketWatch.id)).where(MarketWatch.user_id == user_id)
    )
    rates = Rates(group.currency)
    result = [
        WatchRow(
            advert,
            seller,
            rates.convert(advert, advert.highest_bid),
            rates.convert(advert, advert.start_price),
            watched_at,
        )  # fmt: skip
        for advert, seller, watched_at in rows
    ]
    return result, max(0, (total or 0) - len(result))


def own_best(rows: list[WatchRow], group: InstanceGroup) -> dict[int, int]:
    return own_best_bids([r.advert.id for r in rows], group.id)


# --- saved searches ----------------------------------------------------------------------------


def searches(user_id: int) -> list[SavedSearch]:
    return list(
        db.session.scalars(
            select(SavedSearch)
            .where(SavedSearch.user_id == user_id)
            .order_by(func.lower(SavedSearch.name), SavedSearch.id)
        )
    )


def find_search(search_id: int, user_id: int) -> SavedSearch | None:
    """One of the user's own searches in the active company (another's is None: a 404)."""
    return db.session.scalar(
        select(SavedSearch).where(SavedSearch.id == search_id, SavedSearch.user_id == user_id)
    )


def count_searches(user_id: int) -> int:
    return db.session.scalar(
        select(func.count(SavedSearch.id)).where(SavedSearch.user_id == user_id)
    )


def create_search(user_id: int, name: str, criteria: Criteria, notify: bool) -> SavedSearch:
    search = SavedSearch(user_id=user_id, name=name, criteria=criteria.to_json(), notify=notify)
    db.session.add(search)
    db.session.flush()
    return search


def search_by_token(token: str) -> SavedSearch | None:
    """The search a switch-off link names, in any instance."""
    if not token or len(token) > 64:
        return None
    return db.session.scalar(
        select(SavedSearch).where(SavedSearch.token == token).execution_options(all_instances=True)
    )


def criteria_of(search: SavedSearch) -> Criteria:
    return Criteria.from_json(search.criteria)


# --- the e-mail of a new advert ----------------------------------------------------------------


def advert_published(advert: Advert) -> None:
    """Queue the match of a newly published advert against the saved searches (after the
    commit; a rolled-back publish matches nothing)."""
    jobs.enqueue("app.market.watch:notify_new_advert", advert.id)


def _candidates(advert: Advert) -> list[tuple[SavedSearch, User, InstanceGroup]]:
    """The searches with e-mail on of the active users of the advert's partner buyers (the
    seller's own company excluded), each with its user and the user's company's group."""
    groups = {
        g.instance_id: g
        for g in partner_buyers(advert.seller_group_id)
        if g.buyer and g.id != advert.seller_group_id
    }
    if not groups:
        return []
    rows = db.session.execute(
        select(SavedSearch, User, Membership)
        .join(User, User.id == SavedSearch.user_id)
        .join(
            Membership,
            (Membership.user_id == User.id) & (Membership.instance_id == SavedSearch.instance_id),
        )
        .where(
            SavedSearch.instance_id.in_(list(groups)),
            SavedSearch.notify.is_(True),
            User.active.is_(True),
        )
        .order_by(SavedSearch.id)
        .execution_options(all_instances=True)
    ).all()
    return [
        (search, user, groups[search.instance_id])
        for search, user, membership in rows
        if "market" in (membership.modules or [])  # the module its company granted
    ]


# Searches matched per statement: each is a column of the one row read, well under the
# databases' limits on columns and bound parameters (SQLite 2000 columns, PostgreSQL 1664).
MATCH_BATCH = 200


def matching(advert: Advert, candidates: list[tuple[Criteria, InstanceGroup]]) -> list[bool]:
    """For each (criteria, group): whether the market list of `group` narrowed by `criteria`
    holds the advert. One statement reads the advert's row with one true-or-false column per
    search (per MATCH_BATCH searches), and one reads the seller's rates, however many
    searches and companies there are."""
    if not candidates:
        return []
    seller = db.session.get(InstanceGroup, advert.seller_group_id)
    rates = rates_from(seller.instance_id, seller.currency)
    # The row is this seller's advert: of each group's sellers only this one's rate can count.
    columns = [
        and_(
            market_condition(group),
            *criteria.conditions(group, [(seller.id, rates.get(group.currency))]),
        )
        for criteria, group in candidates
    ]
    found: list[bool] = []
    for start in range(0, len(columns), MATCH_BATCH):
        batch = columns[start : start + MATCH_BATCH]
        row = db.session.execute(
            select(*(c.label(f"m{n}") for n, c in enumerate(batch)))
            .where(Advert.id == advert.id)
            .execution_options(all_instances=True)
        ).first()
        found += [bool(row and row[n]) for n in range(len(batch))]
    return found


def notify_new_advert(advert_id: int) -> int:
    """Job: e-mail each saved search the advert matches, once per search; returns how many."""
    advert = db.session.scalar(
        select(Advert).where(Advert.id == advert_id).execution_options(all_instances=True)
    )
    if advert is None or advert.status != "published":
        return 0

    sent = 0
    with mail_links():  # in a worker, links are made for the configured address
        seller_name = db.session.get(InstanceGroup, advert.seller_group_id).name
        candidates = _candidates(advert)
        found = matching(advert, [(criteria_of(s), group) for s, _user, group in candidates])
        for (search, user, group), match in zip(candidates, found, strict=True):
            if match and _send(search, user, group, advert, seller_name):
                sent += 1
    db.session.flush()
    return sent


def _send(search, user: User, group: InstanceGroup, advert: Advert, seller_name: str) -> bool:
    """Record the hit and mail it, unless this search has mailed about the advert already."""
    hit = SavedSearchHit(instance_id=search.instance_id, search_id=search.id, advert_id=advert.id)
    try:
        # Inline, the job runs in the seller's request; the hit is the buyer's instance's.
        with writing_across_instances(), db.session.begin_nested():
            db.session.add(hit)
    except IntegrityError:
        # Mailed already, perhaps by this job's run that was cut off before it queued the
        # mail's delivery: queued again while the mail is still queued.
        mailed = db.session.scalar(
            select(EmailMessage)
            .join(SavedSearchHit, SavedSearchHit.mail_id == EmailMessage.id)
            .where(SavedSearchHit.search_id == search.id, SavedSearchHit.advert_id == advert.id)
            .execution_options(all_instances=True)
        )
        if mailed is not None:
            redeliver(mailed)
        return False
    rates = Rates(group.currency)
    mail = send_mail(
        to=user.email,
        template="market_saved_search",
        kind="market_saved_search",
        language=recipient_language(user, group),
        time_zone=user_time_zone(user),
        instance_id=search.instance_id,
        advert=advert,
        search_name=search.name,
        criteria=criteria_of(search),
        seller_name=seller_name,
        recipient_name=user.full_name,
        currency=group.currency,
        start_price=rates.convert(advert, advert.start_price),
        advert_url=url_for("market.advert_page", advert_id=advert.id, _external=True),
        searches_url=url_for("market.saved_searches", _external=True),
        off_url=url_for("market.saved_search_off", token=search.token, _external=True),
    )
    hit.mail_id = mail.id
    return True
