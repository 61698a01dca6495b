"""Issue 18, defects 1 and 3: an invitation never lets a stranger into an existing company, the
registered address is the invited one, the invitable companies are only those the seller knows,
and only a company or market administrator answers an invitation for the whole company."""

import re

import pytest
from sqlalchemy import select

from app.auth.models import User
from app.core import ratelimit
from app.core.models import Instance
from app.core.roles import ROLE_ADMIN, ROLE_CCMARKET_ADMIN
from app.extensions import db
from app.market.models import InstanceGroup, MarketPartner
from tests.conftest import csrf_token
from tests.helpers import page_text, sign_in
from tests.market._admin import make_group
from tests.market._invite import (
    accept_payload,
    counts,
    group_named,
    make_invite,
    user_by_email,
)
from tests.market.test_invites import put, reload


@pytest.fixture(autouse=True)
def _fresh_rate_limit(monkeypatch):
    monkeypatch.setattr(ratelimit, "_local", {})


def _partners_of(group: InstanceGroup) -> list[int]:
    return list(
        db.session.scalars(
            select(MarketPartner.seller_group_id).where(MarketPartner.buyer_group_id == group.id)
        )
    )


def _stranger_company() -> InstanceGroup:
    """A buyer company that does not trade with Nordbil yet."""
    group = make_group("Trondheim Bilsalg AS", buyer=True, currency="NOK")
    return group


def _user_of(group: InstanceGroup, email: str, roles=("ROLE_USER",), modules=("market",)) -> User:
    instance = db.session.get(Instance, group.instance_id)
    user = User(
        email=email,
        firstname="Kari",
        lastname="Nordmann",
        roles=list(roles),
        modules=list(modules),
        all_divisions=True,
        home_instance_id=instance.id,
        active_instance_id=instance.id,
    )
    user.instances = [instance]
    db.session.add(user)
    db.session.flush()
    return user


# --- defect 1: the public form and an existing company -----------------------------------------


def test_the_public_form_never_makes_a_user_inside_an_existing_company(demo_app, demo_client):
    company = _stranger_company()
    invite = make_invite(demo_app, invited_group=company, email="attacker@evil.example")
    before = counts()
    body = accept_payload(invite.email, **{"instance.companyName": "", "instance.groups": []})
    token = csrf_token(demo_client, "/login")
    response = put(demo_client, invite.hash, "accept-invite", body, token=token)
    assert response.status_code == 409
    assert "Trondheim Bilsalg AS" in response.get_json()["message"]
    assert counts() == before
    assert user_by_email("attacker@evil.example") is None
    assert reload(invite).accepted_at is None and _partners_of(company) == []
    # Nobody was signed in.
    assert demo_client.get("/api/me").status_code == 401


def test_the_public_page_of_an_existing_company_invite_asks_its_administrator_to_sign_in(
    demo_app, demo_client
):
    company = _stranger_company()
    invite = make_invite(demo_app, invited_group=company)
    response = demo_client.get(f"/market-invite/{invite.hash}?lang=en-GB")
    assert response.status_code == 302
    assert response.headers["Location"] == f"/market/accept-invite/{invite.hash}"
    data = demo_client.get(f"/api/_public/instance-invites/{invite.hash}").get_json()
    assert data["signInToAccept"] is True


def test_the_registered_address_must_be_the_invited_one(demo_app, demo_client):
    invite = make_invite(demo_app, email="invited@testbil.example.com")
    before = counts()
    body = accept_payload("someone.else@testbil.example.com")
    response = put(demo_client, invite.hash, "accept-invite", body)
    assert response.status_code == 422
    assert response.get_json()["keys"] == {"user.email": "EMAIL_NOT_INVITED"}
    assert counts() == before
    # The invited address registers.
    assert (
        put(demo_client, invite.hash, "accept-invite", accept_payload(invite.email)).status_code
        == 200
    )


