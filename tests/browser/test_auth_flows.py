"""Sign-in in a real browser: login, forgot password, reset password, the login modal, languages.

Each test starts from a fresh browser context (no cookies) against the live server's demo data.
Texts are looked up in the application's own catalogues, so the tests follow the translations.
"""

import re

import pytest
from flask_babel import force_locale
from playwright.sync_api import expect
from sqlalchemy import select

from app.auth.models import User
from app.core.messages import message
from app.demo import DEMO_PASSWORD
from app.extensions import db
from app.mail.models import EmailMessage

pytestmark = pytest.mark.browser


# --- helpers ---------------------------------------------------------------------------------


def text(live_server, msgid: str, locale: str = "en_GB") -> str:
    """The text a user sees for `msgid` (a message key or an English text) in `locale`."""
    with live_server.app.test_request_context(), force_locale(locale):
        return message(msgid)


def newest_mail(live_server, address: str) -> EmailMessage:
    with live_server.app.app_context():
        mail = db.session.scalars(
            select(EmailMessage)
            .where(EmailMessage.to_address == address)
            .order_by(EmailMessage.id.desc())
        ).first()
        assert mail is not None, f"no mail stored for {address}"
        db.session.expunge(mail)
        return mail


def alert(page, kind: str):
    """The message of the `kind` alert (success, danger...) in the alert stack."""
    return page.get_by_role("status").locator(f".alert-{kind} .alert-message")


def submit_login(page):
    """Press "Log in"; return the answer to the POST (a redirect to the root when it worked)."""
    with page.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith("/login")
    ) as answer:
        page.get_by_role("button", name="Log in").click()
    return answer.value


def sign_in(page, email: str, password: str = DEMO_PASSWORD) -> None:
    page.goto("/login")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(password)
    assert submit_login(page).headers.get("location") == "/"
    expect(page).not_to_have_url(re.compile(r"/login"))  # the root, or its landing page


def reset_link_by_mail(page, live_server, email: str) -> str:
    """Ask for a reset link on the login page and return the link from the mail's preview."""
    page.goto("/login")
    page.get_by_role("link", name="Forgot password?").click()
    page.get_by_label("E-mail").fill(email)
    page.get_by_role("button", name="Send reset link").click()
    expect(alert(page, "success")).to_have_text(text(live_server, "FORGOT_PASSWORD_EMAIL_SENT"))
    mail = newest_mail(live_server, email)
    page.goto(f"/email-preview/{mail.public_id}")
    expect(page.get_by_role("heading", level=1)).to_have_text(mail.subject)
    link = page.locator(".mail-body a[href*='/reset-password/']")
    expect(link).to_have_count(1)
    return link.get_attribute("href")


@pytest.fixture
def restore(live_server):
    """restore(email): the test changes this demo user; put its password and options back."""
    saved = {}

    def remember(email: str) -> None:
        with live_server.app.app_context():
            user = find(email)
            saved[email] = (user.password_hash, dict(user.options or {}))

    yield remember
    with live_server.app.app_context():
        for email, (password_hash, options) in saved.items():
            user = find(email)
            user.password_hash, user.options = password_hash, options
        db.session.commit()


def find(email: str) -> User:
    stmt = select(User).where(User.email == email).execution_options(all_instances=True)
    return db.session.scalars(stmt).one()


# --- login -----------------------------------------------------------------------------------


@pytest.mark.parametrize("viewport", ["1280", "375"], indirect=True)
def test_sign_in_lands_on_the_start_page_with_the_users_name(page, viewport, snap):
    page.goto("/login")
    email, password = page.get_by_label("E-mail"), page.get_by_label("Password")
    expect(email).to_have_attribute("type", "email")
    expect(password).to_have_attribute("type", "password")
    submit = page.get_by_role("button", name="Log in")
    expect(submit).to_be_disabled()  # form-guard: nothing typed yet
    width = str(viewport["width"])
    snap(page, "login", widths=(width,))

    email.fill("seller@demo.test")
    expect(submit).to_be_disabled()  # the password is still missing
    password.fill(DEMO_PASSWORD)
    expect(submit).to_be_enabled()
    answer = submit_login(page)

    assert (answer.status, answer.headers.get("location")) == (302, "/")
    expect(page).not_to_have_url(re.compile(r"/login"))  # the root, or the landing page it picks
    menu = page.locator("header .user-menu summary")
    expect(menu).to_contain_text("Sara Lindqvist")  # the accessible name at every width
    if viewport["width"] >= 640:
        expect(menu.locator(".user-fullname")).to_be_visible()
        assert menu.locator(".user-fullname").bounding_box()["width"] > 50
    else:
        expect(menu.locator(".user-initials")).to_have_text("SL")
        expect(menu.locator(".user-initials")).to_be_visible()
    snap(page, "start", widths=(width,))


