"""The invitation: the public page market-invite/{hash}, its three calls (spec 02 sections 2-9)
and the signed-in page market/accept-invite/{hash}."""

import json
import re

import pytest
from sqlalchemy import select

from app.auth.services import verify_password
from app.core import ratelimit
from app.extensions import db
from app.market import invite_answer, invites
from app.market.models import InstanceGroup, MarketInvite, MarketPartner
from tests.helpers import page_text, sign_in, translated
from tests.market._invite import (
    PASSWORD,
    accept_payload,
    api_path,
    counts,
    demo_open_invite,
    fjordauto,
    make_invite,
    nordbil,
    page_csrf,
    user_by_email,
)

INVALID = "MODULES.CCMARKET.ALERTS.INVALID_INVITATION"


@pytest.fixture(autouse=True)
def _fresh_rate_limit(monkeypatch):
    """Every test starts a new rate-limit window (the whole run shares one address)."""
    monkeypatch.setattr(ratelimit, "_local", {})


def flashes(client) -> list[tuple[str, str]]:
    with client.session_transaction() as session:
        return list(session.get("_flashes", []))


def put(client, invite_hash: str, action: str, body=None, token: str | None = None):
    token = token or page_csrf(client, invite_hash)
    return client.put(
        api_path(invite_hash, action),
        json=body if body is not None else {},
        headers={"X-CSRFToken": token},
    )


def reload(invite: MarketInvite) -> MarketInvite:
    db.session.expire_all()
    return db.session.scalars(
        select(MarketInvite)
        .where(MarketInvite.id == invite.id)
        .execution_options(all_instances=True)
    ).one()


# --- the page ----------------------------------------------------------------------------------


def test_page_shows_the_invitation_in_its_language_with_the_form_texts(demo_app, demo_client):
    invite = demo_open_invite()
    response = demo_client.get(f"/market-invite/{invite.hash}")
    assert response.status_code == 200
    html = page_text(response)
    assert '<html lang="en-GB"' in html  # the demo invite is in English
    assert f'data-invite-hash="{invite.hash}"' in html
    assert re.search(r'<script type="module" src="[^"]+\.js"></script>', html)
    texts = json.loads(re.search(r'id="page-texts">(.*?)</script>', html, re.S).group(1))
    for key in ("PASSWORD_PATTERN", "PASSWORDS_DOESNT_MATCH", "INVALID_PHONE_NUMBER_CHARACTERS"):
        assert texts["messages"][key] == translated(demo_app, key)
    assert texts["invalidInvitation"] == translated(demo_app, INVALID)
    # Every field has a visible label: the form is a React component (issue 17), its fields and
    # their translated labels come with the page (islands/tests/market-invite.test.mjs renders
    # each as <label for=...>).
    props = json.loads(re.search(r'id="invite-form-props">(.*?)</script>', html, re.S).group(1))
    form = props["form"]
    fields = {f["id"]: f for group in form["company"] for f in group["fields"]}
    fields |= {f["id"]: f for f in form["user"]["fields"]}
    for field_id in ("company-name", "company-id", "contact-email", "password", "password-repeat"):
        assert fields[field_id]["label"]
    assert (
        fields["password"]["label"] == "Password"
        and form["submit"] == "Register and go to the market"
    )


def test_page_speaks_swedish_for_a_swedish_invite_unless_asked(demo_app, demo_client):
    invite = make_invite(demo_app, language="sv-SE")
    assert 'lang="sv-SE"' in page_text(demo_client.get(f"/market-invite/{invite.hash}"))
    asked = demo_client.get(f"/market-invite/{invite.hash}?lang=en-GB")
    assert 'lang="en-GB"' in page_text(asked)


@pytest.mark.parametrize("suffix", ["x", "", "a" * 80])
def test_unknown_hash_is_not_found(demo_app, demo_client, suffix):
    invite = make_invite(demo_app)
    wrong = (
        (invite.hash[:-1] + ("A" if invite.hash[-1] != "A" else "B")) if suffix == "" else suffix
    )
    assert demo_client.get(f"/market-invite/{wrong}").status_code == 404
    response = demo_client.get(api_path(wrong))
    assert response.status_code == 404
    assert response.get_json()["flashed"] is True


