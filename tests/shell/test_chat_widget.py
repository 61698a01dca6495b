"""The support chat widget: loaded once signed in, never for the excluded admin roles."""

import pytest

from app.extensions import db
from tests.conftest import make_app
from tests.helpers import sign_in
from tests.shell.conftest import demo_user

WIDGET = "https://chat.example.test/widget.js"


@pytest.fixture(scope="module")
def chat_app(demo_app):
    return make_app(demo_app.config["SQLALCHEMY_DATABASE_URI"], CHAT_WIDGET_URL=WIDGET)


def test_signed_in_users_get_the_widget_and_the_csp_allows_its_origin(demo_app, chat_app):
    client = chat_app.test_client()
    sign_in(client, demo_user("seller@demo.test"))
    response = client.get("/user")
    assert f'<script src="{WIDGET}" async></script>' in response.get_data(as_text=True)
    assert (
        "script-src 'self' https://chat.example.test" in response.headers["Content-Security-Policy"]
    )


@pytest.mark.parametrize(
    "role", ["ROLE_CHAT_BLOCKED", "ROLE_SUPPORT_ADMIN", "ROLE_DEVELOPER_ADMIN"]
)
def test_excluded_roles_get_no_widget(demo_app, chat_app, role):
    user = demo_user("seller@demo.test")
    user.roles = [*user.roles, role]
    db.session.flush()
    client = chat_app.test_client()
    sign_in(client, user)
    assert WIDGET not in client.get("/user").get_data(as_text=True)


def test_no_widget_on_public_pages_or_without_a_setting(demo_app, chat_app, demo_client):
    assert WIDGET not in chat_app.test_client().get("/login").get_data(as_text=True)
    sign_in(demo_client, demo_user("seller@demo.test"))
    assert '<script src="https://' not in demo_client.get("/user").get_data(as_text=True)
