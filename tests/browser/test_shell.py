"""The logged-in shell in a real browser (issue 3, spec 01 sections 2, 4, 5 and 9), at 1280 and
375 px: the left menu and its groups, the off-canvas menu on a phone, search, the division
selector, acting as another user, changing company and the new-version banner.

Each test signs in on a fresh browser context. What a test changes is put back: the division
selection by the test itself, the admin's active company and the seller's options by fixtures,
so the tests pass in any order and beside the auth tests on the same live server.
"""

import re

import pytest
from flask_babel import force_locale, gettext
from playwright.sync_api import expect
from sqlalchemy import select

from app.auth.models import User
from app.demo import DEMO_PASSWORD
from app.extensions import db

pytestmark = pytest.mark.browser
BOTH_WIDTHS = pytest.mark.parametrize("viewport", ["1280", "375"], indirect=True)
ITEMS_LIST = "/begcare/items/list"


# --- helpers ---------------------------------------------------------------------------------


def sign_in(page, email: str) -> None:
    page.goto("/login")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).not_to_have_url(re.compile(r"/login"))


def is_phone(page) -> bool:
    return page.viewport_size["width"] < 640


def menu(page):
    """The left menu, also while hidden (off-canvas on a phone, or collapsed)."""
    return page.get_by_role("navigation", name="Main menu", include_hidden=True)


def menu_entry(page, key: str):
    """The link of the menu entry `key` (data-menu-key, e.g. begcare.items.list)."""
    return menu(page).locator(f'[data-menu-key="{key}"] > a')


def menu_count(page, key: str) -> int:
    return int(menu_entry(page, key).locator(".nav-count").text_content())


def nav_open_class(page) -> bool:
    """Whether the frame has the phone menu open, read at once (no waiting)."""
    return page.evaluate("document.querySelector('.app').classList.contains('nav-open')")


def text(live_server, msgid: str) -> str:
    """The English text a user sees for `msgid` (the catalogue may word it differently)."""
    with live_server.app.test_request_context(), force_locale("en_GB"):
        return gettext(msgid)


def find(email: str) -> User:
    stmt = select(User).where(User.email == email).execution_options(all_instances=True)
    return db.session.scalars(stmt).one()


def reveal_top_selector(page) -> None:
    """Five quick clicks on the logo on a wide screen; the user menu's button on a phone."""
    selector = page.locator("[data-top-selector]")
    expect(selector).to_be_hidden()
    if is_phone(page):
        page.locator(".user-menu > summary").click()
        page.get_by_role("button", name="Switch company or user").click()
    else:
        logo = page.locator("[data-logo]")
        for _ in range(5):
            logo.click()
    expect(selector).to_be_visible()


@pytest.fixture
def admin_instance(live_server):
    """The admin's active company is put back even when the test fails half-way."""
    with live_server.app.app_context():
        saved = find("admin@demo.test").active_instance_id
    yield
    with live_server.app.app_context():
        admin = find("admin@demo.test")
        if admin.active_instance_id != saved:
            admin.active_instance_id = saved
            db.session.commit()


@pytest.fixture
def seller_options(live_server):
    """Saving the settings form writes the seller's options; they are put back afterwards."""
    with live_server.app.app_context():
        saved = dict(find("seller@demo.test").options or {})
    yield
    with live_server.app.app_context():
        seller = find("seller@demo.test")
        if dict(seller.options or {}) != saved:
            seller.options = saved
            db.session.commit()


# --- 1. the left menu and its groups ---------------------------------------------------------


def test_the_left_menu_collapses_stays_collapsed_after_a_reload_and_expands(page, snap):
    sign_in(page, "seller@demo.test")
    page.goto(ITEMS_LIST)
    nav = menu(page)
    toggle = page.get_by_role("button", name="Collapse or expand the menu")
    # Expanded by default above 640 px, with the current page's group open.
    expect(nav).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(menu_entry(page, "begcare.items.list")).to_have_attribute("aria-current", "page")

    # A leaf on a wide screen navigates and leaves the menu as it was.
    menu_entry(page, "begcare.items.parked").click()
    expect(page).to_have_url(re.compile(r"/begcare/items/parked$"))
    expect(nav).to_be_visible()

    toggle.click()
    expect(nav).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    page.wait_for_function("document.cookie.split('; ').includes('nav=collapsed')")
    snap(page, "shell-menu-collapsed", widths=("1280",))

    page.reload()  # the server renders the remembered state: no flash of an open menu
    expect(page.locator(".app")).to_have_class(re.compile(r"\bnav-collapsed\b"))
    expect(nav).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")

    toggle.click()
    expect(nav).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    page.wait_for_function("!document.cookie.split('; ').some((c) => c.startsWith('nav='))")
    page.reload()
    expect(nav).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")


