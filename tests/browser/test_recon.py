"""Reconditioning cost in a real browser, on a phone (375 px) in Swedish: the station user adds
actual costs to the task at work from its card (one success message at a time, not a stack),
and Start of a vehicle whose estimate waits for a manager is refused with the reason. What the
test adds is removed after."""

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import delete, select

from app.auth.models import User
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.recon_models import ReconLine

pytestmark = pytest.mark.browser
PHONE = {"width": 375, "height": 740}


@pytest.fixture
def lines_kept(live_server):
    """The cost lines as they were: those the test adds are deleted after."""
    with live_server.app.app_context():
        user = db.session.scalars(select(User).where(User.email == "station@demo.test")).one()
        activate(user.active_instance_id)
        last = db.session.scalar(select(ReconLine.id).order_by(ReconLine.id.desc()).limit(1))
    yield
    with live_server.app.app_context():
        activate(user.active_instance_id)
        db.session.execute(delete(ReconLine).where(ReconLine.id > last))
        db.session.commit()


def test_a_station_user_enters_an_actual_cost_and_cannot_start_a_waiting_estimate(
    new_page, lines_kept
):
    page = new_page(locale="sv-SE", viewport=PHONE)
    page.clock.install()  # the success alerts' own closing is held below
    page.goto("/login")
    page.locator("input[type=email]").fill("station@demo.test")
    page.locator("input[type=password]").fill("demo-pass-1")
    page.locator("form button[type=submit]").first.click()
    expect(page).not_to_have_url(re.compile(r"/login"))
    page.goto("/begcare/station/vehicles")

    card = page.locator(".station-card.is-active").first
    card.locator("details.recon-task > summary").click()
    form = card.locator("form.recon-form")
    form.get_by_label("Slag").select_option("labour")
    form.get_by_label("Belopp, eller timmar för arbete").fill("0,5")
    form.get_by_label("Vad").fill("Fälgtvätt")
    form.get_by_role("button", name="Lägg till kostnad").click()
    expect(page.get_by_text("Kostnaden är tillagd på Tvätt.")).to_be_visible()
    card = page.locator(".station-card.is-active").first
    card.locator("details.recon-task > summary").click()
    expect(card.get_by_text("Fälgtvätt")).to_be_visible()
    expect(card.get_by_text("325,00 SEK")).to_be_visible()  # 0,5 h × 650

    # A second cost answered in place: its outcome replaces the first's, no stack of them.
    # (Time held: the first would otherwise close by itself after 8 s, which proves nothing.)
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    form = card.locator("form.recon-form")
    form.get_by_label("Slag").select_option("parts")
    form.get_by_label("Belopp, eller timmar för arbete").fill("120")
    form.get_by_label("Vad").fill("Vax")
    form.get_by_role("button", name="Lägg till kostnad").click()
    card = page.locator(".station-card.is-active").first
    expect(card.locator(".recon-line-amount", has_text="120,00 SEK")).to_have_count(1)
    expect(page.locator(".alert-success")).to_have_count(1)

    waiting = page.locator(".station-card", has=page.locator("[data-approval=pending]")).first
    expect(waiting.get_by_text("Väntar på godkännande")).to_be_visible()
    waiting.locator("button[data-action=start]").click()
    expect(
        page.get_by_text(re.compile("en chef måste godkänna den innan arbetet startar"))
    ).to_be_visible()
    expect(
        page.locator(".station-card", has=page.locator("[data-approval=pending]")).first.locator(
            "button[data-action=start]"
        )
    ).to_be_visible()  # still waiting: not started