def test_the_invite_mail_links_to_the_page(demo_app, demo_client):
    from app.mail.models import EmailMessage

    invite = make_invite(demo_app, email="mail.test@example.com")
    mail = db.session.scalars(
        select(EmailMessage).where(EmailMessage.to_address == "mail.test@example.com")
    ).one()
    assert f"/market-invite/{invite.hash}" in mail.body_text
    assert "Nordbil AB" in mail.body_text
    assert demo_client.get(f"/market-invite/{invite.hash}").status_code == 200


# --- GET _public/instance-invites/{hash} ------------------------------------------------------


def test_get_invite_for_a_new_company(demo_app, demo_client):
    invite = make_invite(demo_app, email="Ny.Kund@Example.com", company_name="Ny Kund AB")
    data = demo_client.get(api_path(invite.hash)).get_json()
    assert data == {
        "acceptedAt": None,
        "deniedAt": None,
        "user": None,
        "invited": None,
        "companyName": "Ny Kund AB",
        "companyId": "556000-0001",
        "userEmail": "ny.kund@example.com",
        "language": "sv-SE",
        "sellerName": "Nordbil AB",
        "terms": nordbil().invite_terms,
        "signInToAccept": False,
    }
    assert flashes(demo_client) == []


def test_loading_an_invite_costs_the_same_queries_however_many_there_are(demo_app, demo_client):
    from tests.preparation.manage_helpers import QueryCounter

    invite = make_invite(demo_app, invited_group=fjordauto())

    def queries() -> int:
        with QueryCounter() as counter:
            assert demo_client.get(api_path(invite.hash)).status_code == 200
            # An existing company answers signed in: the page sends its visitor there.
            assert demo_client.get(f"/market-invite/{invite.hash}").status_code == 302
        return counter.count

    before = queries()
    for _ in range(15):
        make_invite(demo_app, invited_group=fjordauto())
    assert queries() == before


def test_get_invite_for_an_existing_company_names_it(demo_app, demo_client):
    group = fjordauto()
    invite = make_invite(demo_app, invited_group=group)
    data = demo_client.get(api_path(invite.hash)).get_json()
    assert data["invited"] == {
        "companyName": group.name,
        "companyId": group.company_id,
        "countryCode": "NO",
        "currency": "NOK",
    }


def test_get_invite_without_seller_terms_gives_default_terms(demo_app, demo_client):
    nordbil().invite_terms = None
    db.session.flush()
    invite = make_invite(demo_app, language="en-GB")
    terms = demo_client.get(api_path(invite.hash) + "?lang=en-GB").get_json()["terms"]
    assert "Bids are binding" in terms


def test_get_answered_invite_is_invalid_and_says_so_on_the_next_page(demo_app, demo_client):
    invite = make_invite(demo_app)
    invite.denied_at = invite.created_at
    db.session.flush()
    data = demo_client.get(api_path(invite.hash)).get_json()
    assert data["deniedAt"] is not None
    assert flashes(demo_client) == [("danger", translated(demo_app, INVALID, "sv_SE"))]


def test_get_invite_of_an_existing_user_asks_to_log_in(demo_app, demo_client):
    invite = make_invite(demo_app, email="malmo@demo.test")
    data = demo_client.get(api_path(invite.hash)).get_json()
    assert data["user"] == {"email": "malmo@demo.test"}
    assert flashes(demo_client) == [
        ("info", translated(demo_app, "LOG_IN_TO_ACCEPT_INVITATION", "sv_SE"))
    ]


# --- PUT accept-invite -------------------------------------------------------------------------