@BOTH_WIDTHS
def test_menu_groups_open_and_close_with_their_button(page):
    sign_in(page, "seller@demo.test")
    page.goto(ITEMS_LIST)
    if is_phone(page):
        page.get_by_role("link", name="Menu").click()
        expect(menu(page)).to_be_visible()
    # The group of the current page is open, the others closed.
    begcare = menu(page).locator('[data-menu-key="begcare"] > .nav-expand')
    newcare = menu(page).locator('[data-menu-key="newcare"] > .nav-expand')
    expect(begcare).to_have_attribute("aria-expanded", "true")
    expect(menu_entry(page, "begcare.items.list")).to_be_visible()
    expect(newcare).to_have_attribute("aria-expanded", "false")
    expect(menu_entry(page, "newcare.items.list")).to_be_hidden()

    newcare.click()
    expect(newcare).to_have_attribute("aria-expanded", "true")
    expect(menu_entry(page, "newcare.items.list")).to_be_visible()
    newcare.click()
    expect(newcare).to_have_attribute("aria-expanded", "false")
    expect(menu_entry(page, "newcare.items.list")).to_be_hidden()

    begcare.click()
    expect(begcare).to_have_attribute("aria-expanded", "false")
    expect(menu_entry(page, "begcare.items.list")).to_be_hidden()
    begcare.click()
    expect(begcare).to_have_attribute("aria-expanded", "true")
    expect(menu_entry(page, "begcare.items.list")).to_be_visible()


# --- 2. the off-canvas menu on a phone -------------------------------------------------------


@pytest.mark.parametrize("viewport", ["375"], indirect=True)
def test_on_a_phone_a_leaf_closes_the_menu_at_once_and_navigates(page, snap):
    sign_in(page, "seller@demo.test")
    page.goto(ITEMS_LIST)
    nav = menu(page)
    toggle = page.get_by_role("link", name="Menu")
    expect(page.get_by_role("button", name="Collapse or expand the menu")).to_be_hidden()
    expect(nav).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")

    toggle.click()
    expect(nav).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    width = nav.bounding_box()["width"]
    assert width > 0.9 * 375, f"the phone menu is {width}px wide: the rule would not apply"
    snap(page, "shell-phone-menu-open", widths=("375",))

    # The menu closes on the click itself, before the next page arrives: hold the navigation
    # back once (a listener that runs after the shell's own) to see the page as it is then.
    page.evaluate(
        """() => window.addEventListener('click', (event) => {
            if (event.target.closest('[data-nav-leaf]')) event.preventDefault();
        }, { once: true })"""
    )
    menu_entry(page, "begcare.items.parked").click()
    assert not nav_open_class(page), "the menu should close as the leaf is chosen"
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(nav).to_be_hidden()
    expect(page).to_have_url(re.compile(re.escape(ITEMS_LIST) + "$"))

    # And for real: the leaf leads to its page, where the menu is closed.
    toggle.click()
    expect(nav).to_be_visible()
    menu_entry(page, "begcare.items.parked").click()
    expect(page).to_have_url(re.compile(r"/begcare/items/parked$"))
    expect(nav).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    # On a phone the menu state is not remembered for the wide layout.
    assert "nav" not in {c["name"] for c in page.context.cookies()}


# --- 3. search -------------------------------------------------------------------------------


@BOTH_WIDTHS
def test_search_trims_the_phrase_and_ignores_an_empty_one(page, snap):
    sign_in(page, "seller@demo.test")
    page.goto(ITEMS_LIST)
    searches = []
    page.on("request", lambda r: searches.append(r.url) if "/search?" in r.url else None)
    field = page.get_by_role("searchbox", name="Search vehicles")
    button = page.get_by_role("button", name="Search", exact=True)

    if is_phone(page):
        # Behind a search button: the first press opens the field, it does not search.
        expect(field).to_be_hidden()
        expect(button).to_have_attribute("aria-expanded", "false")
        button.click()
        expect(field).to_be_visible()
        expect(field).to_be_focused()
        expect(button).to_have_attribute("aria-expanded", "true")
        snap(page, "shell-phone-search-open", widths=("375",))
    else:
        expect(field).to_be_visible()
        assert button.get_attribute("aria-expanded") is None  # a plain submit button

    field.fill("   ")
    button.click()
    expect(field).to_have_value("")
    expect(field).to_be_focused()
    expect(page).to_have_url(re.compile(re.escape(ITEMS_LIST) + "$"))

    field.fill("  Volvo  ")
    field.press("Enter")
    expect(page).to_have_url(re.compile(r"/begcare/overview\?division=all&searchphrase=Volvo$"))
    assert len(searches) == 1, f"only the non-empty phrase is searched for: {searches}"
    if not is_phone(page):
        expect(field).to_have_value("Volvo")


# --- 4. the division selector ----------------------------------------------------------------


