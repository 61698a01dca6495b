"""The customer's invitation: an iCalendar (RFC 5545/5546) REQUEST when a time is booked or
moved, a CANCEL when it is cancelled, with the booking's one UID and its sequence, mailed in
the customer's language (else the division's) with the times in the division's zone."""

from datetime import datetime
from email.utils import parseaddr
from zoneinfo import ZoneInfo

import icalendar
from flask import current_app
from flask_babel import force_locale
from flask_babel import gettext as _

from app.bookings import calendars as cal
from app.bookings.models import Booking
from app.core.i18n import babel_name
from app.core.models import utcnow
from app.mail.services import send_mail

CONTENT_TYPE = "text/calendar; charset=utf-8; method=%s"


def kind_label(kind: str) -> str:
    return _("Test drive") if kind == "test_drive" else _("Delivery")


def vehicle_of(booking: Booking) -> str:
    item = booking.item
    return f"{item.full_model_name} · {item.regno}"


def ics(booking: Booking, method: str, zone: str, now: datetime | None = None) -> str:
    """The booking as a one-event calendar with METHOD `method` (REQUEST or CANCEL); the
    times in `zone`, with its VTIMEZONE."""
    tz = ZoneInfo(zone)
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//DealerCare//Bookings//EN")
    calendar.add("version", "2.0")
    calendar.add("method", method)
    event = icalendar.Event()
    event.add("uid", booking.uid)
    event.add("sequence", booking.sequence)
    event.add("dtstamp", now or utcnow())
    event.add("dtstart", booking.starts_at.astimezone(tz))
    event.add("dtend", booking.ends_at.astimezone(tz))
    event.add("summary", f"{kind_label(booking.kind)}: {vehicle_of(booking)}")
    if booking.place:
        event.add("location", booking.place)
    event.add("status", "CANCELLED" if method == "CANCEL" else "CONFIRMED")
    name, address = parseaddr(current_app.config["MAIL_FROM"])
    organizer = icalendar.vCalAddress(f"mailto:{address}")
    organizer.params["cn"] = icalendar.vText(booking.division.name if booking.division else name)
    event.add("organizer", organizer)
    attendee = icalendar.vCalAddress(f"mailto:{booking.customer_email}")
    attendee.params["cn"] = icalendar.vText(booking.customer_name)
    attendee.params["role"] = icalendar.vText("REQ-PARTICIPANT")
    event.add("attendee", attendee)
    calendar.add_component(event)
    calendar.add_missing_timezones()
    return calendar.to_ical().decode()


def mail(booking: Booking, what: str) -> None:
    """Mail the customer that the time is booked, moved or cancelled (`what`), with the .ics."""
    site = cal.site_of(booking.division_id)
    language = booking.customer_language or site.language
    method = "CANCEL" if what == "cancelled" else "REQUEST"
    with force_locale(babel_name(language)):
        body = ics(booking, method, site.zone)
        label = kind_label(booking.kind)
    send_mail(
        to=booking.customer_email,
        template=f"booking_{what}",
        kind=f"booking_{what}",
        language=language,
        instance_id=booking.instance_id,
        time_zone=site.zone,
        attachments=(("invitation.ics", CONTENT_TYPE % method, body),),
        booking=booking,
        kind_label=label,
        vehicle=vehicle_of(booking),
        division=booking.division.name if booking.division else "",
    )
