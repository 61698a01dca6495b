"""The invitation page in a real browser at phone width: a new company registers from the demo's
open invite (terms, form, a refused password, the fix, the market), and an invite of an
existing company is answered signed in by one of its administrators.

Screenshots of every step at 375 and 1280 px go to test-artifacts/market-invite-*.png."""

import pytest
from flask_babel import force_locale
from playwright.sync_api import expect
from sqlalchemy import select

from app.core.messages import message
from app.extensions import db
from app.market.invites import create_invite
from app.market.models import InstanceGroup, MarketInvite
from tests.browser.conftest import MOBILE

pytestmark = pytest.mark.browser


def text(live_server, msgid: str, locale: str = "en_GB") -> str:
    with live_server.app.test_request_context(), force_locale(locale):
        return message(msgid)


def open_invite_hash(live_server) -> str:
    """The demo's open invite of a new company (Vestkyst Bil AS, in English)."""
    with live_server.app.app_context():
        invite = db.session.scalars(
            select(MarketInvite)
            .where(
                MarketInvite.accepted_at.is_(None),
                MarketInvite.denied_at.is_(None),
                MarketInvite.invited_group_id.is_(None),
            )
            .order_by(MarketInvite.id)
            .execution_options(all_instances=True)
        ).first()
        assert invite is not None, "the demo has an open invite"
        return invite.hash


def error_of(page, field_id: str):
    return page.locator(f"#{field_id}-error")


def test_a_new_company_registers_and_lands_on_the_market(live_server, new_page, snap):
    page = new_page(viewport=MOBILE)
    page.goto(f"/market-invite/{open_invite_hash(live_server)}")

    terms = page.locator("#invite-terms")
    expect(terms).to_be_visible()
    expect(page.locator("#invite-terms-text")).to_contain_text("Bids are binding for 48 hours")
    expect(page.locator("h1")).to_contain_text("Nordbil AB")
    expect(page.locator("#invite-form")).to_be_hidden()
    snap(page, "market-invite-1-terms")

    # Declining asks first; cancelling keeps the invitation.
    page.get_by_role("button", name="Decline", exact=True).click()
    expect(page.locator("#invite-decline-confirm")).to_be_visible()
    snap(page, "market-invite-2-decline-confirm")
    page.get_by_role("button", name="Cancel").click()
    expect(page.locator("#invite-decline-confirm")).to_be_hidden()

    page.get_by_role("button", name="Accept terms").click()
    form = page.locator("#invite-form")
    expect(form).to_be_visible()
    expect(terms).to_be_hidden()
    expect(page.get_by_label("Company name")).to_have_value("Vestkyst Bil AS")
    expect(page.get_by_label("Company ID")).to_have_value("987654321")
    expect(page.get_by_label("E-mail", exact=True)).to_have_value("post@vestkystbil.test")
    expect(page.get_by_label("Language")).to_have_value("en-GB")
    submit = page.locator("#invite-submit")
    expect(submit).to_be_disabled()
    snap(page, "market-invite-3-form")

    page.get_by_label("Contact name").fill("Ola Nordmann")
    page.get_by_label("Contact phone").fill("+47 55 12 34 56")
    page.get_by_label("Invoice reference").fill("Ola Nordmann")
    page.get_by_label("Country").select_option("NO")
    expect(page.get_by_label("Currency")).to_have_value("NOK")  # the country's currency
    page.get_by_label("First name").fill("Ola")
    page.get_by_label("Last name").fill("Nordmann")
    page.get_by_label("Phone (optional)").fill("phone me")
    page.get_by_label("Password", exact=True).fill("short")
    page.get_by_label("Repeat password").fill("different")
    page.get_by_label("Repeat password").blur()

    # Wrong values: the messages stand under their fields and the form cannot be sent.
    expect(error_of(page, "password")).to_have_attribute("data-message-key", "PASSWORD_PATTERN")
    expect(error_of(page, "password")).to_have_text(text(live_server, "PASSWORD_PATTERN"))
    expect(error_of(page, "password-repeat")).to_have_attribute(
        "data-message-key", "PASSWORDS_DOESNT_MATCH"
    )
    expect(error_of(page, "phone")).to_have_attribute(
        "data-message-key", "INVALID_PHONE_NUMBER_CHARACTERS"
    )
    expect(page.get_by_label("Password", exact=True)).to_have_attribute("aria-invalid", "true")
    expect(submit).to_be_disabled()
    snap(page, "market-invite-4-errors")

    page.get_by_label("Phone (optional)").fill("+47 900 12 345")
    page.get_by_label("Password", exact=True).fill("Fjord-bil-7")
    page.get_by_label("Repeat password").fill("Fjord-bil-7")
    page.get_by_label("Repeat password").blur()
    expect(error_of(page, "password")).to_be_hidden()
    expect(error_of(page, "password-repeat")).to_be_hidden()
    expect(submit).to_be_enabled()
    snap(page, "market-invite-5-filled")

    # The address is the invited one: the field cannot be changed (the server refuses another).
    expect(page.get_by_label("E-mail", exact=True)).not_to_be_editable()

    submit.click()
    page.wait_for_url("**/market")
    expect(page.locator(".alert-success")).to_contain_text(text(live_server, "INVITE_ACCEPTED"))
    expect(page.locator("body")).to_contain_text("Ola Nordmann")  # signed in as the new user
    snap(page, "market-invite-6-market")

    with live_server.app.app_context():
        group = db.session.scalars(
            select(InstanceGroup)
            .where(InstanceGroup.name == "Vestkyst Bil AS")
            .execution_options(all_instances=True)
        ).one()
        assert (group.buyer, group.currency, group.country_code) == (True, "NOK", "NO")