def test_wrong_password_shows_the_danger_alert_and_keeps_the_email(page, live_server, snap):
    page.goto("/login")
    page.get_by_label("E-mail").fill("seller@demo.test")
    page.get_by_label("Password").fill("not-the-password-1!")
    page.get_by_role("button", name="Log in").click()

    expect(page.get_by_role("alert")).to_contain_text(text(live_server, "INVALID_CREDENTIALS"))
    expect(alert(page, "danger")).to_have_text(text(live_server, "INVALID_CREDENTIALS"))
    expect(page.get_by_label("E-mail")).to_have_value("seller@demo.test")
    expect(page.get_by_label("Password")).to_have_value("")
    expect(page.get_by_role("button", name="Log in")).to_be_disabled()  # retype the password
    snap(page, "login-wrong-password")


# --- forgot and reset password ---------------------------------------------------------------


def test_forgot_password_sends_a_mail_whose_link_opens_the_reset_form(page, live_server, snap):
    page.goto("/login")
    page.get_by_role("link", name="Forgot password?").click()
    expect(page.get_by_role("heading", name="Reset your password")).to_be_visible()
    expect(page.get_by_label("Password")).to_have_count(0)  # e-mail only
    send = page.get_by_role("button", name="Send reset link")
    expect(send).to_be_disabled()
    snap(page, "forgot-password")

    page.get_by_label("E-mail").fill("seller@demo.test")
    send.click()

    expect(page).to_have_url(re.compile(r"/login$"))
    expect(alert(page, "success")).to_have_text(text(live_server, "FORGOT_PASSWORD_EMAIL_SENT"))
    expect(page.get_by_role("button", name="Log in")).to_be_visible()  # back on the login form
    snap(page, "forgot-password-sent")

    mail = newest_mail(live_server, "seller@demo.test")
    assert mail.kind == "password_reset"
    page.goto(f"/email-preview/{mail.public_id}")
    expect(page.get_by_role("heading", level=1)).to_have_text(mail.subject)
    snap(page, "reset-mail")
    page.locator(".mail-body a[href*='/reset-password/']").click()

    expect(page).to_have_url(re.compile(r"/reset-password/[\w-]+$"))
    expect(page.get_by_role("heading", name="Choose a new password")).to_be_visible()
    expect(page.get_by_label("New password")).to_be_visible()
    expect(page.get_by_label("Verify password")).to_be_visible()


def test_reset_password_refuses_weak_and_mismatched_then_the_new_one_signs_in(
    page, live_server, snap, restore
):
    restore("divadmin@demo.test")
    link = reset_link_by_mail(page, live_server, "divadmin@demo.test")
    page.goto(link)
    new, verify = page.get_by_label("New password"), page.get_by_label("Verify password")
    save = page.get_by_role("button", name="Save new password")
    expect(save).to_be_disabled()
    snap(page, "reset-password")

    new.fill("abcdefg")  # seven characters, but no digit and no special character
    verify.fill("abcdefg")
    save.click()
    error = page.locator("#password-error")
    expect(error).to_have_text(text(live_server, "PASSWORD_PATTERN"))
    expect(error).to_have_attribute("data-message-key", "PASSWORD_PATTERN")
    expect(page.get_by_label("New password")).to_have_attribute("aria-invalid", "true")
    snap(page, "reset-password-weak")

    new.fill("Better-pass-2")
    verify.fill("Better-pass-3")
    save.click()
    error = page.locator("#verify_password-error")
    expect(error).to_have_text(text(live_server, "PASSWORDS_DOESNT_MATCH"))
    expect(error).to_have_attribute("data-message-key", "PASSWORDS_DOESNT_MATCH")
    expect(page.locator("#password-error")).to_have_count(0)
    snap(page, "reset-password-mismatch")

    new.fill("Better-pass-2")
    verify.fill("Better-pass-2")
    save.click()
    expect(page).to_have_url(re.compile(r"/login$"))
    expect(alert(page, "success")).to_have_text(text(live_server, "PASSWORD_CHANGED"))
    snap(page, "reset-password-changed")

    sign_in(page, "divadmin@demo.test", "Better-pass-2")
    expect(page.locator("header .user-menu summary")).to_contain_text("Dina Ek")

    page.goto(link)  # the link worked once
    expect(page.get_by_label("New password")).to_have_count(0)
    expect(page.get_by_role("alert")).to_have_attribute("data-message-key", "INVALID_RESET_TOKEN")


