"""Forgot password and reset password: pages and JSON calls, mails, tokens, rules, throttling."""

import hashlib
import re
from datetime import timedelta

import pytest
from sqlalchemy import select

from app.auth.models import PasswordResetToken, User
from app.core.models import utcnow
from app.extensions import db
from app.mail.models import EmailMessage
from tests.conftest import csrf_token
from tests.factories import PASSWORD, make_user
from tests.helpers import message_key, page_text, sign_in, translated

NEW_PASSWORD = "Fresh-pass-2"
LINK = re.compile(r"https?://[^\s\"<]+/reset-password/([A-Za-z0-9_-]+)")


def forgot_page(client, email, **headers):
    data = {"email": email, "csrf_token": csrf_token(client)}
    return client.post("/login/forgot-password", data=data, headers=headers)


def forgot_api(client, email, **headers):
    headers = {"X-CSRFToken": csrf_token(client), **headers}
    return client.post("/api/auth/forgot-password", json={"email": email}, headers=headers)


def mails_to(address: str) -> list[EmailMessage]:
    stmt = select(EmailMessage).where(EmailMessage.to_address == address).order_by(EmailMessage.id)
    return list(db.session.scalars(stmt))


def reset_link(client, user: User) -> tuple[str, str]:
    """Ask for a reset link for `user`; return (the link from the mail, its token)."""
    assert forgot_api(client, user.email).status_code == 200
    match = LINK.search(mails_to(user.email)[-1].body_text)
    assert match, "the reset mail carries no reset link"
    return match.group(0), match.group(1)


def reset_page(client, token, password, verify=None):
    data = {
        "password": password,
        "verify_password": password if verify is None else verify,
        "csrf_token": csrf_token(client),
    }
    return client.post(f"/reset-password/{token}", data=data)


def login_status(client, email, password) -> int:
    data = {"email": email, "password": password, "csrf_token": csrf_token(client)}
    return client.post("/login", data=data).status_code


def token_record(token: str) -> PasswordResetToken:
    digest = hashlib.sha256(token.encode()).hexdigest()
    stmt = select(PasswordResetToken).where(PasswordResetToken.token_hash == digest)
    return db.session.scalars(stmt).one()


# --- asking for a link -------------------------------------------------------------------------


def test_forgot_password_page_answers_the_same_for_known_and_unknown_addresses(client, app):
    user = make_user()
    known = forgot_page(client, user.email)
    known_page = page_text(client.get("/login"))
    unknown = forgot_page(client, "nobody@example.test")
    unknown_page = page_text(client.get("/login"))

    assert known.status_code == unknown.status_code == 302
    assert known.headers["Location"] == unknown.headers["Location"] == "/login"
    sent = translated(app, "FORGOT_PASSWORD_EMAIL_SENT")
    assert sent != "FORGOT_PASSWORD_EMAIL_SENT"
    assert sent in known_page
    assert sent in unknown_page


def test_forgot_password_call_answers_the_same_for_known_and_unknown_addresses(client, app):
    user = make_user()
    known = forgot_api(client, user.email)
    unknown = forgot_api(client, "nobody@example.test")
    assert known.status_code == unknown.status_code == 200
    assert known.get_json() == unknown.get_json()
    assert known.get_json() == {"message": translated(app, "FORGOT_PASSWORD_EMAIL_SENT")}


def test_a_mail_is_stored_only_for_a_known_address(client):
    user = make_user()
    forgot_page(client, user.email)
    forgot_api(client, "nobody@example.test")
    forgot_page(client, "nobody@example.test")

    mails = mails_to(user.email)
    assert [(m.kind, m.status) for m in mails] == [("password_reset", "stored")]
    assert mails_to("nobody@example.test") == []


def test_the_mail_is_in_the_users_own_language(client):
    user = make_user(options={"language": "sv-SE"})
    forgot_api(client, user.email, **{"Accept-Language": "de-DE"})
    assert mails_to(user.email)[-1].language == "sv-SE"


