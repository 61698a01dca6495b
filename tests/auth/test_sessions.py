"""Issue 18, defect 2: logging out ends the session on the server, copied cookies included, and
"Sign out everywhere" in My settings ends every session of the user."""

from tests.conftest import csrf_token
from tests.factories import PASSWORD, make_user


def _login(client, user) -> None:
    token = csrf_token(client)
    answer = client.post(
        "/login", data={"email": user.email, "password": PASSWORD, "csrf_token": token}
    )
    assert answer.status_code == 302


def _copy_cookie(app, client):
    """A second browser holding a copy of the client's session cookie."""
    copy = app.test_client()
    copy.set_cookie("dc_session", client.get_cookie("dc_session").value)
    return copy


def test_a_cookie_copied_before_logout_is_signed_out_after_it(app, client):
    user = make_user()
    _login(client, user)
    copy = _copy_cookie(app, client)
    assert copy.get("/api/me").status_code == 200
    token = csrf_token(client, "/error")
    assert client.post("/logout", data={"csrf_token": token}).status_code == 302
    assert client.get("/api/me").status_code == 401
    assert copy.get("/api/me").status_code == 401


def test_sign_out_everywhere_ends_every_session_of_the_user(app, client):
    user, other = make_user(), make_user()
    _login(client, user)
    phone = app.test_client()
    _login(phone, user)
    stranger = app.test_client()
    _login(stranger, other)
    settings = client.get("/user?lang=en-GB").get_data(as_text=True)
    assert "Sign out everywhere" in settings and 'action="/logout/everywhere"' in settings
    token = csrf_token(client, "/error")
    answer = client.post("/logout/everywhere", data={"csrf_token": token})
    assert answer.status_code == 302 and answer.headers["Location"] == "/login"
    assert client.get("/api/me").status_code == 401
    assert phone.get("/api/me").status_code == 401
    # Someone else's session is not touched.
    assert stranger.get("/api/me").status_code == 200


def test_sign_out_everywhere_needs_the_csrf_token(app, client):
    user = make_user()
    _login(client, user)
    assert client.post("/logout/everywhere").status_code in (400, 403)
    assert client.get("/api/me").status_code == 200


def test_a_new_sign_in_after_logout_works(app, client):
    user = make_user()
    _login(client, user)
    client.post("/logout", data={"csrf_token": csrf_token(client, "/error")})
    _login(client, user)
    assert client.get("/api/me").status_code == 200