def test_a_user_of_another_company_cannot_accept_an_existing_company_invite(demo_app, demo_client):
    company = _stranger_company()
    # Even sent to the address of an administrator of Malmö, the invite is Trondheim's.
    malmo_admin = user_by_email("malmo@demo.test")
    malmo_admin.roles = ["ROLE_USER", ROLE_CCMARKET_ADMIN]
    db.session.flush()
    invite = make_invite(demo_app, invited_group=company, email="malmo@demo.test")
    token = sign_in(demo_client, malmo_admin)
    page = demo_client.get(f"/market/accept-invite/{invite.hash}?lang=en-GB")
    assert page.status_code == 403
    posted = demo_client.post(
        f"/market/accept-invite/{invite.hash}", data={"answer": "accept", "csrf_token": token}
    )
    assert posted.status_code == 403
    assert reload(invite).accepted_at is None
    assert _partners_of(group_named("Malmö Bilcenter AB")) == [group_named("Nordbil AB").id]
    assert _partners_of(company) == []


def test_an_administrator_of_the_invited_company_accepts_signed_in(demo_app, demo_client):
    company = _stranger_company()
    admin = _user_of(company, "chef@trondheim.example", roles=("ROLE_USER", ROLE_ADMIN))
    invite = make_invite(demo_app, invited_group=company, email="post@trondheim.example")
    token = sign_in(demo_client, admin)
    page = demo_client.get(f"/market/accept-invite/{invite.hash}?lang=en-GB")
    assert page.status_code == 200 and 'value="accept"' in page_text(page)
    assert "Trondheim Bilsalg AS" in page_text(page)
    posted = demo_client.post(
        f"/market/accept-invite/{invite.hash}", data={"answer": "accept", "csrf_token": token}
    )
    assert posted.status_code == 302
    assert reload(invite).accepted_user_id == admin.id
    assert _partners_of(company) == [group_named("Nordbil AB").id]


def test_the_invitable_companies_are_only_those_the_seller_knows(demo_app, demo_client):
    stranger = _stranger_company()
    stranger.company_id = "998877665"
    seller = user_by_email("seller@demo.test")
    token = sign_in(demo_client, seller)
    html = demo_client.get("/market/invites").get_data(as_text=True)
    assert "Trondheim Bilsalg AS" not in html and "998877665" not in html
    refused = demo_client.post(
        "/market/invites",
        data={
            "csrf_token": token,
            "existing_group": str(stranger.id),
            "company_name": "",
            "email": "a@trondheim.example",
            "language": "sv-SE",
        },
    )
    assert refused.status_code == 422
    # A company the seller's user works for is offered by name.
    seller.instances = [*seller.instances, db.session.get(Instance, stranger.instance_id)]
    db.session.flush()
    html = demo_client.get("/market/invites").get_data(as_text=True)
    select_html = html.split('id="existing_group"', 1)[1].split("</select>", 1)[0]
    assert "Trondheim Bilsalg AS" in re.findall(r"<option[^>]*>([^<]*)</option>", select_html)


# --- defect 3: only an administrator answers for the company -----------------------------------


def test_an_employee_without_the_role_cannot_accept_and_is_told_who_can(demo_app, demo_client):
    malmo = group_named("Malmö Bilcenter AB")
    db.session.execute(
        MarketPartner.__table__.delete().where(MarketPartner.buyer_group_id == malmo.id)
    )
    malmo.buyer = False
    employee = _user_of(malmo, "anstalld@malmo.example", modules=())
    boss = _user_of(malmo, "chef@malmo.example", roles=("ROLE_USER", ROLE_CCMARKET_ADMIN))
    boss.firstname, boss.lastname = "Bo", "Chef"
    invite = make_invite(demo_app, email="anstalld@malmo.example")
    token = sign_in(demo_client, employee)
    page = demo_client.get(f"/market/accept-invite/{invite.hash}?lang=en-GB")
    assert page.status_code == 200
    text = page_text(page)
    assert 'value="accept"' not in text
    assert "Only a company administrator or market administrator" in text and "Bo Chef" in text
    posted = demo_client.post(
        f"/market/accept-invite/{invite.hash}", data={"answer": "accept", "csrf_token": token}
    )
    assert posted.status_code == 403
    db.session.expire_all()
    assert reload(invite).accepted_at is None
    assert db.session.get(User, employee.id).modules == []
    assert db.session.get(InstanceGroup, malmo.id).buyer is False
    assert _partners_of(malmo) == []