def test_without_a_language_of_their_own_the_mail_is_in_the_browsers_language(client):
    user = make_user()
    forgot_api(client, user.email, **{"Accept-Language": "de-DE,de;q=0.9"})
    assert mails_to(user.email)[-1].language == "de-DE"


def test_the_mails_preview_page_shows_the_reset_link_without_signing_in(client):
    user = make_user()
    link, _token = reset_link(client, user)
    mail = mails_to(user.email)[-1]
    preview = client.get(f"/email-preview/{mail.public_id}")
    assert preview.status_code == 200
    assert f'href="{link}"' in preview.get_data(as_text=True)
    assert user.email in page_text(preview)


def test_the_token_is_stored_hashed(client):
    user = make_user()
    _link, token = reset_link(client, user)
    records = list(db.session.scalars(select(PasswordResetToken)))
    assert len(records) == 1
    assert records[0].token_hash == hashlib.sha256(token.encode()).hexdigest()
    stored = [str(value) for value in db.session.execute(select(PasswordResetToken)).one()]
    assert not any(token in value for value in stored)


def test_a_link_lasts_one_hour(client):
    user = make_user()
    _link, token = reset_link(client, user)
    record = token_record(token)
    assert record.expires_at - record.created_at == timedelta(hours=1)

    record.created_at = utcnow() - timedelta(minutes=59)
    record.expires_at = record.created_at + timedelta(hours=1)
    db.session.flush()
    assert client.get(f"/reset-password/{token}").status_code == 200

    record.created_at = utcnow() - timedelta(hours=1, seconds=1)
    record.expires_at = record.created_at + timedelta(hours=1)
    db.session.flush()
    expired = client.get(f"/reset-password/{token}")
    assert expired.status_code == 404
    assert 'data-message-key="INVALID_RESET_TOKEN"' in expired.get_data(as_text=True)
    assert reset_page(client, token, NEW_PASSWORD).status_code == 404
    assert client.get(f"/api/auth/reset-password/{token}").status_code == 404


@pytest.mark.parametrize("token", ["unknown-token", "x" * 300, "a.b", "%E2%82"])
def test_an_unknown_token_shows_the_invalid_link_page(client, app, token):
    response = client.get(f"/reset-password/{token}")
    assert response.status_code == 404
    html = response.get_data(as_text=True)
    assert 'data-message-key="INVALID_RESET_TOKEN"' in html
    assert translated(app, "INVALID_RESET_TOKEN") in page_text(response)
    assert 'name="password"' not in html  # no form to fill in
    assert '<meta name="csrf-token"' in html


# --- choosing the new password -----------------------------------------------------------------


def test_a_link_works_once(client, app):
    user = make_user()
    _link, token = reset_link(client, user)
    form = client.get(f"/reset-password/{token}")
    assert form.status_code == 200
    assert 'name="password"' in form.get_data(as_text=True)

    done = reset_page(client, token, NEW_PASSWORD)
    assert done.status_code == 302
    assert done.headers["Location"] == "/login"
    assert translated(app, "PASSWORD_CHANGED") in page_text(client.get("/login"))

    again = client.get(f"/reset-password/{token}")
    assert again.status_code == 404
    assert 'data-message-key="INVALID_RESET_TOKEN"' in again.get_data(as_text=True)
    reused = reset_page(client, token, "Another-pass-3")
    assert reused.status_code == 404
    assert login_status(client, user.email, "Another-pass-3") == 401


def test_after_a_reset_the_new_password_works_and_the_old_one_does_not(client):
    user = make_user()
    _link, token = reset_link(client, user)
    reset_page(client, token, NEW_PASSWORD)
    assert login_status(client, user.email, PASSWORD) == 401
    assert login_status(client, user.email, NEW_PASSWORD) == 302


def test_a_reset_ends_the_users_other_sessions(app, client):
    user = make_user()
    elsewhere = app.test_client()
    sign_in(elsewhere, user)
    assert elsewhere.get("/user").status_code == 200

    _link, token = reset_link(client, user)
    reset_page(client, token, NEW_PASSWORD)

    signed_out = elsewhere.get("/user")
    assert signed_out.status_code == 302
    assert signed_out.headers["Location"].startswith("/login")
    assert elsewhere.get("/api/me").status_code == 401