def test_an_existing_company_is_answered_by_its_administrator_signed_in(
    live_server, new_page, snap
):
    """The public form never makes a user inside a company already on the platform: the link
    asks for a sign-in, and a user of the company without the right is told who can accept."""
    from app.demo import DEMO_PASSWORD

    with live_server.app.test_request_context():
        groups = db.session.scalars(
            select(InstanceGroup).order_by(InstanceGroup.id).execution_options(all_instances=True)
        ).all()
        seller = next(g for g in groups if g.name == "Nordbil AB")
        fjord = next(g for g in groups if g.name == "Fjordauto AS")
        invite = create_invite(
            seller,
            company_name=fjord.name,
            email="ny.kollega@fjordauto.test",
            language="en-GB",
            invited_group=fjord,
        )
        db.session.commit()
        invite_hash = invite.hash

    page = new_page(viewport=MOBILE)
    page.goto(f"/market-invite/{invite_hash}?lang=en-GB")
    page.wait_for_url(lambda url: "/login?next=" in url)
    expect(page.locator(".alert-info")).to_contain_text("An administrator of Fjordauto AS")
    page.get_by_label("E-mail").fill("buyer@demo.test")
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"**/market/accept-invite/{invite_hash}")
    expect(page.locator(".alert-info")).to_be_visible()
    expect(page.locator('button[value="accept"]')).to_have_count(0)
    snap(page, "market-invite-7-existing-company")


def test_an_existing_user_logs_in_and_answers_on_the_signed_in_page(live_server, new_page, snap):
    from app.demo import DEMO_PASSWORD

    with live_server.app.test_request_context():
        seller = db.session.scalars(
            select(InstanceGroup)
            .where(InstanceGroup.name == "Nordbil AB")
            .execution_options(all_instances=True)
        ).one()
        invite = create_invite(
            seller, company_name="Malmö Bilcenter AB", email="malmo@demo.test", language="en-GB"
        )
        db.session.commit()
        invite_hash = invite.hash

    page = new_page(viewport=MOBILE)
    page.goto(f"/market-invite/{invite_hash}")
    # The address has an account: log in first, then the invitation opens again.
    page.wait_for_url(lambda url: "/login?next=" in url)
    expect(page.locator(".alert-info")).to_contain_text(
        text(live_server, "LOG_IN_TO_ACCEPT_INVITATION")
    )
    page.get_by_label("E-mail").fill("malmo@demo.test")
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"**/market/accept-invite/{invite_hash}")
    expect(page.locator(".invite-terms-text")).to_contain_text("Bids are binding for 48 hours")
    snap(page, "market-invite-8-signed-in")

    # Maja reads Swedish (her account's language).
    page.locator('button[value="decline"]').click()
    page.wait_for_url(lambda url: "accept-invite" not in url)  # the root, then Malmö's landing
    expect(page.locator(".alert-success")).to_contain_text(
        text(live_server, "INVITE_DECLINED", "sv_SE")
    )
    with live_server.app.app_context():
        answered = db.session.scalars(
            select(MarketInvite)
            .where(MarketInvite.hash == invite_hash)
            .execution_options(all_instances=True)
        ).one()
        assert answered.denied_at is not None and answered.accepted_at is None


def test_an_answered_invite_says_so_and_goes_to_the_root(live_server, new_page):
    with live_server.app.test_request_context():
        seller = db.session.scalars(
            select(InstanceGroup)
            .where(InstanceGroup.name == "Nordbil AB")
            .execution_options(all_instances=True)
        ).one()
        invite = create_invite(
            seller, company_name="Sen Bil AB", email="sen@bil.test", language="en-GB"
        )
        invite.denied_at = invite.created_at
        db.session.commit()
        invite_hash = invite.hash

    page = new_page(viewport=MOBILE)
    page.goto(f"/market-invite/{invite_hash}")
    page.wait_for_url(lambda url: "/login" in url)  # the root, which asks to log in
    expect(page.locator(".alert-danger")).to_contain_text(
        text(live_server, "MODULES.CCMARKET.ALERTS.INVALID_INVITATION")
    )
