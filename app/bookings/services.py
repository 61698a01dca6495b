"""Booking, moving and cancelling a test drive or a delivery; the bookings of a period.

A slot is booked only if the calendar offers it (opening hours, holidays, days ahead) and no
booking holds it. Two requests that both saw it free both insert; the unique (calendar,
held_start) lets exactly one commit, and the other is told the time was just taken."""

import secrets
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from flask_babel import gettext as _
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app.bookings import calendars as cal
from app.bookings.models import KINDS, Booking
from app.core import addresses
from app.core.localized import instance_locale, localized
from app.core.models import utcnow
from app.core.settings import Address
from app.core.times import moment
from app.extensions import db
from app.preparation.models import Location, PreparationItem

DELIVERY_FLOW = 8
ARCHIVED = 9  # app.preparation.items.ARCHIVED: a vehicle out of the business


class BookingError(Exception):
    """A booking refused: `field` is the form field the message belongs next to."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field, self.message = field, message


@dataclass(frozen=True)
class Customer:
    name: str
    email: str
    phone: str = ""
    language: str | None = None


@dataclass(frozen=True)
class Slot:
    start: datetime  # UTC
    taken: bool


def taken_starts(calendar_id: int, first: datetime, last: datetime) -> set[datetime]:
    return set(
        db.session.scalars(
            select(Booking.held_start).where(
                Booking.calendar_id == calendar_id,
                Booking.held_start >= first,
                Booking.held_start <= last,
            )
        )
    )


def slots_on(calendar: cal.Calendar, site: cal.Site, day, now: datetime) -> list[Slot]:
    """The day's offered slots, each marked taken or free."""
    starts = cal.offered_starts(calendar, site, day, now)
    if not starts:
        return []
    taken = taken_starts(calendar.id, starts[0], starts[-1])
    return [Slot(start, start in taken) for start in starts]


def delivery_place(item: PreparationItem, locale: str) -> str:
    """The vehicle's own delivery location's name in the customer's `locale` (else the
    company's language, else as written), when it has one ("": the calendar's place)."""
    location = (
        db.session.get(Location, item.delivery_location_id) if item.delivery_location_id else None
    )
    if location is None:
        return ""
    return localized(location.name_texts, locale, instance_locale(item.instance_id), location.name)


def _check_slot(calendar: cal.Calendar, site: cal.Site, start: datetime, now: datetime) -> None:
    day = start.astimezone(cal.pytz.timezone(site.zone)).date()
    offered = {slot.start: slot.taken for slot in slots_on(calendar, site, day, now)}
    if start not in offered:
        raise BookingError("slot", _("The calendar does not offer this time. Choose another."))
    if offered[start]:
        raise BookingError("slot", _("This time has just been booked. Choose another."))


def _hold(booking: Booking) -> None:
    """Write the booking; the slot's unique key refuses a second holder."""
    try:
        with db.session.begin_nested():
            db.session.add(booking)
    except IntegrityError:
        raise BookingError("slot", _("This time has just been booked. Choose another.")) from None


def bookable(item: PreparationItem) -> bool:
    """An archived vehicle is out of the business: nobody test-drives or takes delivery of it."""
    return item.state != ARCHIVED


def archived_message() -> str:
    return _("An archived vehicle cannot be booked. Move it back to a state first.")


def book(
    item: PreparationItem,
    calendar: cal.Calendar,
    kind: str,
    start: datetime,
    location,
    customer: Customer,
    user_id: int,
    now: datetime | None = None,
    address_id: int | None = None,
) -> Booking:
    """Book a free slot of the calendar for the vehicle; BookingError when it is not free. A
    delivery may name one of the division's addresses (`address_id`): its place then."""
    now = now or utcnow()
    if not bookable(item):
        raise BookingError("kind", archived_message())
    if kind not in KINDS:
        raise BookingError("kind", _("Choose a test drive or a delivery."))
    if not calendar.runs_for(item.division_id):
        raise BookingError("calendar", _("Choose one of the calendars offered."))
    site = cal.site_of(item.division_id)
    _check_slot(calendar, site, start, now)
    # The place as the customer reads it (their invitation and mails): in their language.
    language = customer.language or site.language
    place = delivery_place(item, language) if kind == "delivery" else ""
    if kind != "delivery":
        address_id = None
    elif message := addresses.refusal(address_id, [item.division_id]):
        raise BookingError("address", message)
    elif address_id is not None:
        place = addresses.one_line(db.session.get(Address, address_id))
    booking = Booking(
        division_id=item.division_id,
        calendar_id=calendar.id,
        location_id=location.id if location is not None else None,
        address_id=address_id,
        item_id=item.id,
        kind=kind,
        starts_at=start,
        ends_at=start + timedelta(minutes=calendar.slot_minutes),
        held_start=start,
        place=place or cal.address_of(location, language),
        customer_name=customer.name,
        customer_email=customer.email,
        customer_phone=customer.phone,
        customer_language=customer.language or None,
        uid=f"booking-{secrets.token_hex(12)}",
        sequence=0,
        created_at=now,
        changed_at=now,
    )
    booking.stamp(user_id)
    _hold(booking)
    return booking