def test_a_new_link_ends_when_another_link_is_used(client):
    user = make_user()
    _first_link, first = reset_link(client, user)
    _second_link, second = reset_link(client, user)
    assert reset_page(client, second, NEW_PASSWORD).status_code == 302
    assert client.get(f"/reset-password/{first}").status_code == 404


@pytest.mark.parametrize(
    ("password", "verify", "field", "key"),
    [
        ("short", "short", "password", "PASSWORD_PATTERN"),
        ("Shor1!", "Shor1!", "password", "PASSWORD_PATTERN"),  # six characters
        ("alllowercase1", "alllowercase1", "password", "PASSWORD_PATTERN"),
        ("NoDigits!!", "NoDigits!!", "password", "PASSWORD_PATTERN"),
        ("nospecial1", "nospecial1", "password", "PASSWORD_PATTERN"),
        ("ALLUPPER-1", "ALLUPPER-1", "password", "PASSWORD_PATTERN"),
        ("", "Valid-pass-1", "password", "PASSWORD_REQUIRED"),
        ("Valid-pass-1", "", "verify_password", "VERIFY_PASSWORD_REQUIRED"),
        ("Valid-pass-1", "Valid-pass-2", "verify_password", "PASSWORDS_DOESNT_MATCH"),
    ],
)
def test_the_reset_form_refuses_bad_passwords_with_the_specs_key(
    client, app, password, verify, field, key
):
    user = make_user()
    _link, token = reset_link(client, user)
    response = reset_page(client, token, password, verify)
    assert response.status_code == 422
    assert message_key(response, field) == key
    assert translated(app, key) in page_text(response)
    html = response.get_data(as_text=True)
    if password:
        assert f'value="{password}"' in html  # what was typed is kept to correct it
        assert response.headers["Cache-Control"] == "no-store"  # and the page is never stored
    assert 'name="password"' in html  # the form is still there to correct
    assert client.get(f"/reset-password/{token}").status_code == 200  # the link still works
    assert login_status(client, user.email, PASSWORD) == 302  # and the password is unchanged


def test_the_shortest_valid_password_is_accepted(client):
    user = make_user()
    _link, token = reset_link(client, user)
    assert reset_page(client, token, "Short1!").status_code == 302


def test_the_reset_form_needs_its_csrf_token(client):
    user = make_user()
    _link, token = reset_link(client, user)
    data = {"password": NEW_PASSWORD, "verify_password": NEW_PASSWORD}
    response = client.post(f"/reset-password/{token}", data=data)
    assert response.status_code == 422
    assert client.get(f"/reset-password/{token}").status_code == 200


@pytest.mark.parametrize(
    ("email", "key"),
    [("", "FIELD_REQUIRED"), ("not-an-address", "INVALID_EMAIL"), ("a" * 250 + "@b.test", None)],
)
def test_the_forgot_form_refuses_bad_addresses_and_keeps_them(client, email, key):
    response = forgot_page(client, email)
    assert response.status_code == 422
    if key:
        assert message_key(response, "email") == key
    else:
        assert message_key(response, "email") in ("FIELD_TOO_LONG", "INVALID_EMAIL")
    if email:
        assert f'value="{email}"' in response.get_data(as_text=True)


# --- the JSON calls ----------------------------------------------------------------------------


def test_reset_token_call_tells_whether_a_link_is_valid(client, app):
    user = make_user()
    _link, token = reset_link(client, user)
    assert client.get(f"/api/auth/reset-password/{token}").get_json() == {"valid": True}
    unknown = client.get("/api/auth/reset-password/unknown-token")
    assert unknown.status_code == 404
    assert unknown.get_json() == {"message": translated(app, "INVALID_RESET_TOKEN")}


def change_password(client, token, body):
    headers = {"X-CSRFToken": csrf_token(client)}
    return client.post(f"/api/auth/reset-password/{token}", json=body, headers=headers)


