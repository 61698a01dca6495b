"""The menus as a table: for each demo user, exactly the entries shown (spec 01 section 6)."""

import re

import pytest

from app.preparation.states import STATES

VEHICLE_SECTIONS = ("dashboard", *(f"items.{s.segment}" for s in STATES), "overview")


def vehicle(module: str, *extra: str) -> set[str]:
    """A vehicle module with its always-shown sections and the given extra ones."""
    return {module} | {f"{module}.{s}" for s in (*VEHICLE_SECTIONS, *extra)}


def market(*sections: str) -> set[str]:
    return {"market", "market.dashboard", "market.adverts"} | {f"market.{s}" for s in sections}


# The demo companies have configuration enable_my_events on (app/account/demo.py).
MOBILE = {"custom-list.manage", "my-events", "user", "logout"}
PURCHASE_ANALYSIS = {
    "purchase-analysis",
    "purchase-analysis.list",
    "purchase-analysis.approval-requests",
    "purchase-analysis.create",
}
SELLER_MARKET = ("vehicle-requests", "my-adverts", "my-assigned", "my-sold", "advert-add")

MAIN_MENU = {
    "seller": {"my-dashboard", "my-lists", "my-lists.*", "quick-test"}
    | vehicle("begcare", "statistics", "add")
    | vehicle("newcare", "statistics", "add")
    | PURCHASE_ANALYSIS
    | {"purchase-analysis.statistics"}
    | market(*SELLER_MARKET, "statistics")
    | {"custom-list.*", "bookings"}
    | MOBILE,
    "admin": {"my-dashboard", "my-lists", "quick-test", "admin", "bookings"}
    | vehicle("begcare", "admin", "recon-approvals")
    | vehicle("newcare", "admin", "recon-approvals")
    | PURCHASE_ANALYSIS
    | market(*SELLER_MARKET, "statistics", "settings")
    | MOBILE,
    "buyer": {"my-dashboard", "my-lists"}
    | market(
        "my-allocations",
        "my-deals",
        "watchlist",
        "saved-searches",
        "vehicle-requests",
        "vehicle-request-add",
    )
    | MOBILE,
    "station": {"my-dashboard", "my-lists", "station", "bookings"} | vehicle("begcare") | MOBILE,
    "divadmin": {"my-dashboard", "my-lists", "admin", "bookings"}
    | vehicle("begcare", "admin")
    | vehicle("newcare", "admin")
    | MOBILE,
    "global": vehicle("begcare") | vehicle("newcare") | {"my-events", "user", "logout"},
}

USER_MENU = {
    "seller": {"custom-list.manage", "custom-list.*", "my-events", "user"},
    "admin": {"custom-list.manage", "my-events", "user"},
    "buyer": {"custom-list.manage", "my-events", "user"},
    "station": {"profile", "custom-list.manage", "my-events", "user"},
    "divadmin": {"custom-list.manage", "my-events", "user", "admin"},
    "global": {"my-events", "user"},
}
# The ranking's leaderboard (/ranking) is open to every user working in an instance.
for _entries in USER_MENU.values():
    _entries.add("ranking")


def keys(html: str, container: str) -> set[str]:
    """The data-menu-key values inside the given landmark of a page, ids folded to '*'."""
    part = html.split(container, 1)[1].split("</nav>" if "nav" in container else "</details>", 1)[0]
    found = re.findall(r'data-menu-key="([^"]+)"', part)
    return {re.sub(r"\.(\d+|[0-9a-f-]{36})$", ".*", key) for key in found}


@pytest.mark.parametrize("name", sorted(MAIN_MENU))
def test_main_menu_shows_exactly_the_entries_of_the_users_rights(as_demo, name):
    client, _ = as_demo(name)
    html = client.get("/user").get_data(as_text=True)
    shown = {k for k in keys(html, 'id="shell-nav"') if not k.startswith("admin.")}
    assert shown == MAIN_MENU[name]


@pytest.mark.parametrize("name", sorted(USER_MENU))
def test_user_menu_shows_exactly_the_entries_of_the_users_rights(as_demo, name):
    client, _ = as_demo(name)
    html = client.get("/user").get_data(as_text=True)
    assert keys(html, 'class="user-menu"') == USER_MENU[name]


@pytest.mark.parametrize("name", sorted(MAIN_MENU))
def test_every_menu_entry_leads_to_a_page_that_answers_200(as_demo, name):
    client, _ = as_demo(name)
    html = client.get("/user").get_data(as_text=True)
    nav = html.split('id="shell-nav"', 1)[1].split("</nav>", 1)[0]
    links = set(re.findall(r'<a href="(/[^"]*)"', nav))
    links |= set(
        re.findall(
            r'<a href="(/[^"]*)"', html.split('class="user-menu"', 1)[1].split("</details>", 1)[0]
        )
    )
    assert links
    for link in sorted(links):
        response = client.get(link.replace("&amp;", "&"), follow_redirects=True)
        assert response.status_code == 200, link


def test_admin_area_replaces_the_menu_with_its_children_and_a_back_action(as_demo):
    client, _ = as_demo("admin")
    html = client.get("/admin/general/configuration").get_data(as_text=True)
    nav = html.split('id="shell-nav"', 1)[1].split("</nav>", 1)[0]
    shown = set(re.findall(r'data-menu-key="([^"]+)"', nav))
    assert "admin.general.configuration" in shown
    assert "begcare" not in shown and "market" not in shown
    assert 'class="nav-back"' in nav
    assert 'aria-current="page"' in nav


def test_division_admin_sees_only_the_admin_screens_of_their_rights(as_demo):
    client, _ = as_demo("divadmin")
    assert client.get("/admin/begcare/states").status_code == 200
    assert client.get("/admin/general/configuration").status_code == 403
    assert client.get("/admin/global/instances").status_code == 403


def test_users_without_admin_rights_are_kept_out_of_the_admin_area(as_demo):
    client, _ = as_demo("seller")
    assert client.get("/admin").status_code == 403
    assert client.get("/admin/begcare/states").status_code == 403


def test_hide_menu_items_role_hides_the_menu(as_demo):
    from app.extensions import db
    from tests.shell.conftest import demo_user

    user = demo_user("seller@demo.test")
    user.roles = [*user.roles, "ROLE_HIDE_MENU_ITEMS"]
    db.session.flush()
    client, _ = as_demo("seller")
    html = client.get("/user").get_data(as_text=True)
    nav = html.split('id="shell-nav"', 1)[1].split("</nav>", 1)[0]
    assert "data-menu-key" not in nav