def test_accept_creates_the_company_its_user_and_partnership_and_signs_in(demo_app, demo_client):
    invite = make_invite(demo_app)
    before = counts()
    body = accept_payload(
        invite.email,
        **{"instance.groups.0.countryCode": "NO", "instance.groups.0.currency": "NOK"},
    )
    response = put(demo_client, invite.hash, "accept-invite", body)
    assert response.status_code == 200, response.get_json()
    assert response.get_json() == {
        "message": translated(demo_app, "INVITE_ACCEPTED", "sv_SE"),
        "redirect": "/market",
    }
    after = counts()
    assert {k: after[k] - before[k] for k in after} == {
        "instances": 1,
        "groups": 1,
        "users": 1,
        "countries": 1,
        "partners": 1,
    }
    user = user_by_email(invite.email)
    assert (user.firstname, user.lastname, user.phone_number) == ("Tove", "Test", "070-123 45 67")
    assert user.roles == ["ROLE_USER"] and user.modules == ["market"] and user.all_divisions
    assert user.options == {"language": "sv-SE"}
    assert user.home_instance_id == user.active_instance_id == user.instances[0].id
    assert verify_password(user, PASSWORD)
    group = db.session.scalars(
        select(InstanceGroup)
        .where(InstanceGroup.instance_id == user.active_instance_id)
        .execution_options(all_instances=True)
    ).one()
    assert (group.name, group.buyer, group.seller, group.currency, group.country_code) == (
        "Testbil AB", True, False, "NOK", "NO",
    )  # fmt: skip
    assert (group.company_id, group.contact_email, group.invoice_reference) == (
        "556000-0001", "kontakt@testbil.example.com", "Tove Test",
    )  # fmt: skip
    partner = db.session.scalars(
        select(MarketPartner).where(MarketPartner.buyer_group_id == group.id)
    ).one()
    assert partner.seller_group_id == nordbil().id
    invite = reload(invite)
    assert invite.accepted_at is not None and invite.accepted_user_id == user.id
    # Signed in as the new user: the market opens and shows the confirmation once.
    market = demo_client.get("/market")
    assert market.status_code == 200
    assert translated(demo_app, "INVITE_ACCEPTED", "sv_SE") in page_text(market)
    assert demo_client.get("/api/me").get_json()["username"] == invite.email


NEW_COMPANY_RULES = [
    ("instance.companyName", "", "FIELD_REQUIRED"),
    ("instance.groups.0.companyId", "  ", "FIELD_REQUIRED"),
    ("instance.groups.0.contactName", "", "FIELD_REQUIRED"),
    ("instance.groups.0.contactEmail", "", "FIELD_REQUIRED"),
    ("instance.groups.0.contactEmail", "not-an-address", "INVALID_EMAIL"),
    ("instance.groups.0.contactPhone", "", "FIELD_REQUIRED"),
    ("instance.groups.0.contactPhone", "070 ABC", "INVALID_PHONE_NUMBER_CHARACTERS"),
    ("instance.groups.0.invoiceReference", "", "FIELD_REQUIRED"),
    ("instance.groups.0.invoiceEmail", "", "FIELD_REQUIRED"),
    ("instance.groups.0.invoiceEmail", "faktura@", "INVALID_EMAIL"),
    ("instance.groups.0.countryCode", "US", "INVALID_VALUE"),
    ("instance.groups.0.currency", "USD", "INVALID_VALUE"),
]
USER_RULES = [
    ("user.firstname", "", "FIELD_REQUIRED"),
    ("user.lastname", "", "FIELD_REQUIRED"),
    ("user.email", "", "FIELD_REQUIRED"),
    ("user.email", "someone@", "INVALID_EMAIL"),
    ("user.phoneNumber", "+46 70 abc", "INVALID_PHONE_NUMBER_CHARACTERS"),
    ("user.phoneNumber", "070 ÅÄÖ", "INVALID_PHONE_NUMBER_CHARACTERS"),
    ("user.plainPassword.first", "", "PASSWORD_REQUIRED"),
    ("user.plainPassword.first", "short1!", None),  # 7 characters: accepted (matches below)
    ("user.plainPassword.first", "abc12!", "PASSWORD_PATTERN"),  # 6 characters
    ("user.plainPassword.first", "abcdefg!", "PASSWORD_PATTERN"),  # no digit
    ("user.plainPassword.first", "ABCDEF1!", "PASSWORD_PATTERN"),  # no lowercase letter
    ("user.plainPassword.first", "abcdef12", "PASSWORD_PATTERN"),  # no special character
    ("user.plainPassword.second", "", "VERIFY_PASSWORD_REQUIRED"),
    ("user.plainPassword.second", "Other-pass-2", "PASSWORDS_DOESNT_MATCH"),
    ("user.language", "de-DE", "INVALID_VALUE"),
]


def _refused(demo_app, demo_client, invite, path, value, key, **extra):
    before = counts()
    changes = {path: value, **extra}
    if path == "user.plainPassword.first" and value:
        changes["user.plainPassword.second"] = value
    response = put(
        demo_client, invite.hash, "accept-invite", accept_payload(invite.email, **changes)
    )
    if key is None:
        assert response.status_code == 200, response.get_json()
        return
    assert response.status_code == 422
    data = response.get_json()
    assert data["keys"] == {path: key}
    assert data["errors"][path] == translated(demo_app, key, "sv_SE")
    assert counts() == before
    assert reload(invite).accepted_at is None


