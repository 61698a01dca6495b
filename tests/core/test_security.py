"""Security headers, cookies over HTTP and HTTPS, and the CSRF token on every page."""

import re

import pytest
from sqlalchemy import select

from app.extensions import db
from app.mail.models import EmailMessage
from tests.conftest import csrf_token
from tests.factories import PASSWORD, make_user

HTTPS = "https://localhost"


def csp(response) -> dict[str, list[str]]:
    policy = response.headers["Content-Security-Policy"]
    directives = {}
    for part in policy.split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


@pytest.mark.parametrize("path", ["/login", "/error", "/api/me", "/assets/config.json"])
def test_the_content_security_policy_forbids_inline_scripts(client, path):
    policy = csp(client.get(path))
    assert policy["script-src"][0] == "'self'"
    assert "'unsafe-inline'" not in policy["script-src"]
    assert "'unsafe-eval'" not in policy["script-src"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert "'unsafe-inline'" not in policy.get("default-src", [])


def test_pages_carry_no_inline_script(client):
    for path in ("/login", "/login?forgot=1", "/error/NOT_FOUND", "/reset-password/x"):
        html = client.get(path).get_data(as_text=True)
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert "src=" in tag, f"{path} has an inline script: {tag}"
        assert not re.search(r"\son[a-z]+=", html), f"{path} has an inline event handler"


@pytest.mark.parametrize("path", ["/login", "/api/me", "/no/such/page"])
def test_every_answer_carries_the_protective_headers(client, path):
    response = client.get(path)
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] in ("same-origin", "strict-origin-when-cross-origin")
    assert response.headers["X-Frame-Options"] == "DENY"


def set_cookie(response, name: str) -> str:
    headers = [h for h in response.headers.getlist("Set-Cookie") if h.startswith(f"{name}=")]
    assert headers, f"no {name} cookie was set"
    return headers[-1]


def test_the_session_cookie_is_httponly_and_lax_over_http(client, app):
    cookie = set_cookie(client.get("/login"), app.config["SESSION_COOKIE_NAME"])
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert "Secure" not in cookie


def test_over_https_the_session_cookie_is_secure_and_hsts_is_sent(client, app):
    response = client.get("/login", base_url=HTTPS)
    cookie = set_cookie(response, app.config["SESSION_COOKIE_NAME"])
    assert "Secure" in cookie
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    hsts = response.headers["Strict-Transport-Security"]
    assert int(re.search(r"max-age=(\d+)", hsts).group(1)) >= 180 * 24 * 3600


def test_signing_in_over_https_sets_a_secure_session(client, app):
    user = make_user()
    token = csrf_token(client, "/login")
    client.get("/login", base_url=HTTPS)
    response = client.post(
        "/login",
        data={"email": user.email, "password": PASSWORD, "csrf_token": token},
        base_url=HTTPS,
    )
    assert response.status_code == 302
    cookie = set_cookie(response, app.config["SESSION_COOKIE_NAME"])
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


@pytest.mark.parametrize("path", ["/login", "/api/me", "/error"])
def test_no_hsts_over_plain_http(client, path):
    assert "Strict-Transport-Security" not in client.get(path).headers


def test_every_html_page_carries_the_csrf_meta(client):
    user = make_user()
    client.post(
        "/api/auth/forgot-password",
        json={"email": user.email},
        headers={"X-CSRFToken": csrf_token(client)},
    )
    mail = db.session.scalars(select(EmailMessage).where(EmailMessage.to_address == user.email))
    pages = [
        "/login",
        "/login?forgot=1",
        "/reset-password/unknown",
        "/error",
        "/error/NOT_FOUND",
        f"/email-preview/{mail.one().public_id}",
        "/email-preview/unknown",
    ]
    for path in pages:
        response = client.get(path)
        assert response.mimetype == "text/html", path
        assert re.search(r'<meta name="csrf-token" content="[^"]+">', response.get_data(True)), path


def test_the_csrf_meta_token_is_accepted_by_a_state_changing_call(client):
    token = csrf_token(client, "/error")
    response = client.post(
        "/api/auth/forgot-password",
        json={"email": "someone@example.test"},
        headers={"X-CSRFToken": token},
    )
    assert response.status_code == 200
    refused = client.post(
        "/api/auth/forgot-password",
        json={"email": "someone@example.test"},
        headers={"X-CSRFToken": "forged"},
    )
    assert refused.status_code == 400


# --- NUL characters: no database can compare them, no one types them -----------------------------


@pytest.mark.parametrize(
    "path",
    ["/email-preview/%00", "/reset-password/a%00b", "/error/%00", "/api/auth/reset-password/%00"],
)
def test_a_nul_in_the_path_names_nothing(client, path):
    assert client.get(path).status_code == 404


def test_a_nul_in_a_form_or_query_is_refused(client):
    token = csrf_token(client)
    form = client.post(
        "/login", data={"email": "a\x00@b.test", "password": "x", "csrf_token": token}
    )
    assert form.status_code == 400
    assert '<meta name="csrf-token"' in form.get_data(as_text=True)
    assert client.get("/login?next=/%00").status_code == 400
    forgot = client.post(
        "/login/forgot-password", data={"email": "a\x00@b.test", "csrf_token": token}
    )
    assert forgot.status_code == 400


def test_a_form_part_without_a_name_is_refused_not_a_server_error(client):
    # Found by schemathesis: a multipart part without a name was read as a None key, which the
    # NUL check and the CSRF check both failed on (500).
    body = (
        "--b\r\nContent-Disposition: form-data\r\n\r\n{}\r\n"
        '--b\r\nContent-Disposition: form-data; name="group"\r\n\r\n1\r\n--b--\r\n'
    )
    for path in ("/api/preparation-storage-containers/1/images", "/login"):
        answer = client.post(
            path,
            data=body.encode(),
            headers={
                "Content-Type": "multipart/form-data; boundary=b",
                "X-CSRFToken": csrf_token(client),
            },
        )
        assert answer.status_code == 400