def move(
    booking: Booking, calendar: cal.Calendar, start: datetime, location, now: datetime | None = None
) -> Booking:
    """Move an active booking to another free slot (and place); its invitation's sequence rises."""
    now = now or utcnow()
    if not booking.active:
        raise BookingError("slot", _("This booking is cancelled."))
    site = cal.site_of(booking.division_id)
    if start != booking.starts_at:
        _check_slot(calendar, site, start, now)
    language = booking.customer_language or site.language
    place = delivery_place(booking.item, language) if booking.kind == "delivery" else ""
    if booking.address_id is not None:  # the delivery's address stays where it was chosen
        place = addresses.one_line(db.session.get(Address, booking.address_id)) or place
    try:
        with db.session.begin_nested():
            booking.calendar_id = calendar.id
            booking.starts_at = booking.held_start = start
            booking.ends_at = start + timedelta(minutes=calendar.slot_minutes)
            booking.location_id = location.id if location is not None else None
            booking.place = place or cal.address_of(location, language)
            booking.sequence += 1
            booking.changed_at = now
            db.session.flush()
    except IntegrityError:
        db.session.refresh(booking)
        raise BookingError("slot", _("This time has just been booked. Choose another.")) from None
    return booking


def cancel(booking: Booking, now: datetime | None = None) -> Booking:
    """Cancel a booking: its slot is free again, its invitation's sequence rises."""
    if not booking.active:
        raise BookingError("slot", _("This booking is cancelled."))
    booking.status, booking.held_start = "cancelled", None
    booking.sequence += 1
    booking.changed_at = now or utcnow()
    db.session.flush()
    return booking


# --- reading ----------------------------------------------------------------------------------


def find(booking_id: int, division_ids: list[int], modules: list[str]) -> Booking | None:
    """A booking of a vehicle the user may see (its division and module), else None."""
    return db.session.scalars(
        select(Booking)
        .join(PreparationItem, PreparationItem.id == Booking.item_id)
        .where(
            Booking.id == booking_id,
            Booking.division_id.in_(division_ids),
            PreparationItem.module.in_(modules),
        )
    ).first()


def of_item(item_id: int, now: datetime) -> list[Booking]:
    """The vehicle's active bookings from today on, in time order."""
    return list(
        db.session.scalars(
            select(Booking)
            .where(
                Booking.item_id == item_id,
                Booking.status == "booked",
                Booking.ends_at >= now - timedelta(hours=12),
            )
            .order_by(Booking.starts_at)
        )
    )


def between(
    start: datetime,
    end: datetime,
    *,
    division_ids: list[int] | None = None,
    calendar_id: int | None = None,
    made_by: int | None = None,
) -> list[Booking]:
    """Active bookings starting from `start` until `end`, in time order."""
    stmt = select(Booking).where(
        Booking.status == "booked", Booking.starts_at >= start, Booking.starts_at < end
    )
    if division_ids is not None:
        stmt = stmt.where(Booking.division_id.in_(division_ids))
    if calendar_id is not None:
        stmt = stmt.where(Booking.calendar_id == calendar_id)
    if made_by is not None:
        stmt = stmt.where(Booking.created_by_id == made_by)
    return list(db.session.scalars(stmt.order_by(Booking.starts_at, Booking.id)))


def booked_deliveries(item_ids: list[int]) -> dict[int, Booking]:
    """Each vehicle's next active delivery booking (one query)."""
    if not item_ids:
        return {}
    found: dict[int, Booking] = {}
    for booking in db.session.scalars(
        select(Booking)
        .where(
            Booking.item_id.in_(item_ids), Booking.kind == "delivery", Booking.status == "booked"
        )
        .order_by(Booking.starts_at)
    ):
        found.setdefault(booking.item_id, booking)
    return found


def widget_value(division_ids: list[int], zone: str, now: datetime | None = None) -> dict:
    """The dashboard's bookings widget: how many today and this week (in `zone`), and today's."""
    now = now or utcnow()
    today = cal.today_in(zone, now)
    monday = today - timedelta(days=today.weekday())
    start = cal.local_moment(zone, monday, time(0))
    end = cal.local_moment(zone, monday + timedelta(days=7), time(0))
    day_start = cal.local_moment(zone, today, time(0))
    day_end = cal.local_moment(zone, today + timedelta(days=1), time(0))
    week = between(start, end, division_ids=division_ids)
    todays = [b for b in week if day_start <= b.starts_at < day_end]
    return {
        "today": len(todays),
        "week": len(week),
        "items": [
            {
                "at": b.starts_at.isoformat(),
                "time": moment(b.starts_at, "time"),
                "kind": _("Test drive") if b.kind == "test_drive" else _("Delivery"),
                "vehicle": f"{b.item.full_model_name} · {b.item.regno}",
                "href": f"/bookings/{b.id}",
            }
            for b in todays[:10]
        ],
    }