@pytest.mark.parametrize(("path", "value", "key"), NEW_COMPANY_RULES + USER_RULES)
def test_accept_for_a_new_company_checks_every_field(demo_app, demo_client, path, value, key):
    _refused(demo_app, demo_client, make_invite(demo_app), path, value, key)


def test_accept_reports_every_refused_field_at_once(demo_app, demo_client):
    invite = make_invite(demo_app)
    body = accept_payload(
        invite.email,
        **{"instance.companyName": "", "user.plainPassword.first": "x", "user.phoneNumber": "ab"},
    )
    keys = put(demo_client, invite.hash, "accept-invite", body).get_json()["keys"]
    assert keys == {
        "instance.companyName": "FIELD_REQUIRED",
        "user.plainPassword.first": "PASSWORD_PATTERN",
        "user.plainPassword.second": "PASSWORDS_DOESNT_MATCH",
        "user.phoneNumber": "INVALID_PHONE_NUMBER_CHARACTERS",
    }


def test_accept_refuses_a_too_long_value_on_its_field(demo_app, demo_client):
    invite = make_invite(demo_app)
    body = accept_payload(invite.email, **{"user.firstname": "x" * 101})
    response = put(demo_client, invite.hash, "accept-invite", body)
    assert response.status_code == 422
    assert response.get_json()["keys"] == {"user.firstname": "FIELD_TOO_LONG"}


def test_accept_with_another_address_is_refused_on_the_email_field(demo_app, demo_client):
    invite = make_invite(demo_app)
    before = counts()
    body = accept_payload(invite.email, **{"user.email": "Buyer@Demo.test"})
    demo_client.get("/login?lang=en-GB")  # the language is kept in a cookie
    response = put(demo_client, invite.hash, "accept-invite", body)
    assert response.status_code == 422
    data = response.get_json()
    assert data["keys"] == {"user.email": "EMAIL_NOT_INVITED"}
    assert "the invitation was sent to" in data["errors"]["user.email"]
    assert counts() == before


def test_an_address_taken_while_registering_leaves_nothing_made(demo_app, demo_client, monkeypatch):
    """The early check misses a user registered in parallel; the unique address catches it
    after the company was made, and all of it is rolled back."""
    invite = make_invite(demo_app, email="seller@demo.test")
    monkeypatch.setattr(invite_answer, "find_user", lambda email: None)
    before = counts()
    body = accept_payload(invite.email)
    response = put(demo_client, invite.hash, "accept-invite", body)
    assert response.status_code == 422
    assert response.get_json()["keys"] == {"user.email": "EMAIL_TAKEN"}
    assert counts() == before
    assert reload(invite).accepted_at is None


def test_a_failing_last_step_leaves_nothing_half_made(demo_app, demo_client, monkeypatch):
    invite = make_invite(demo_app)

    def broken(seller_group_id, buyer_group_id):
        raise RuntimeError("the partnership could not be stored")

    monkeypatch.setattr(invite_answer, "add_partner", broken)
    before = counts()
    response = put(demo_client, invite.hash, "accept-invite", accept_payload(invite.email))
    assert response.status_code == 500
    assert "requestId" in response.get_json()
    assert counts() == before
    assert user_by_email(invite.email) is None
    assert reload(invite).accepted_at is None


def test_accept_by_an_existing_user_asks_to_log_in(demo_app, demo_client):
    invite = make_invite(demo_app, email="malmo@demo.test")
    body = accept_payload("someone.else@example.com")
    response = put(demo_client, invite.hash, "accept-invite", body)
    assert response.status_code == 409
    assert response.get_json()["message"] == translated(
        demo_app, "LOG_IN_TO_ACCEPT_INVITATION", "sv_SE"
    )


@pytest.mark.parametrize("action", ["accept-invite", "deny-invite"])
@pytest.mark.parametrize("answered", ["accepted_at", "denied_at"])
def test_an_answered_invite_cannot_be_answered_again(demo_app, demo_client, action, answered):
    invite = make_invite(demo_app)
    setattr(invite, answered, invite.created_at)
    db.session.flush()
    before = counts()
    response = put(demo_client, invite.hash, action, accept_payload(invite.email))
    assert response.status_code == 409
    assert response.get_json()["message"] == translated(demo_app, INVALID, "sv_SE")
    assert counts() == before