def test_change_password_call_sets_the_password_once(client, app):
    user = make_user()
    _link, token = reset_link(client, user)
    body = {"password": NEW_PASSWORD, "verifyPassword": NEW_PASSWORD}
    done = change_password(client, token, body)
    assert done.status_code == 200
    assert done.get_json() == {"message": translated(app, "PASSWORD_CHANGED")}
    again = change_password(client, token, body)
    assert again.status_code == 404
    assert again.get_json()["message"] == translated(app, "INVALID_RESET_TOKEN")
    db.session.expire_all()
    assert login_status(client, user.email, NEW_PASSWORD) == 302


@pytest.mark.parametrize(
    ("body", "keys"),
    [
        ({"password": "short", "verifyPassword": "short"}, {"password": "PASSWORD_PATTERN"}),
        ({"password": "nospecial1", "verifyPassword": "x"}, {"password": "PASSWORD_PATTERN"}),
        ({"password": "", "verifyPassword": "Valid-pass-1"}, {"password": "PASSWORD_REQUIRED"}),
        ({"verifyPassword": "Valid-pass-1"}, {"password": "PASSWORD_REQUIRED"}),
        (
            {"password": "Valid-pass-1", "verifyPassword": ""},
            {"verifyPassword": "VERIFY_PASSWORD_REQUIRED"},
        ),
        ({"password": "Valid-pass-1"}, {"verifyPassword": "VERIFY_PASSWORD_REQUIRED"}),
        (
            {"password": "Valid-pass-1", "verifyPassword": "Valid-pass-2"},
            {"verifyPassword": "PASSWORDS_DOESNT_MATCH"},
        ),
        ({"password": 12345678, "verifyPassword": 12345678}, None),
        ({"password": ["Valid-pass-1"], "verifyPassword": None}, None),
        ({"password": "Valid-pass-1" * 20, "verifyPassword": "Valid-pass-1" * 20}, None),
    ],
)
def test_change_password_call_answers_422_with_a_key_per_field(client, app, body, keys):
    user = make_user()
    _link, token = reset_link(client, user)
    response = change_password(client, token, body)
    assert response.status_code == 422
    data = response.get_json()
    if keys is not None:
        assert data["keys"] == keys
        field, key = next(iter(keys.items()))
        assert data["errors"][field] == translated(app, key)
        assert data["message"] == translated(app, key)
    else:
        assert set(data["keys"]) <= {"password", "verifyPassword"}
        assert data["keys"]
    assert client.get(f"/api/auth/reset-password/{token}").status_code == 200


def test_change_password_call_needs_the_csrf_header(client):
    user = make_user()
    _link, token = reset_link(client, user)
    body = {"password": NEW_PASSWORD, "verifyPassword": NEW_PASSWORD}
    response = client.post(f"/api/auth/reset-password/{token}", json=body)
    assert response.status_code == 400
    assert "message" in response.get_json()
    assert client.get(f"/api/auth/reset-password/{token}").status_code == 200


# --- floods ------------------------------------------------------------------------------------


def test_a_forgot_password_flood_is_refused_with_retry_after(client, app):
    free = app.config["FORGOT_THROTTLE"]["address"]["free"]
    statuses = [forgot_api(client, f"n{i}@example.test").status_code for i in range(free)]
    assert statuses == [200] * free
    refused = forgot_api(client, "last@example.test")
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) >= 1
    assert refused.get_json()["message"] == translated(
        app, "TOO_MANY_ATTEMPTS", seconds=int(refused.headers["Retry-After"])
    )
    page = forgot_page(client, "last@example.test")
    assert page.status_code == 429
    assert int(page.headers["Retry-After"]) >= 1
    assert 'value="last@example.test"' in page.get_data(as_text=True)


def test_a_flood_sends_no_more_mail(client, app):
    user = make_user()
    for i in range(app.config["FORGOT_THROTTLE"]["address"]["free"]):
        forgot_api(client, f"n{i}@example.test")
    assert forgot_api(client, user.email).status_code == 429
    assert mails_to(user.email) == []
