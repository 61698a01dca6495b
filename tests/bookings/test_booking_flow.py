"""Booking, moving and cancelling from the staff pages; the customer's mails read at their
preview links and their invitations parsed with icalendar, across the spring change of
daylight-saving time in Stockholm and Oslo."""

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import icalendar
import pytest
from sqlalchemy import select

from app.auth.models import User
from app.bookings.models import Booking
from app.extensions import db
from app.mail.models import EmailMessage
from tests.helpers import page_text, sign_in

ZONES = {"SE": "Europe/Stockholm", "NO": "Europe/Oslo"}
# Summer time begins on Sunday 28 March 2027 in both: 09:00 is 08:00 UTC before, 07:00 after.
BEFORE, AFTER = datetime(2027, 3, 26, 8, 0, tzinfo=UTC), datetime(2027, 3, 29, 7, 0, tzinfo=UTC)


def _signed_in(client, shop) -> str:
    return sign_in(client, db.session.get(User, shop.user_id))


def _mails(to: str) -> list[EmailMessage]:
    return list(
        db.session.scalars(
            select(EmailMessage).where(EmailMessage.to_address == to).order_by(EmailMessage.id)
        )
    )


def _invitation(client, mail: EmailMessage) -> tuple[str, icalendar.Calendar]:
    """The mail as its recipient reads it at the preview link, and its .ics from that page."""
    page = client.get(f"/email-preview/{mail.public_id}")
    assert page.status_code == 200
    link = re.search(r'href="(/email-preview/[^"]+/files/1/invitation\.ics)"', page_text(page))
    assert link, "the preview links the invitation"
    ics = client.get(link[1])
    assert ics.status_code == 200 and ics.headers["Content-Type"].startswith("text/calendar")
    return page_text(page), icalendar.Calendar.from_ical(ics.data)


def _event(calendar: icalendar.Calendar) -> icalendar.Event:
    (event,) = calendar.walk("VEVENT")
    return event


@pytest.mark.parametrize("code", ["SE", "NO"])
def test_a_test_drive_is_booked_moved_and_cancelled_and_each_mail_carries_its_invitation(
    client, shop, code
):
    token = _signed_in(client, shop)
    item_id, zone = shop.items[code], ZoneInfo(ZONES[code])
    new = f"/bookings/vehicles/{item_id}/new?day=2027-03-26"
    form = client.get(new)
    assert form.status_code == 200
    assert 'value="2027-03-26T08:00:00+00:00"' in page_text(form), "09:00 local is offered"
    city = ZONES[code].split("/")[1]
    assert f"Times in {city}, " in page_text(form), "the zone as people say it"
    assert ZONES[code] not in page_text(form)
    answer = client.post(
        new,
        data={
            "csrf_token": token, "kind": "test_drive", "slot": BEFORE.isoformat(),
            "location": str(shop.places[code]), "customer_name": "Kari Kunde",
            "customer_email": f"kari-{code}@example.test", "customer_phone": "+47 900 00 000",
            "customer_language": "",
        },
    )  # fmt: skip
    assert answer.status_code == 302, page_text(answer)
    booking = db.session.scalars(select(Booking).where(Booking.item_id == item_id)).one()
    assert answer.headers["Location"].endswith(f"/bookings/{booking.id}")

    moved = client.post(
        f"/bookings/{booking.id}?day=2027-03-29",
        data={"csrf_token": token, "slot": AFTER.isoformat(), "location": str(shop.places[code])},
    )
    assert moved.status_code == 302, page_text(moved)
    cancelled = client.post(f"/bookings/{booking.id}/cancel", data={"csrf_token": token})
    assert cancelled.status_code == 302
    shown = page_text(client.get(f"/bookings/{booking.id}"))
    assert "Cancelled" in shown
    assert f"({city}, CEST)" in shown, "moved after the change to summer time"

    mails = _mails(f"kari-{code}@example.test")
    assert [m.kind for m in mails] == ["booking_booked", "booking_moved", "booking_cancelled"]
    # No language chosen: the division's (Swedish, Norwegian).
    assert {m.language for m in mails} == {"sv-SE" if code == "SE" else "nb-NO"}
    seen = []
    for mail, method, start in zip(mails, ("REQUEST", "REQUEST", "CANCEL"), (BEFORE, AFTER, AFTER), strict=True):  # fmt: skip
        text, calendar = _invitation(client, mail)
        event = _event(calendar)
        assert str(calendar["METHOD"]) == method
        begins = event.decoded("DTSTART")
        assert begins == start, "the same moment"
        assert begins.astimezone(zone).hour == 9, "09:00 on the division's clock"
        assert event.decoded("DTEND") - begins == timedelta(minutes=45)
        assert "09:00" in text
        seen.append((str(event["UID"]), int(event["SEQUENCE"])))
    assert len({uid for uid, _ in seen}) == 1, "one UID for the booking's life"
    assert [seq for _, seq in seen] == [0, 1, 2]


def test_the_customers_language_writes_the_mail(client, shop):
    token = _signed_in(client, shop)
    client.post(
        f"/bookings/vehicles/{shop.items['SE']}/new?day=2027-03-26",
        data={
            "csrf_token": token, "kind": "delivery", "slot": BEFORE.isoformat(),
            "customer_name": "Hans Kunde", "customer_email": "hans@example.test",
            "customer_language": "de-DE",
        },
    )  # fmt: skip
    (mail,) = _mails("hans@example.test")
    assert mail.language == "de-DE"
    text, calendar = _invitation(client, mail)
    assert "Übergabe" in str(_event(calendar)["SUMMARY"]) or "Auslieferung" in str(
        _event(calendar)["SUMMARY"]
    )


def test_bad_input_is_refused_next_to_the_field_and_kept(client, shop):
    token = _signed_in(client, shop)
    answer = client.post(
        f"/bookings/vehicles/{shop.items['SE']}/new?day=2027-03-26",
        data={
            "csrf_token": token, "kind": "test_drive", "slot": BEFORE.isoformat(),
            "customer_name": "Kari Kunde", "customer_email": "not-an-address",
        },
    )  # fmt: skip
    assert answer.status_code == 422
    text = page_text(answer)
    assert "Enter an e-mail address such as name@example.com." in text
    assert 'value="Kari Kunde"' in text
    assert db.session.scalars(select(Booking)).first() is None


def test_a_time_outside_the_opening_hours_or_taken_is_refused(client, shop):
    token = _signed_in(client, shop)
    data = {
        "csrf_token": token, "kind": "test_drive", "customer_name": "A",
        "customer_email": "a@example.test",
    }  # fmt: skip
    night = client.post(
        f"/bookings/vehicles/{shop.items['SE']}/new",
        data={**data, "slot": "2027-03-26T02:00:00+00:00"},
    )
    assert night.status_code == 422
    assert "The calendar does not offer this time." in page_text(night)
    first = client.post(
        f"/bookings/vehicles/{shop.items['SE']}/new", data={**data, "slot": BEFORE.isoformat()}
    )
    assert first.status_code == 302
    again = client.post(
        f"/bookings/vehicles/{shop.items['SE']}/new", data={**data, "slot": BEFORE.isoformat()}
    )
    assert again.status_code == 422
    assert "This time has just been booked." in page_text(again)