def test_reset_password_keeps_what_was_typed_after_a_mismatch(page, live_server, restore):
    restore("station@demo.test")
    page.goto(reset_link_by_mail(page, live_server, "station@demo.test"))
    page.get_by_label("New password").fill("Better-pass-2")
    page.get_by_label("Verify password").fill("Better-pass-3")
    page.get_by_role("button", name="Save new password").click()
    expect(page.locator("#verify_password-error")).to_be_visible()
    expect(page.get_by_label("New password")).to_have_value("Better-pass-2")


# --- the login modal -------------------------------------------------------------------------


def test_login_modal_signs_in_again_and_retries_the_save(page, live_server, snap, restore):
    restore("global@demo.test")
    sign_in(page, "global@demo.test")
    page.goto("/user")
    language = page.get_by_label("Language", exact=True)
    expect(language).to_have_value("en-GB")
    snap(page, "settings")

    saves = []
    page.on(
        "response",
        lambda r: r.url.endswith("/api/me/options") and saves.append((r.request.method, r.status)),
    )
    page.context.clear_cookies()  # the session ends behind the page's back
    language.select_option("de-DE")
    page.get_by_role("button", name="Save").click()

    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Your session has ended")
    assert page.evaluate("document.activeElement.closest('[role=dialog]') !== null")
    page.keyboard.press("Escape")
    expect(dialog).to_be_visible()  # no way out but signing in
    assert page.evaluate("document.activeElement.closest('[role=dialog]') !== null")
    expect(page.locator(".app")).to_have_attribute("inert", "")  # the page behind is out of reach
    snap(page, "login-modal")

    dialog.get_by_label("E-mail").fill("global@demo.test")
    dialog.get_by_label("Password").fill(DEMO_PASSWORD)
    page.evaluate("window.__beforeReload = true")
    dialog.get_by_role("button", name="Sign in").click()

    expect(dialog).to_have_count(0)
    expect(alert(page, "success")).to_have_text("Your settings have been saved.")
    # The saved language reloads the page, now rendered in German.
    page.wait_for_function("() => window.__beforeReload === undefined")
    expect(page.locator("html")).to_have_attribute("lang", "de-DE")
    expect(page.get_by_role("heading", level=1)).to_have_text(
        text(live_server, "My settings", "de_DE")
    )
    expect(page.get_by_label(text(live_server, "Language", "de_DE"), exact=True)).to_have_value(
        "de-DE"
    )
    assert saves == [("PATCH", 401), ("PATCH", 200)]
    snap(page, "settings-german")


# --- languages -------------------------------------------------------------------------------


def test_a_german_browser_gets_a_german_login_page(new_page, live_server, snap):
    page = new_page(locale="de-DE")
    page.goto("/login")
    expect(page.locator("html")).to_have_attribute("lang", "de-DE")
    expect(page.get_by_role("heading", level=1)).to_have_text(text(live_server, "Log in", "de_DE"))
    expect(page.get_by_label(text(live_server, "E-mail", "de_DE"))).to_have_attribute(
        "type", "email"
    )
    snap(page, "login-german")


# --- the error page --------------------------------------------------------------------------


def test_error_page_goes_two_entries_back_or_to_the_root(page, snap):
    page.goto("/login")
    page.goto("/login?forgot=1")
    page.goto("/error/SOMETHING")  # reached from a page that failed; back past both
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    expect(page.get_by_text("ERROR.SOMETHING")).to_be_visible()  # a missing key shows the key
    snap(page, "error")
    page.get_by_role("link", name="Go back").click()
    expect(page).to_have_url(re.compile(r"/login$"))

    fresh = page.context.new_page()  # a history of one entry: the link goes to the root
    fresh.goto("/error")
    fresh.get_by_role("link", name="Go back").click()
    expect(fresh).to_have_url(re.compile(r"/login\?next=(/|%2F)$"))  # the root wants a sign-in
