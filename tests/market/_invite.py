"""Helpers for the invitation tests: the demo's invites, invites made to order, the accept
payload, and row counts that show whether anything was made."""

import re
from itertools import count

from flask import Flask
from sqlalchemy import func, select

from app.auth.models import User
from app.core.models import Country, Instance
from app.extensions import db
from app.market.invites import create_invite
from app.market.models import InstanceGroup, MarketInvite, MarketPartner

PASSWORD = "Secret-pass-1"
_numbers = count(1)


def group_named(name: str) -> InstanceGroup:
    return db.session.scalars(
        select(InstanceGroup)
        .where(InstanceGroup.name == name)
        .execution_options(all_instances=True)
    ).one()


def nordbil() -> InstanceGroup:
    return group_named("Nordbil AB")


def fjordauto() -> InstanceGroup:
    return db.session.scalars(
        select(InstanceGroup)
        .where(InstanceGroup.buyer.is_(True), InstanceGroup.currency == "NOK")
        .execution_options(all_instances=True)
    ).first()


def demo_open_invite() -> MarketInvite:
    """The demo's open invite of a new company (Vestkyst Bil AS, in English)."""
    return db.session.scalars(
        select(MarketInvite)
        .where(MarketInvite.accepted_at.is_(None), MarketInvite.denied_at.is_(None))
        .order_by(MarketInvite.id)
        .execution_options(all_instances=True)
    ).first()


def make_invite(app: Flask, *, email: str | None = None, invited_group=None, **values):
    """A new open invite from Nordbil (flushed), with an address no user has."""
    email = email or f"invitee{next(_numbers)}@example.com"
    with app.test_request_context():
        return create_invite(
            nordbil(),
            company_name=values.pop("company_name", "Testbil AB"),
            company_id=values.pop("company_id", "556000-0001"),
            email=email,
            invited_group=invited_group,
            **values,
        )


def accept_payload(email: str, **changes) -> dict:
    """A valid accept payload for a new company; `changes` replace fields by wire path."""
    body = {
        "instance": {
            "companyName": "Testbil AB",
            "groups": [
                {
                    "name": "Testbil AB",
                    "companyId": "556000-0001",
                    "contactName": "Tove Test",
                    "contactEmail": "kontakt@testbil.example.com",
                    "contactPhone": "+46 70 123 45 67",
                    "invoiceReference": "Tove Test",
                    "invoiceEmail": "faktura@testbil.example.com",
                    "currency": "SEK",
                    "countryCode": "SE",
                }
            ],
        },
        "user": {
            "email": email,
            "username": email,
            "plainPassword": {"first": PASSWORD, "second": PASSWORD},
            "phoneNumber": "070-123 45 67",
            "firstname": "Tove",
            "lastname": "Test",
            "language": "sv-SE",
        },
    }
    for path, value in changes.items():
        target = body
        parts = path.split(".")
        for part in parts[:-1]:
            target = target[int(part)] if part.isdigit() else target[part]
        target[parts[-1]] = value
    return body


def counts() -> dict[str, int]:
    """How many of the rows an accepted invite makes exist now (in every instance)."""

    def n(model):
        return db.session.scalar(
            select(func.count()).select_from(model).execution_options(all_instances=True)
        )

    return {
        "instances": n(Instance),
        "groups": n(InstanceGroup),
        "users": n(User),
        "countries": n(Country),
        "partners": n(MarketPartner),
    }


def page_csrf(client, invite_hash: str) -> str:
    html = client.get(f"/market-invite/{invite_hash}").get_data(as_text=True)
    match = re.search(r'<meta name="csrf-token" content="([^"]+)"', html)
    assert match
    return match.group(1)


def api_path(invite_hash: str, action: str = "") -> str:
    return f"/api/_public/instance-invites/{invite_hash}" + (f"/{action}" if action else "")


def user_by_email(email: str) -> User | None:
    return db.session.scalars(
        select(User).where(User.email == email).execution_options(all_instances=True)
    ).first()