def test_accept_needs_the_pages_csrf_token(demo_app, demo_client):
    invite = make_invite(demo_app)
    response = demo_client.put(
        api_path(invite.hash, "accept-invite"), json=accept_payload(invite.email)
    )
    assert response.status_code == 400
    assert reload(invite).accepted_at is None


# --- PUT deny-invite ---------------------------------------------------------------------------


def test_deny_declines_the_invite_and_goes_to_the_root(demo_app, demo_client):
    invite = make_invite(demo_app)
    before = counts()
    response = put(demo_client, invite.hash, "deny-invite")
    assert response.status_code == 200
    text = translated(demo_app, "INVITE_DECLINED", "sv_SE")
    assert response.get_json() == {"message": text, "redirect": "/"}
    assert reload(invite).denied_at is not None
    assert counts() == before
    assert ("success", text) in flashes(demo_client)
    # The invitation is over: loading it again says so.
    assert demo_client.get(api_path(invite.hash)).get_json()["deniedAt"] is not None


def test_a_hash_answers_only_for_its_own_invite(demo_app, demo_client):
    """Two invites of two sellers in two instances: each hash reads and answers only its own."""
    other_seller = fjordauto()
    other_seller.invite_terms = "Fjordauto's own terms."
    db.session.flush()
    with demo_app.test_request_context():
        theirs = invites.create_invite(
            other_seller, company_name="Deres AS", email="deres@example.com"
        )
    ours = make_invite(demo_app, company_name="Vår AB")
    data = demo_client.get(api_path(theirs.hash)).get_json()
    assert (data["companyName"], data["sellerName"], data["terms"]) == (
        "Deres AS", other_seller.name, "Fjordauto's own terms.",
    )  # fmt: skip
    assert put(demo_client, theirs.hash, "deny-invite").status_code == 200
    assert reload(theirs).denied_at is not None
    assert reload(ours).denied_at is None
    assert demo_client.get(api_path(ours.hash)).get_json()["companyName"] == "Vår AB"