@BOTH_WIDTHS
def test_choosing_a_division_reloads_with_its_counts_and_remembers_it(page):
    sign_in(page, "seller@demo.test")
    page.goto(ITEMS_LIST)
    select = page.get_by_label("Divisions", exact=True)
    expect(select).to_have_value("all")
    expect(page.locator("form[data-division-selector] button")).to_be_hidden()  # no JS-only Show
    all_count = menu_count(page, "begcare.items.list")

    with page.expect_navigation():
        select.select_option(label="Nordbil Solna")
    expect(page).to_have_url(re.compile(re.escape(ITEMS_LIST) + "$"))
    expect(select).to_have_value(re.compile(r"^division-\d+$"))
    chosen = select.input_value()
    expect(select.locator("option:checked")).to_have_text(re.compile(r"Nordbil Solna"))
    solna_count = menu_count(page, "begcare.items.list")
    assert solna_count < all_count, (solna_count, all_count)
    assert page.evaluate("localStorage.getItem('selectedDivisionDropdownValue')") == chosen

    with page.expect_navigation():
        select.select_option("all")
    expect(select).to_have_value("all")
    assert menu_count(page, "begcare.items.list") == all_count
    assert page.evaluate("localStorage.getItem('selectedDivisionDropdownValue')") == "all"


# --- 5. acting as another user ---------------------------------------------------------------


@BOTH_WIDTHS
def test_the_admin_acts_as_the_seller_and_returns(page, live_server, snap):
    sign_in(page, "admin@demo.test")
    name = page.locator(".user-menu .user-fullname")
    initials = page.locator(".user-menu .user-initials")
    expect(name).to_have_text("Ada Admin")
    expect(initials).to_have_text("AA")

    reveal_top_selector(page)
    user = page.get_by_label("Act as user")
    expect(user.locator("option", has_text="Ada Admin")).to_have_count(0)  # not oneself
    user.select_option(label="Sara Lindqvist (seller@demo.test)")
    page.get_by_role("button", name="Act as", exact=True).click()

    banner = page.locator(".shell-banners .banner-warning")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("You are acting as Sara Lindqvist")
    expect(banner).to_contain_text("Ada Admin")
    expect(name).to_have_text("Sara Lindqvist")
    expect(initials).to_have_text("SL")
    if is_phone(page):
        expect(initials).to_be_visible()  # initials below 640 px
    else:
        expect(name).to_be_visible()
    # No acting further from an acted-as session.
    expect(page.locator("[data-top-selector]")).to_have_count(0)
    snap(page, "shell-acting-as", widths=(str(page.viewport_size["width"]),))

    banner.get_by_role("button", name="Return to my account").click()
    expect(banner).to_have_count(0)
    expect(name).to_have_text("Ada Admin")
    expect(initials).to_have_text("AA")
    back = text(live_server, "You are yourself again.")
    expect(page.get_by_role("status").filter(has_text=back)).to_be_visible()


# --- 6. changing company ---------------------------------------------------------------------


@BOTH_WIDTHS
def test_the_admin_changes_company_and_gets_its_divisions(page, admin_instance):
    sign_in(page, "admin@demo.test")
    divisions = page.get_by_label("Divisions", exact=True)
    expect(divisions.locator("option", has_text="Nordbil Solna")).to_have_count(1)

    reveal_top_selector(page)
    company = page.get_by_label("Company")
    expect(company.locator("option")).to_have_count(2)
    assert sorted(company.locator("option").all_text_contents()) == ["Fjordauto AS", "Nordbil AB"]
    expect(company.locator("option:checked")).to_have_text("Nordbil AB")

    with page.expect_navigation():
        company.select_option(label="Fjordauto AS")
    expect(divisions.locator("option", has_text="Fjordauto Bergen")).to_have_count(1)
    expect(divisions.locator("option", has_text="Nordbil Solna")).to_have_count(0)
    expect(divisions).to_have_value("all")
    # The selector stays open for the tab, showing the new company.
    expect(company.locator("option:checked")).to_have_text("Fjordauto AS")

    with page.expect_navigation():
        company.select_option(label="Nordbil AB")
    expect(divisions.locator("option", has_text="Nordbil Solna")).to_have_count(1)
    expect(divisions.locator("option", has_text="Fjordauto Bergen")).to_have_count(0)
    expect(company.locator("option:checked")).to_have_text("Nordbil AB")


# --- 7. the new-version banner ---------------------------------------------------------------


@BOTH_WIDTHS
def test_a_new_server_version_shows_the_banner_whose_button_reloads(page, seller_options):
    sign_in(page, "seller@demo.test")
    page.goto("/user")
    banner = page.locator("[data-new-version-banner]")
    expect(banner).to_be_hidden()

    # The settings save answers as a newer release would: only its X-Cc-Version differs.
    def newer_version(route):
        response = route.fetch()
        headers = {**response.headers, "x-cc-version": "9.9.9+0123456789ab"}
        route.fulfill(response=response, headers=headers)

    page.route("**/api/me/options", newer_version)
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Your settings have been saved.")).to_be_visible()
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("A new version of")
    page.unroute("**/api/me/options")

    page.evaluate("window.beforeReload = true")
    with page.expect_navigation():
        banner.get_by_role("button", name="Reload").click()
    expect(page).to_have_url(re.compile(r"/user$"))
    assert page.evaluate("window.beforeReload === undefined"), "the page was reloaded"
    expect(banner).to_be_hidden()
