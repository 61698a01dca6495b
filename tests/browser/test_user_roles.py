"""Issue 38's "done when": at 1280 and 375 px, in Swedish and English, an administrator opens
Users → Add user, starts from the "Station worker" preset, fills in the person and saves; the new
user holds ROLE_STATION_USER and the station's module. No raw role code is visible unless "Show
codes" is on; axe finds no serious violation on the form; screenshots go to test-artifacts/."""

import re
from contextlib import contextmanager

import pytest
from flask_babel import force_locale
from flask_babel import gettext as _
from playwright.sync_api import expect
from sqlalchemy import select

from app.auth.models import User
from app.core import roles as R
from app.core.models import utcnow
from app.extensions import db
from tests.browser.a11y import AXE_JS, AXE_RESULT, AXE_START, DEMO_PASSWORD
from tests.browser.conftest import WIDTHS
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser
CODE = re.compile(r"\b(ROLE|IS)_[A-Z_]+\b")


def sign_in(page, email: str = "admin@demo.test") -> None:
    page.goto("/login")
    page.fill("#email", email)
    page.fill("#password", DEMO_PASSWORD)
    with page.expect_navigation():
        page.click("form button[type=submit]")
    expect(page).not_to_have_url(re.compile(r"/login"))


def texts(app, locale: str) -> dict:
    with app.test_request_context(), force_locale(locale.replace("-", "_")):
        return {
            "add_user": _("Add %(thing)s", thing=_("user")),
            "show_codes": _("Show codes"),
            "station_worker": _("Station worker"),
        }


@contextmanager
def admin_reading(app, locale: str):
    """The demo administrator reads `locale` (their own choice wins over the browser's); put
    back afterwards."""

    def set_language(value):
        with app.app_context():
            admin = db.session.scalars(
                select(User)
                .where(User.email == "admin@demo.test")
                .execution_options(all_instances=True)
            ).one()
            before = (admin.options or {}).get("language")
            admin.options = {**(admin.options or {}), "language": value}
            admin.modified_at = utcnow()  # the menus' caches are keyed by it
            db.session.commit()
            db.session.remove()
            return before

    before = set_language(locale)
    try:
        yield
    finally:
        set_language(before)


def visible_codes(page) -> list[str]:
    return [m.group(0) for m in CODE.finditer(page.inner_text("body"))]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("locale", ["sv-SE", "en-GB"])
def test_an_admin_adds_a_station_worker_from_its_preset(live_server, new_page, locale, width):
    page = new_page(locale=locale, viewport=WIDTHS[width])
    page.context.add_init_script(path=str(AXE_JS))
    words = texts(live_server.app, locale)
    with admin_reading(live_server.app, locale):
        add_a_station_worker(live_server, page, words, locale, width)


def add_a_station_worker(live_server, page, words, locale, width) -> None:
    sign_in(page)
    page.goto("/admin/core/users")
    page.get_by_role("link", name=words["add_user"], exact=True).click()
    expect(page.locator("h1")).to_have_text(words["add_user"])
    expect(
        page.locator('.breadcrumb [aria-current="page"], [aria-current="page"]').last
    ).to_have_text(words["add_user"])
    assert words["add_user"] in page.title()
    assert visible_codes(page) == []

    page.select_option("#preset", "station-worker")
    expect(page.locator(f'input[name="roles"][value="{R.ROLE_STATION_USER}"]')).to_be_checked()
    expect(page.locator('input[name="roles"][value="ROLE_USER"]')).to_be_checked()
    expect(page.locator('input[name="modules"][value="begcare"]')).to_be_checked()
    expect(page.locator('input[name="modules"][value="market"]')).not_to_be_checked()
    email = f"station.{locale.lower()}.{width}@demo.test"
    page.fill("#email", email)
    page.fill("#firstname", "Stina")
    page.fill("#lastname", f"Station {locale} {width}")
    assert visible_codes(page) == []
    page.screenshot(path=ARTIFACTS / f"user-form-{locale}-{width}.png", full_page=True)

    page.evaluate(AXE_START)
    violations = page.evaluate(AXE_RESULT)
    assert violations == [], violations

    toggle = page.get_by_role("button", name=words["show_codes"])
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert R.ROLE_STATION_USER in visible_codes(page)
    page.locator("#roles .choice-section").first.screenshot(
        path=ARTIFACTS / f"user-form-codes-{locale}-{width}.png"
    )
    toggle.click()
    assert visible_codes(page) == []

    page.locator("form.admin-form button.btn-primary").click()
    expect(page).to_have_url(re.compile(r"/admin/core/users$"))
    expect(page.locator(".alert-success").last).to_be_visible()
    with live_server.app.app_context():
        user = db.session.scalars(
            select(User).where(User.email == email).execution_options(all_instances=True)
        ).one()
        membership = user.membership_in(user.home_instance_id)
        assert R.ROLE_STATION_USER in membership.roles
        assert list(membership.modules) == ["begcare"]
        db.session.remove()


def test_without_javascript_the_preset_and_the_codes_redraw_the_form(live_server, browser):
    context = browser.new_context(
        base_url=live_server.url, java_script_enabled=False, viewport=WIDTHS["1280"]
    )
    try:
        page = context.new_page()
        sign_in(page)
        page.goto("/admin/core/users/new?lang=en-GB")
        page.fill("#firstname", "Nils")
        page.select_option("#preset", "station-worker")
        page.get_by_role("button", name="Apply preset").click()
        expect(page.locator(f'input[name="roles"][value="{R.ROLE_STATION_USER}"]')).to_be_checked()
        expect(page.locator("#firstname")).to_have_value("Nils")  # what was typed stays
        assert visible_codes(page) == []
        page.get_by_role("button", name="Show codes").click()
        assert R.ROLE_STATION_USER in visible_codes(page)
        expect(page.locator('input[name="roles"][value="ROLE_STATION_USER"]')).to_be_checked()
    finally:
        context.close()
