"""Sign-in page and call: success, wrong password, bad input, CSRF, throttling."""

import re

import pytest

from app.auth.models import AuthThrottle
from app.auth.services import login_keys
from app.core.audit import AuditLog
from app.extensions import db
from tests.conftest import csrf_token
from tests.factories import PASSWORD, make_user


def login(client, email, password, token=None, **extra):
    token = token or csrf_token(client)
    return client.post(
        "/login", data={"email": email, "password": password, "csrf_token": token, **extra}
    )


def test_login_page_has_labelled_email_and_password_fields(client):
    html = client.get("/login").get_data(as_text=True)
    assert re.search(r'<label for="email">', html)
    assert 'type="email"' in html and 'type="password"' in html
    assert '<meta name="csrf-token"' in html
    assert "<main" in html


def test_sign_in_goes_to_the_root_and_shows_the_users_name(client):
    user = make_user(firstname="Sara", lastname="Lindqvist")
    response = login(client, user.email, PASSWORD)
    assert response.status_code == 302
    assert response.headers["Location"] == "/"
    page = client.get("/", follow_redirects=True).get_data(as_text=True)
    assert "Sara Lindqvist" in page


def test_email_is_case_insensitive(client):
    user = make_user()
    assert login(client, user.email.upper(), PASSWORD).status_code == 302


def test_wrong_password_keeps_the_email_and_says_so(client):
    user = make_user()
    response = login(client, user.email, "wrong-password-1!")
    assert response.status_code == 401
    html = response.get_data(as_text=True)
    assert f'value="{user.email}"' in html
    assert "E-mail or password is wrong" in html
    assert client.get("/").status_code == 302  # still signed out


def test_unknown_address_answers_like_a_wrong_password(client):
    response = login(client, "nobody@example.test", "whatever-1!")
    assert response.status_code == 401
    assert "E-mail or password is wrong" in response.get_data(as_text=True)


@pytest.mark.parametrize(
    ("email", "password", "field", "key"),
    [
        ("", "x", "email", "FIELD_REQUIRED"),
        ("a@b.test", "", "password", "PASSWORD_REQUIRED"),
        ("a" * 300 + "@b.test", "x", "email", "FIELD_TOO_LONG"),
    ],
)
def test_bad_input_gets_the_fields_message_key(client, email, password, field, key):
    response = login(client, email, password)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert f'id="{field}-error"' in html
    assert f'data-message-key="{key}"' in html
    if email:
        assert f'value="{email}"' in html


def test_missing_csrf_token_is_refused_and_keeps_the_email(client):
    user = make_user()
    response = client.post("/login", data={"email": user.email, "password": PASSWORD})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "Your form has expired" in html
    assert f'value="{user.email}"' in html
    assert client.get("/").status_code == 302


def test_next_is_followed_only_inside_the_site(client):
    user = make_user()
    ok = login(client, user.email, PASSWORD, next="/user")
    assert ok.headers["Location"] == "/user"
    client.post("/logout", data={"csrf_token": csrf_token(client, "/user")})
    evil = login(client, user.email, PASSWORD, next="//evil.test/x")
    assert evil.headers["Location"] == "/"


def test_login_flood_is_slowed_then_refused_with_retry_after(client, app):
    user = make_user()
    token = csrf_token(client)
    free = app.config["LOGIN_THROTTLE"]["pair"]["free"]
    statuses = [login(client, user.email, "wrong-pass-1!", token).status_code for _ in range(free)]
    assert statuses == [401] * free
    refused = login(client, user.email, PASSWORD, token)  # even the right password must wait
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) >= 1
    assert "Too many attempts" in refused.get_data(as_text=True)


def test_lock_after_many_failures_lasts_minutes(client, app):
    user = make_user()
    rule = app.config["LOGIN_THROTTLE"]["pair"]
    row = AuthThrottle(
        key=login_keys(user.email, "127.0.0.1")["pair"],
        failures=rule["lock"],
        first_failure_at=db.func.now(),
        last_failure_at=db.func.now(),
    )
    from app.core.models import utcnow

    row.first_failure_at = row.last_failure_at = utcnow()
    db.session.add(row)
    db.session.flush()
    response = login(client, user.email, PASSWORD)
    assert response.status_code == 429
    assert int(response.headers["Retry-After"]) > 60 * (rule["lock_minutes"] - 1)


def test_too_many_attempts_message_is_in_the_users_language(client, app):
    user = make_user()
    token = csrf_token(client)
    for _ in range(app.config["LOGIN_THROTTLE"]["pair"]["free"] + 1):
        response = client.post(
            "/login",
            data={"email": user.email, "password": "nope-123!", "csrf_token": token},
            headers={"Accept-Language": "de-DE,de;q=0.9"},
        )
    assert response.status_code == 429
    assert "Zu viele Versuche" in response.get_data(as_text=True)


def test_sign_in_and_failures_are_audited(client):
    user = make_user()
    login(client, user.email, "wrong-pass-1!")
    login(client, user.email, PASSWORD)
    actions = [a.action for a in db.session.scalars(db.select(AuditLog).order_by(AuditLog.id))]
    assert actions[-2:] == ["login_failed", "login"]


def test_logout_needs_csrf_and_ends_the_session(client):
    user = make_user()
    login(client, user.email, PASSWORD)
    assert client.post("/logout").status_code == 400
    assert client.get("/user").status_code == 200
    client.post("/logout", data={"csrf_token": csrf_token(client, "/user")})
    assert client.get("/user").status_code == 302


def test_inactive_user_cannot_sign_in(client):
    user = make_user(active=False)
    assert login(client, user.email, PASSWORD).status_code == 401
