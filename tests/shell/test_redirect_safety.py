"""Issue 18, defect 6: the landing page goes through the same safe-redirect check as `next`."""

import pytest

from app.extensions import db
from tests.helpers import sign_in
from tests.shell.conftest import demo_user

EVIL = [
    "/\t/evil.example",
    "/\n/evil.example",
    "//evil.example",
    "/\\evil.example",
    "https://evil.example/",
]


@pytest.mark.parametrize("landing", EVIL)
def test_a_landing_page_off_the_site_is_refused(demo_app, demo_client, landing):
    token = sign_in(demo_client, demo_user("seller@demo.test"))
    response = demo_client.patch(
        "/api/me/options", json={"landingPage": landing}, headers={"X-CSRFToken": token}
    )
    assert response.status_code == 422
    assert response.get_json()["keys"] == {"landingPage": "INVALID_VALUE"}
    root = demo_client.get("/")
    assert "evil.example" not in root.headers.get("Location", "")


@pytest.mark.parametrize("landing", EVIL)
def test_a_stored_landing_page_off_the_site_is_not_followed(demo_app, demo_client, landing):
    user = demo_user("seller@demo.test")
    user.options = {**(user.options or {}), "landingPage": landing}
    db.session.flush()
    sign_in(demo_client, user)
    root = demo_client.get("/")
    assert root.status_code == 302
    assert root.headers["Location"] == "/begcare"


def test_a_landing_page_on_the_site_is_followed(demo_app, demo_client):
    token = sign_in(demo_client, demo_user("seller@demo.test"))
    response = demo_client.patch(
        "/api/me/options", json={"landingPage": "/market"}, headers={"X-CSRFToken": token}
    )
    assert response.status_code == 200
    assert demo_client.get("/").headers["Location"] == "/market"
