"""A salesperson on a phone books a test drive from the vehicle page, moves it and cancels it;
the customer's three mails are read at their preview links and their invitations parsed."""

import re
from zoneinfo import ZoneInfo

import icalendar
import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.demo import DEMO_PASSWORD
from app.extensions import db
from app.mail.models import EmailMessage
from tests.browser.conftest import MOBILE

pytestmark = pytest.mark.browser
CUSTOMER = "lena.kund@example.test"


def _mails(app) -> list[EmailMessage]:
    with app.app_context():
        found = db.session.scalars(
            select(EmailMessage)
            .where(EmailMessage.to_address == CUSTOMER)
            .order_by(EmailMessage.id)
        ).all()
        db.session.expunge_all()
        db.session.remove()
    return found


def _pick_time(page, n: int = 0) -> str:
    slot = page.locator(".slot-list input:not([disabled])").nth(n)
    value = slot.get_attribute("value")
    page.locator(f"label[for='{slot.get_attribute('id')}']").click()
    return value


def test_a_test_drive_is_booked_moved_and_cancelled_from_a_phone(new_page, live_server, snap):
    page = new_page(viewport=MOBILE)
    page.goto("/login")
    page.get_by_label("E-mail").fill("seller@demo.test")
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).not_to_have_url(re.compile(r"/login"))
    page.goto("/begcare/items/incoming")
    page.locator(".item-table tbody a").first.click()
    expect(page.locator("#bookings")).to_be_visible()
    page.get_by_role("link", name="Book a test drive").click()

    expect(page.get_by_role("radio", name="Test drive")).to_be_checked()
    snap(page, "booking-new")
    first = _pick_time(page)
    page.get_by_label("Customer's name").fill("Lena Kund")
    page.get_by_label("Customer's e-mail").fill(CUSTOMER)
    page.get_by_label("Customer's phone number").fill("+46 70 000 00 00")
    page.get_by_role("button", name="Book and send the invitation").click()
    expect(page.get_by_text("The time is booked")).to_be_visible()
    snap(page, "booking-show")

    page.get_by_label("Day").select_option(index=2)
    page.get_by_role("button", name="Show free times").click()
    second = _pick_time(page, 1)
    page.get_by_role("button", name="Move and send the new time").click()
    expect(page.get_by_text("The booking has moved")).to_be_visible()
    page.get_by_role("button", name="Cancel the booking").click()
    expect(page.locator(".badge-warning")).to_have_text("Cancelled")

    mails = _mails(live_server.app)
    assert [m.kind for m in mails] == ["booking_booked", "booking_moved", "booking_cancelled"]
    zone = ZoneInfo("Europe/Stockholm")
    seen = []
    for mail, method, start in zip(mails, ("REQUEST", "REQUEST", "CANCEL"), (first, second, second), strict=True):  # fmt: skip
        page.goto(f"/email-preview/{mail.public_id}")
        expect(page.locator(".mail-body")).to_contain_text("Lena Kund")
        link = page.get_by_role("link", name="invitation.ics")
        ics = page.request.get(link.get_attribute("href"))
        calendar = icalendar.Calendar.from_ical(ics.body())
        (event,) = calendar.walk("VEVENT")
        assert str(calendar["METHOD"]) == method
        begins = event.decoded("DTSTART")
        assert begins.isoformat() == begins.astimezone(zone).isoformat()
        assert begins.astimezone(ZoneInfo("UTC")).isoformat().replace("+00:00", "") in start
        expect(page.locator(".mail-body")).to_contain_text(
            begins.astimezone(zone).strftime("%H:%M")
        )
        seen.append((str(event["UID"]), int(event["SEQUENCE"])))
    snap(page, "booking-mail")
    assert len({uid for uid, _ in seen}) == 1
    assert [seq for _, seq in seen] == [0, 1, 2]


def test_the_staff_see_bookings_on_the_vehicle_the_calendar_and_the_admin_screen(page, snap):
    page.goto("/login")
    page.get_by_label("E-mail").fill("admin@demo.test")
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).not_to_have_url(re.compile(r"/login"))
    page.goto("/begcare/items/deliveryflow")
    expect(page.locator("[data-booked-delivery]").first).to_be_visible()
    snap(page, "booking-delivery-flow")
    page.locator("[data-booked-delivery]").first.click()
    page.locator("dl.booking-facts a").first.click()
    expect(page.locator("#bookings .booking-list li").first).to_be_visible()
    snap(page, "booking-vehicle")
    page.goto("/bookings")
    page.locator(".booking-list a").nth(1).click()
    page.get_by_role("link", name="Next week").click()
    snap(page, "booking-calendar-week")
    page.goto("/admin/general/booking-calendars")
    page.locator("table a").first.click()
    expect(page.get_by_label("Minutes between bookings")).to_be_visible()
    snap(page, "booking-calendar-admin")
