"""The route table of spec 01 section 2: redirects, guards, landing, search, not-found."""

import pytest
from sqlalchemy import select

from app.extensions import db
from app.preparation.models import CustomList
from tests.factories import make_user
from tests.helpers import sign_in
from tests.shell.conftest import demo_user

PUBLIC_PAGES = [
    "/login",
    "/error",
    "/reset-password/unknown-token",
    "/market-invite/some-hash",
    "/market-bid/bid/a/b/c",
    "/market-bid/allocate/a/b/c",
    "/market-bid/change-status/a/b/c",
    "/quick-test/view/0b8a4c1e",
]
LOGGED_IN_PAGES = [
    "/my-dashboard",
    "/my-lists",
    "/purchase-analysis/list",
    "/quick-test",
    "/custom-list",
    "/market/dashboard",
    "/user",
    "/begcare",
    "/begcare/overview",
    "/newcare/items/showroom",
    "/begcare/items/incoming/12/stations-manage",
    "/begcare/items/awaiting/12/stations-utilize",
]


@pytest.mark.parametrize("path", PUBLIC_PAGES)
def test_public_routes_answer_without_sign_in(client, path):
    response = client.get(path)
    assert response.status_code in (200, 404)
    assert response.status_code != 302


@pytest.mark.parametrize(
    "path",
    LOGGED_IN_PAGES
    + ["/file-download/12/report.pdf", "/anything/else", "/pdf-preview/purchase-analysis/1"],
)
def test_logged_in_routes_send_anonymous_users_to_login(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login?next=")


@pytest.mark.parametrize("path", LOGGED_IN_PAGES)
def test_logged_in_routes_answer_a_real_page(as_demo, path):
    client, _ = as_demo("seller")
    # An item's page redirects to the segment and view of the item's real state.
    response = client.get(path, follow_redirects=True)
    assert response.status_code == 200
    assert 'id="main"' in response.get_data(as_text=True)


def test_unknown_action_on_a_bid_link_goes_to_login(client):
    response = client.get("/market-bid/steal/a/b/c")
    assert response.status_code == 302
    assert response.headers["Location"] == "/login"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("/preparation", "/begcare"),
        ("/cc-market", "/market"),
        ("/new-purchase-analysis", "/purchase-analysis"),
        ("/begcare/42", "/begcare/items/incoming/42"),
        ("/newcare/7", "/newcare/items/incoming/7"),
    ],
)
def test_redirects_of_spec_01(as_demo, old, new):
    client, _ = as_demo("seller")
    response = client.get(old)
    assert response.status_code in (301, 302)
    assert response.headers["Location"] == new


def test_unknown_path_signed_in_shows_not_found_in_the_shell(as_demo):
    client, _ = as_demo("seller")
    response = client.get("/no/such/page")
    assert response.status_code == 404
    html = response.get_data(as_text=True)
    assert 'id="shell-nav"' in html and "could not be found" in html


def test_file_download_sends_numeric_ids_to_the_item_file_view(as_demo):
    client, _ = as_demo("seller")
    numeric = client.get("/file-download/12/report.pdf")
    assert numeric.headers["Location"] == "/api/preparation-item-files/12/view"
    other = client.get("/file-download/ab12-cd/photo.jpg")
    assert other.headers["Location"] == "/api/file-objects/ab12-cd/binary"


# --- landing ----------------------------------------------------------------------------------


def test_landing_goes_to_the_first_available_module(as_demo):
    client, _ = as_demo("buyer")
    assert client.get("/").headers["Location"] == "/market"


def test_landing_page_option_wins(as_demo):
    user = demo_user("seller@demo.test")
    user.options = {"landingPage": "/market/dashboard"}
    db.session.flush()
    client, _ = as_demo("seller")
    assert client.get("/").headers["Location"] == "/market/dashboard"


def test_custom_list_landing_of_a_list_not_owned_falls_back_to_the_first_module(as_demo):
    user = demo_user("seller@demo.test")
    user.options = {"landingPage": "/custom-list/99999/list"}
    db.session.flush()
    client, _ = as_demo("seller")
    assert client.get("/").headers["Location"] == "/begcare"


def test_custom_list_landing_of_an_own_list_is_kept(as_demo):
    client, _ = as_demo("seller")
    user = demo_user("seller@demo.test")
    first_list = db.session.scalars(
        select(CustomList).where(CustomList.user_id == user.id).order_by(CustomList.id)
    ).first()
    user.options = {"landingPage": f"/custom-list/{first_list.id}/list"}
    db.session.flush()
    assert client.get("/").headers["Location"] == f"/custom-list/{first_list.id}/list"


def test_a_user_without_modules_stays_on_the_start_page(client):
    user = make_user(modules=[])
    sign_in(client, user)
    response = client.get("/")
    assert response.status_code == 200
    assert "No modules have been given to you yet" in response.get_data(as_text=True)


# --- search -----------------------------------------------------------------------------------


def test_search_goes_to_the_active_modules_overview_with_the_trimmed_phrase(as_demo):
    client, _ = as_demo("seller")
    response = client.get("/search?searchphrase=%20%20Volvo%20XC60%20&next=/market/dashboard")
    assert response.headers["Location"] == "/begcare/overview?division=all&searchphrase=Volvo+XC60"


def test_search_from_inside_newcare_stays_in_newcare(as_demo):
    client, _ = as_demo("seller")
    page = client.get("/newcare/items/list").get_data(as_text=True)
    assert 'role="search"' in page
    # The header form sends the page it was on; its first segment is the active module.
    response = client.get("/search?searchphrase=ID.4&next=/newcare/items/list")
    assert response.headers["Location"] == "/newcare/overview?division=all&searchphrase=ID.4"


def test_empty_search_does_nothing(as_demo):
    client, _ = as_demo("seller")
    response = client.get("/search?searchphrase=%20%20&next=/begcare/items/list")
    assert response.headers["Location"] == "/begcare/items/list"


def test_a_page_behind_a_menu_entry_keeps_the_entrys_rule(as_demo):
    client, _ = as_demo("buyer")  # market buyer, no market admin role, no quick test module
    assert client.get("/market/dashboard").status_code == 200
    assert client.get("/market/settings").status_code == 403
    assert client.get("/market/advert/add").status_code == 403  # sellers only
    assert client.get("/quick-test").status_code == 403
    assert client.get("/market/no-such-page").status_code == 404