def test_public_invite_calls_and_page_are_rate_limited(demo_app, demo_client, monkeypatch):
    invite = make_invite(demo_app)
    token = page_csrf(demo_client, invite.hash)
    monkeypatch.setitem(demo_app.config, "PUBLIC_RATE_LIMIT", "3/60")
    monkeypatch.setattr(ratelimit, "_local", {})
    statuses = [demo_client.get(api_path(invite.hash)).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    limited = demo_client.get(api_path(invite.hash))
    assert int(limited.headers["Retry-After"]) > 0
    assert demo_client.get(f"/market-invite/{invite.hash}").status_code == 429
    assert put(demo_client, invite.hash, "deny-invite", token=token).status_code == 429
    assert (
        put(
            demo_client, invite.hash, "accept-invite", accept_payload(invite.email), token
        ).status_code
        == 429
    )
    assert reload(invite).denied_at is None and reload(invite).accepted_at is None


# --- the signed-in page ------------------------------------------------------------------------


def _malmo_invite(demo_app):
    from tests.market._invite import group_named

    malmo = group_named("Malmö Bilcenter AB")
    db.session.execute(
        MarketPartner.__table__.delete().where(MarketPartner.buyer_group_id == malmo.id)
    )
    malmo.buyer = False
    db.session.flush()
    return make_invite(demo_app, email="malmo@demo.test"), malmo


def test_signed_in_page_shows_seller_and_terms_to_the_invited_user(demo_app, demo_client):
    invite, _malmo = _malmo_invite(demo_app)
    sign_in(demo_client, user_by_email("malmo@demo.test"))
    response = demo_client.get(f"/market/accept-invite/{invite.hash}")
    assert response.status_code == 200
    html = page_text(response)
    assert "Nordbil AB" in html and "Bids are binding for 48 hours" in html
    assert 'name="csrf_token"' in html and 'value="accept"' in html and 'value="decline"' in html


def test_signed_in_accept_makes_the_users_company_a_buyer_and_partner(demo_app, demo_client):
    invite, malmo = _malmo_invite(demo_app)
    token = sign_in(demo_client, user_by_email("malmo@demo.test"))
    response = demo_client.post(
        f"/market/accept-invite/{invite.hash}", data={"answer": "accept", "csrf_token": token}
    )
    assert response.status_code == 302 and response.headers["Location"] == "/market"
    db.session.expire_all()
    assert db.session.get(InstanceGroup, malmo.id).buyer is True
    assert (
        db.session.scalars(select(MarketPartner).where(MarketPartner.buyer_group_id == malmo.id))
        .one()
        .seller_group_id
        == nordbil().id
    )
    assert reload(invite).accepted_at is not None
    market = demo_client.get("/market")
    assert translated(demo_app, "INVITE_ACCEPTED", "sv_SE") in page_text(market)


def test_signed_in_accept_gives_a_company_without_group_a_buyer_group(demo_app, demo_client):
    from app.core.models import Instance
    from tests.market._invite import group_named

    malmo = group_named("Malmö Bilcenter AB")
    instance_id = malmo.instance_id
    db.session.execute(InstanceGroup.__table__.delete().where(InstanceGroup.id == malmo.id))
    db.session.flush()
    invite = make_invite(demo_app, email="malmo@demo.test")
    token = sign_in(demo_client, user_by_email("malmo@demo.test"))
    response = demo_client.post(
        f"/market/accept-invite/{invite.hash}", data={"answer": "accept", "csrf_token": token}
    )
    assert response.status_code == 302
    group = db.session.scalars(
        select(InstanceGroup)
        .where(InstanceGroup.instance_id == instance_id)
        .execution_options(all_instances=True)
    ).one()
    assert (group.buyer, group.currency, group.name) == (
        True, "SEK", db.session.get(Instance, instance_id).company_name,
    )  # fmt: skip


def test_signed_in_decline_denies_the_invite(demo_app, demo_client):
    invite, malmo = _malmo_invite(demo_app)
    token = sign_in(demo_client, user_by_email("malmo@demo.test"))
    response = demo_client.post(
        f"/market/accept-invite/{invite.hash}", data={"answer": "decline", "csrf_token": token}
    )
    assert response.status_code == 302 and response.headers["Location"] == "/"
    assert reload(invite).denied_at is not None
    db.session.expire_all()
    assert db.session.get(InstanceGroup, malmo.id).buyer is False


def test_signed_in_answer_must_be_accept_or_decline(demo_app, demo_client):
    invite, _malmo = _malmo_invite(demo_app)
    token = sign_in(demo_client, user_by_email("malmo@demo.test"))
    response = demo_client.post(f"/market/accept-invite/{invite.hash}", data={"csrf_token": token})
    assert response.status_code == 400
    invite = reload(invite)
    assert invite.accepted_at is None and invite.denied_at is None


def test_signed_in_page_refuses_another_user(demo_app, demo_client):
    invite, _malmo = _malmo_invite(demo_app)
    token = sign_in(demo_client, user_by_email("buyer@demo.test"))
    response = demo_client.get(f"/market/accept-invite/{invite.hash}?lang=en-GB")
    assert response.status_code == 403
    assert "sent to another e-mail address" in page_text(response)
    assert "Bids are binding" not in page_text(response)
    posted = demo_client.post(
        f"/market/accept-invite/{invite.hash}", data={"answer": "accept", "csrf_token": token}
    )
    assert posted.status_code == 403
    assert reload(invite).accepted_at is None


def test_signed_in_page_sends_anonymous_visitors_to_log_in_and_back(demo_app, demo_client):
    invite, _malmo = _malmo_invite(demo_app)
    response = demo_client.get(f"/market/accept-invite/{invite.hash}")
    assert response.status_code == 302
    assert (
        response.headers["Location"] == (f"/login?next=/market/accept-invite/{invite.hash}")
        or f"next=%2Fmarket%2Faccept-invite%2F{invite.hash}" in response.headers["Location"]
    )


def test_signed_in_page_of_an_answered_invite_goes_to_the_root(demo_app, demo_client):
    invite, _malmo = _malmo_invite(demo_app)
    invite.accepted_at = invite.created_at
    db.session.flush()
    sign_in(demo_client, user_by_email("malmo@demo.test"))
    response = demo_client.get(f"/market/accept-invite/{invite.hash}")
    assert response.status_code == 302 and response.headers["Location"] == "/"
    assert ("danger", translated(demo_app, INVALID, "sv_SE")) in flashes(demo_client)


def test_signed_in_page_of_an_unknown_hash_is_not_found(demo_app, demo_client):
    sign_in(demo_client, user_by_email("malmo@demo.test"))
    assert demo_client.get("/market/accept-invite/nope").status_code == 404
