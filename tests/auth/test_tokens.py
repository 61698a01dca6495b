"""API tokens as a machine caller meets them: `Authorization: Bearer` on the /api calls its
scopes allow, in its own instance, with its service user's rights; shown once, revoked at once,
expired, rate-limited, and never a way around the CSRF check of a browser session."""

from datetime import date, timedelta

import pytest
from sqlalchemy import select

import app.preparation  # noqa: F401  (first: the menu's imports form a cycle otherwise)
from app.auth import privileges as P
from app.auth.tokens import ApiToken, make_token
from app.core import roles as R
from app.core.api import openapi_document
from app.core.models import utcnow
from app.extensions import db
from app.messages.models import SystemMessage
from tests.factories import make_instance, make_user
from tests.helpers import page_text, sign_in

ADMIN = ["ROLE_USER", R.ROLE_ADMIN, *R.ALL_TENANT_ROLES]
NEW = "/admin/core/core-api-users/new"
IN_A_MONTH = (date.today() + timedelta(days=30)).isoformat()


def bearer(secret: str) -> dict:
    return {"Authorization": f"Bearer {secret}"}


def created_secret(response) -> str:
    text = page_text(response)
    return text.split('data-testid="api-token"')[0].rsplit('value="', 1)[1].split('"', 1)[0]


def every_right(instance) -> P.Reach:
    return P.Reach(frozenset(ADMIN), frozenset(), frozenset({"begcare", "market"}), None)


def notice(instance_id: int) -> SystemMessage:
    """A system message to the users of one instance."""
    message = SystemMessage(
        message="Hello", started_at=utcnow() - timedelta(hours=1), audience="instance",
        audience_instance_id=instance_id,
    )  # fmt: skip
    db.session.add(message)
    db.session.flush()
    return message


@pytest.fixture
def admin():
    return make_user(
        make_instance(), roles=ADMIN, modules=["begcare", "market"], all_divisions=True
    )


@pytest.fixture
def api(app):
    """A caller without a browser: no session cookie, ever."""
    return app.test_client(use_cookies=False)


def test_a_token_made_on_the_screen_calls_what_its_scopes_allow_as_its_own_user(client, api, admin):
    csrf = sign_in(client, admin)
    response = client.post(
        NEW,
        data={"csrf_token": csrf, "name": "Website", "scopes": ["account:read"],
              "expires_on": IN_A_MONTH, "roles": ["ROLE_USER"], "modules": ["begcare"]},
    )  # fmt: skip
    assert response.status_code == 200 and "shown only this once" in page_text(response)
    secret = created_secret(response)
    me = api.get("/api/me", headers=bearer(secret))
    assert me.status_code == 200
    assert me.json["firstname"] == "Website" and me.json["loginType"] == "api"
    assert "Set-Cookie" not in me.headers  # a token call starts no session
    token = db.session.scalars(select(ApiToken)).one()
    db.session.refresh(token)
    assert token.last_used_at is not None
    listing = page_text(client.get("/admin/core/core-api-users"))
    assert secret not in listing and token.token_hint in listing and "account:read" in listing
    # The call's scope is the token's only door: another area, or a call no token makes.
    assert api.get("/api/users/detailed-list", headers=bearer(secret)).status_code == 403
    refused = api.post(f"/api/impersonate/{admin.id}", headers=bearer(secret))
    assert (
        refused.status_code == 403 and "cannot be made with an API token" in refused.json["message"]
    )
    # Not on pages: a token is for the JSON API.
    page = api.get("/admin/core/users", headers=bearer(secret))
    assert page.status_code == 302 and "/login" in page.headers["Location"]
    # The token's user is nobody to sign in as, and no person in the users list.
    assert "Website" not in page_text(client.get("/admin/core/users"))


def test_revoked_or_expired_tokens_are_refused_at_once(client, api, admin):
    token, secret = make_token("Feed", admin, admin.active_instance, ["account:read"],
                               every_right(admin.active_instance))  # fmt: skip
    assert api.get("/api/me", headers=bearer(secret)).status_code == 200
    csrf = sign_in(client, admin)
    client.post(f"/admin/core/core-api-users/{token.id}/delete", data={"csrf_token": csrf})
    answer = api.get("/api/me", headers=bearer(secret))
    assert answer.status_code == 401 and "revoked or expired" in answer.json["message"]
    assert "invalid_token" in answer.headers["WWW-Authenticate"]
    other, other_secret = make_token("Old", admin, admin.active_instance, ["account:read"],
                                     every_right(admin.active_instance))  # fmt: skip
    other.expires_at = utcnow() - timedelta(seconds=1)
    db.session.flush()
    assert api.get("/api/me", headers=bearer(other_secret)).status_code == 401
    assert api.get("/api/me", headers=bearer("dc_made-up")).status_code == 401


