"""Invitations: a seller invites a company by e-mail, and the company a new buyer is made as.
Answering an invite (registering, accepting, declining) is app.market.invite_answer."""

from __future__ import annotations

from functools import wraps

from flask import url_for
from sqlalchemy import select

from app.core.i18n import to_locale
from app.core.models import Country, Division, Instance, Region
from app.core.tenancy import activate, active_instance_id
from app.extensions import db
from app.mail.services import send_mail
from app.market.models import InstanceGroup, MarketInvite

INVITE_LANGUAGES = ("sv-SE", "en-GB")
DEFAULT_LANGUAGE = "sv-SE"
# What a company registering from a country gets: country name, currency and locale.
COUNTRY_DEFAULTS = {
    "SE": ("Sverige", "SEK", "sv-SE"),
    "NO": ("Norge", "NOK", "nb-NO"),
    "FI": ("Suomi", "EUR", "fi-FI"),
    "DE": ("Deutschland", "EUR", "de-DE"),
    "DK": ("Danmark", "DKK", "da-DK"),
}


def create_market_company(
    company_name: str, country_code: str, currency: str, *, buyer: bool = True, **details
) -> tuple[Instance, InstanceGroup]:
    """A new instance for a company joining the market: its country, one region and one
    division named after the company (so the shell works for its users), and its group.
    Leaves the new instance active; the caller restores what it needs."""
    instance = Instance(company_name=company_name)
    db.session.add(instance)
    db.session.flush()
    activate(instance.id)
    name, _currency, locale = COUNTRY_DEFAULTS[country_code]
    country = Country(
        code=country_code, name=name, milage_unit="km", currency=currency, locale=locale
    )
    region = Region(name=company_name, slug="market", country=country)
    division = Division(name=company_name, slug="market", region=region)
    group = InstanceGroup(
        name=company_name,
        buyer=buyer,
        seller=False,
        currency=currency,
        country_code=country_code,
        options={"market": {"enableVehicleRequest": True}},
        **details,
    )
    db.session.add_all([country, region, division, group])
    db.session.flush()
    return instance, group


def create_invite(
    seller_group: InstanceGroup,
    *,
    company_name: str,
    email: str,
    company_id: str | None = None,
    language: str = DEFAULT_LANGUAGE,
    invited_group: InstanceGroup | None = None,
    created_by=None,
) -> MarketInvite:
    """Store an invite in the seller's instance and send its e-mail (a job)."""
    language = language if language in INVITE_LANGUAGES else DEFAULT_LANGUAGE
    invite = MarketInvite(
        instance_id=seller_group.instance_id,
        seller_group_id=seller_group.id,
        company_name=company_name,
        company_id=company_id or None,
        email=email.strip().lower(),
        language=language,
        invited_group_id=invited_group.id if invited_group else None,
        created_by_id=created_by.id if created_by is not None else None,
    )
    db.session.add(invite)
    db.session.flush()
    send_mail(
        to=invite.email,
        template="market_invite",
        kind="market_invite",
        language=to_locale(language) or DEFAULT_LANGUAGE,
        instance_id=seller_group.instance_id,
        seller_name=seller_group.name,
        company_name=company_name,
        invite_url=url_for("market.invite_page", invite_hash=invite.hash, _external=True),
    )
    return invite


def find_invite(invite_hash: str) -> MarketInvite | None:
    """The invite a public hash names, in any instance."""
    if not invite_hash or len(invite_hash) > 64:
        return None
    return db.session.scalar(
        select(MarketInvite)
        .where(MarketInvite.hash == invite_hash)
        .execution_options(all_instances=True)
    )


def keep_instance(fn):
    """Run `fn` and restore the active instance afterwards (for code that switches it)."""

    @wraps(fn)
    def wrapper(*args, **kwargs):
        before = active_instance_id()
        try:
            return fn(*args, **kwargs)
        finally:
            activate(before)

    return wrapper
