"""Error answers: not-found, the error page, and 500s with a request id and no traceback."""

import logging
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from app.core.pages import public_page
from app.extensions import db
from tests.conftest import csrf_token, make_app
from tests.factories import make_user
from tests.helpers import page_text, sign_in, translated

SECRET = "secret-detail-from-the-database"


@pytest.fixture(scope="module")
def failing_app(tmp_path_factory):
    """An app of its own with views that raise (the shared app cannot take new routes)."""
    app = make_app(f"sqlite:///{tmp_path_factory.mktemp('failing') / 'test.db'}")

    @public_page
    def explode():
        raise RuntimeError(f"SELECT * FROM user -- {SECRET}")  # noqa: S608

    app.add_url_rule("/explode", "explode", explode)
    app.add_url_rule("/api/explode", "api_explode", explode, methods=["GET", "POST"])
    yield app
    with app.app_context():
        for engine in db.engines.values():
            engine.dispose()


# --- not found ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/no/such/page", "/begcare-nope", "/xyz?a=1"])
def test_an_unknown_path_sends_a_signed_out_user_to_login_first(client, path):
    response = client.get(path)
    assert response.status_code == 302
    location = urlsplit(response.headers["Location"])
    assert location.path == "/login"
    assert parse_qs(location.query)["next"] == [path]


def test_after_signing_in_the_unknown_path_shows_not_found_inside_the_shell(client, app):
    user = make_user(firstname="Sara", lastname="Lindqvist")
    sign_in(client, user)
    response = client.get("/no/such/page")
    assert response.status_code == 404
    text = page_text(response)
    assert translated(app, "The page or item could not be found.") in text
    assert "Sara Lindqvist" in text  # the shell's user menu is there
    assert 'class="shell-main"' in response.get_data(as_text=True)


def test_not_found_route_needs_login(client):
    response = client.get("/not-found")
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login")


def test_an_unknown_call_answers_json_404(client):
    user = make_user()
    sign_in(client, user)
    response = client.get("/api/no/such/call")
    assert response.status_code == 404
    assert response.is_json
    assert response.get_json()["message"]


def test_an_unknown_call_answers_signed_out_callers_with_json(client):
    response = client.get("/api/no/such/call")
    assert response.status_code in (401, 404)
    assert response.is_json
    assert response.get_json()["message"]


# --- the error page ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["/error/NOT_FOUND", "/error?message=NOT_FOUND", "/error?message=SESSION_EXPIRED"],
)
def test_the_error_page_translates_its_message_under_error(client, app, path):
    key = "ERROR." + re.split(r"[/=]", path)[-1]
    response = client.get(path)
    assert response.status_code == 200
    text = translated(app, key)
    assert text != key
    assert text in page_text(response)
    assert 'href="/"' in response.get_data(as_text=True)  # a way back


def test_the_error_page_is_public_and_in_the_browsers_language(client):
    response = client.get("/error/FORBIDDEN", headers={"Accept-Language": "nb-NO"})
    assert response.status_code == 200
    assert '<html lang="nb-NO"' in response.get_data(as_text=True)


def test_the_error_page_escapes_what_it_is_given(client):
    response = client.get("/error?message=<script>alert(1)</script>")
    html = response.get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html
    assert "ERROR.&lt;script&gt;" in html


def test_the_error_page_without_a_message_shows_a_title_only(client, app):
    response = client.get("/error")
    assert response.status_code == 200
    assert translated(app, "Something went wrong") in page_text(response)
    assert "ERROR." not in page_text(response)


# --- 500 ---------------------------------------------------------------------------------------


def test_a_failing_page_answers_500_with_the_request_id_and_no_traceback(failing_app, caplog):
    client = failing_app.test_client()
    with caplog.at_level(logging.ERROR, logger="app.errors"):
        response = client.get("/explode")
    assert response.status_code == 500
    request_id = response.headers["X-Request-Id"]
    assert re.fullmatch(r"[0-9a-f]{12}", request_id)
    html = response.get_data(as_text=True)
    assert request_id in html
    for leak in ("Traceback", "RuntimeError", "SELECT", SECRET, 'File "'):
        assert leak not in html
    assert '<meta name="csrf-token"' in html
    assert response.headers["X-Cc-Version"]
    logged = [r for r in caplog.records if r.name == "app.errors"]
    assert logged, "the 500 was not logged"
    assert request_id in logged[-1].getMessage()
    assert logged[-1].exc_info is not None


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_failing_call_answers_json_500_with_the_request_id(failing_app, method):
    client = failing_app.test_client()
    headers = {"X-CSRFToken": csrf_token(client)}
    response = client.open("/api/explode", method=method, json={}, headers=headers)
    assert response.status_code == 500
    data = response.get_json()
    assert data["requestId"] == response.headers["X-Request-Id"]
    assert data["message"]
    body = response.get_data(as_text=True)
    assert SECRET not in body and "Traceback" not in body
    assert response.headers["X-Cc-Language"] == "en-GB"


def test_every_request_gets_its_own_request_id(client):
    first = client.get("/login").headers["X-Request-Id"]
    second = client.get("/login").headers["X-Request-Id"]
    assert first and second and first != second


def test_a_full_disk_is_recognised_on_postgresql_and_sqlite():
    import sqlite3

    from sqlalchemy.exc import OperationalError

    from app.core.errors import storage_full

    class DiskFull(Exception):  # psycopg's errors carry the SQLSTATE
        sqlstate = "53100"

    assert storage_full(OperationalError("INSERT", {}, DiskFull("could not extend file")))
    assert storage_full(
        OperationalError("INSERT", {}, sqlite3.OperationalError("database or disk is full"))
    )
    assert storage_full(OSError(28, "No space left on device"))
    assert not storage_full(
        OperationalError("SELECT", {}, sqlite3.OperationalError("no such table"))
    )