def test_a_token_writes_without_csrf_but_a_cookie_session_never_skips_it(client, api, admin):
    _token, secret = make_token("Bot", admin, admin.active_instance,
                                ["account:write", "messages:write"],
                                every_right(admin.active_instance))  # fmt: skip
    message = notice(admin.active_instance_id)
    db.session.flush()
    written = api.post(f"/api/system-messages/{message.id}/viewed", headers=bearer(secret))
    assert written.status_code in (200, 204)
    # A browser session with a token beside it: refused, whatever the token.
    sign_in(client, admin)
    both = client.post(f"/api/system-messages/{message.id}/viewed", headers=bearer(secret))
    assert both.status_code == 400 and "not both" in both.json["message"]
    # ... and the session alone still needs its CSRF token.
    assert client.post(f"/api/system-messages/{message.id}/viewed").status_code == 400


def test_a_token_is_rate_limited_on_its_own(app, api, admin, monkeypatch):
    monkeypatch.setitem(app.config, "API_TOKEN_RATE_LIMIT", "3/3600")
    _one, first = make_token("One", admin, admin.active_instance, ["account:read"],
                             every_right(admin.active_instance))  # fmt: skip
    _two, second = make_token("Two", admin, admin.active_instance, ["account:read"],
                              every_right(admin.active_instance))  # fmt: skip
    answers = [api.get("/api/me", headers=bearer(first)).status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    limited = api.get("/api/me", headers=bearer(first))
    assert int(limited.headers["Retry-After"]) > 0
    assert api.get("/api/me", headers=bearer(second)).status_code == 200  # its own count


def test_a_token_reads_only_its_own_instance(client, api, admin):
    message = notice(make_instance("Other AB").id)
    _token, secret = make_token("Bot", admin, admin.active_instance, ["messages:write"],
                                every_right(admin.active_instance))  # fmt: skip
    answer = api.post(f"/api/system-messages/{message.id}/viewed", headers=bearer(secret))
    assert answer.status_code == 404


def test_a_token_is_no_broader_than_its_maker_today(client, api, admin):
    staff = make_user(admin.active_instance, roles=["ROLE_USER", R.tenant_read("API_USER")])
    csrf = sign_in(client, staff)
    beyond = client.post(
        NEW,
        data={"csrf_token": csrf, "name": "Wider", "scopes": ["account:read"],
              "expires_on": IN_A_MONTH, "roles": [R.ROLE_ADMIN]},
    )  # fmt: skip
    assert beyond.status_code in (403, 200) and db.session.scalars(select(ApiToken)).first() is None
    _token, secret = make_token("Bot", admin, admin.active_instance, ["account:read"],
                                every_right(admin.active_instance))  # fmt: skip
    assert api.get("/api/me", headers=bearer(secret)).status_code == 200
    admin.membership_in(admin.active_instance_id).roles = ["ROLE_USER"]  # its maker demoted
    db.session.flush()
    answer = api.get("/api/me", headers=bearer(secret))
    assert answer.status_code == 401 and "more rights than the person" in answer.json["message"]


def test_the_expiry_must_be_within_a_year(client, admin):
    csrf = sign_in(client, admin)
    for day in (date.today(), date.today() + timedelta(days=400)):
        answer = client.post(
            NEW,
            data={"csrf_token": csrf, "name": "Late", "scopes": ["account:read"],
                  "expires_on": day.isoformat()},
        )  # fmt: skip
        assert answer.status_code == 422 or "at most a year" in page_text(answer)
        assert 'value="Late"' in page_text(answer)  # the input is kept
    assert db.session.scalars(select(ApiToken)).first() is None


def test_the_api_document_declares_the_token_and_each_calls_scope(app):
    with app.test_request_context():
        doc = openapi_document()
    assert doc["components"]["securitySchemes"]["token"] == {
        **doc["components"]["securitySchemes"]["token"],
        "type": "http",
        "scheme": "bearer",
    }
    me = doc["paths"]["/api/me"]["get"]
    assert {"token": ["account:read"]} in me["security"] and me["x-token-scope"] == "account:read"
    assert "429" in me["responses"]
    impersonate = doc["paths"]["/api/impersonate/{user_id}"]["post"]
    assert all("token" not in requirement for requirement in impersonate["security"])


def test_a_token_is_edited_within_the_makers_reach_and_keeps_its_secret(client, api, admin):
    token, secret = make_token("Feed", admin, admin.active_instance, ["account:read"],
                               every_right(admin.active_instance))  # fmt: skip
    csrf = sign_in(client, admin)
    form = client.get(f"/admin/core/core-api-users/{token.id}/edit")
    assert form.status_code == 200 and 'value="Feed"' in page_text(form)
    answer = client.post(
        f"/admin/core/core-api-users/{token.id}/edit",
        data={"csrf_token": csrf, "name": "Feed 2", "scopes": ["users:read"],
              "expires_on": IN_A_MONTH, "roles": [*ADMIN, R.ROLE_MANAGER_ADMIN], "modules": ["begcare"],
              "all_divisions": "y"},
    )  # fmt: skip
    assert answer.status_code == 302
    assert api.get("/api/me", headers=bearer(secret)).status_code == 403  # account:read gone
    listed = api.get("/api/users/detailed-list", headers=bearer(secret))
    assert listed.status_code == 200 and admin.email in listed.get_data(as_text=True)
