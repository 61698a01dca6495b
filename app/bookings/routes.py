"""Booking pages: book from a vehicle, see, move and cancel a booking, and a calendar's day and
week for the staff of its division. Times are shown in the division's zone."""

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user

from app.auth.viewer import viewer
from app.bookings import bp, invitation
from app.bookings import calendars as cal
from app.bookings import services as svc
from app.bookings.forms import BookingForm, CancelForm, MoveForm
from app.bookings.models import Booking
from app.core import addresses, audit
from app.core.i18n import force_time_zone
from app.core.models import utcnow
from app.core.numbers import is_int
from app.core.times import calendar_period, iso_week
from app.extensions import db
from app.preparation.items import manage_path
from app.preparation.manage import item_or_404
from app.preparation.models import PreparationItem


def _division_ids() -> list[int]:
    return [d.id for d in viewer().visible_divisions]


def _booking_or_404(booking_id: int) -> Booking:
    booking = svc.find(booking_id, _division_ids(), list(viewer().modules))
    if booking is None:
        abort(404)
    return booking


@dataclass
class Picker:
    """The calendar, the day and its slots a booking form offers."""

    calendars: list[cal.Calendar]
    calendar: cal.Calendar
    site: cal.Site
    days: list[date]
    day: date | None
    slots: list[svc.Slot]
    locations: list


def _picker(division_id: int, current: int | None = None) -> Picker | None:
    calendars = cal.calendars_for(division_id)
    if not calendars:
        return None
    wanted = request.values.get("calendar", type=int) or current
    calendar = next((c for c in calendars if c.id == wanted), calendars[0])
    site, now = cal.site_of(division_id), utcnow()
    days = cal.bookable_days(calendar, site, now)
    try:
        day = date.fromisoformat(request.values.get("day", ""))
    except ValueError:
        day = None
    if day not in days:
        day = days[0] if days else None
    slots = svc.slots_on(calendar, site, day, now) if day else []
    return Picker(calendars, calendar, site, days, day, slots, cal.locations_of(calendar.id))


def _chosen_slot(value: str | None) -> datetime:
    try:
        start = datetime.fromisoformat(value or "")
    except ValueError:
        start = None
    if start is None or start.tzinfo is None:
        raise svc.BookingError("slot", _("Choose a time."))
    return start


def _location(picker: Picker, value: str | None):
    return next((row for row in picker.locations if str(row.id) == value), None)


def _address_id(value: str | None) -> int | None:
    """The chosen address's id; anything else than an id is none of the division's (-1)."""
    if not value:
        return None
    return int(value) if is_int(value) and int(value) > 0 else -1


def _render(template: str, picker: Picker | None, status: int = 200, **ctx):
    with force_time_zone(picker.site.zone if picker else None):
        return render_template(template, picker=picker, **ctx), status


@bp.route("/bookings/vehicles/<int:item_id>/new", methods=["GET", "POST"])
def new(item_id: int):
    """Book a test drive or a delivery of the vehicle on one of its division's calendars."""
    item = item_or_404(None, item_id)
    if not svc.bookable(item):
        flash(svc.archived_message(), "warning")
        return redirect(manage_path(item))
    picker = _picker(item.division_id)
    form = BookingForm()
    if picker is None:
        return _render("bookings/new.html", None, item=item, form=form)
    form.setup(picker.locations, picker.site.language, addresses.choices([item.division_id]))
    if not form.is_submitted():
        first = addresses.first_of(item.division_id)
        form.address.data = str(first.id) if first else ""
        form.kind.data = request.args.get("kind") or (
            "delivery" if item.state == svc.DELIVERY_FLOW else "test_drive"
        )
    if form.validate_on_submit():
        try:
            booking = svc.book(
                item, picker.calendar, form.kind.data, _chosen_slot(form.slot.data),
                _location(picker, form.location.data),
                svc.Customer(
                    form.customer_name.data.strip(), form.customer_email.data.strip(),
                    (form.customer_phone.data or "").strip(), form.customer_language.data or None,
                ),
                current_user.id, address_id=_address_id(form.address.data),
            )  # fmt: skip
        except svc.BookingError as error:
            getattr(form, error.field).errors = [error.message]
            picker = _picker(item.division_id)
        else:
            invitation.mail(booking, "booked")
            audit.record("booking_created", division_id=booking.division_id, booking=booking.id)
            db.session.commit()
            flash(_("The time is booked and the customer has been sent an invitation."), "success")
            return redirect(url_for(".show", booking_id=booking.id))
    status = 422 if form.is_submitted() else 200
    return _render("bookings/new.html", picker, status, item=item, form=form)


@bp.route("/bookings/<int:booking_id>", methods=["GET", "POST"])
def show(booking_id: int):
    """A booking, and moving it to another free time (the customer gets the new invitation)."""
    booking = _booking_or_404(booking_id)
    picker = _picker(booking.division_id, booking.calendar_id) if booking.active else None
    form = MoveForm()
    if picker is not None:
        form.setup(picker.locations)
        if not form.is_submitted() and booking.location_id:
            form.location.data = str(booking.location_id)
    if picker is not None and form.validate_on_submit():
        try:
            svc.move(
                booking, picker.calendar, _chosen_slot(form.slot.data),
                _location(picker, form.location.data),
            )  # fmt: skip
        except svc.BookingError as error:
            form.slot.errors = [error.message]
            picker = _picker(booking.division_id, booking.calendar_id)
        else:
            invitation.mail(booking, "moved")
            audit.record("booking_moved", division_id=booking.division_id, booking=booking.id)
            db.session.commit()
            flash(
                _("The booking has moved and the customer has been sent the new time."), "success"
            )
            return redirect(url_for(".show", booking_id=booking.id))
    site = cal.site_of(booking.division_id)
    status = 422 if form.is_submitted() else 200
    with force_time_zone(site.zone):
        return render_template(
            "bookings/show.html", booking=booking, picker=picker, form=form,
            cancel_form=CancelForm(), zone=site.zone, vehicle_href=manage_path(booking.item),
        ), status  # fmt: skip


@bp.post("/bookings/<int:booking_id>/cancel")
def cancel(booking_id: int):
    """Cancel a booking; the customer gets the cancellation for their calendar."""
    booking = _booking_or_404(booking_id)
    if CancelForm().validate_on_submit() and booking.active:
        svc.cancel(booking)
        invitation.mail(booking, "cancelled")
        audit.record("booking_cancelled", division_id=booking.division_id, booking=booking.id)
        db.session.commit()
        flash(_("The booking is cancelled and the customer has been told."), "success")
    return redirect(url_for(".show", booking_id=booking.id))


# --- the calendars' day and week ----------------------------------------------------------------


@bp.get("/bookings")
def calendars():
    """The booking calendars of the user's divisions."""
    rows = cal.calendars_of(_division_ids())
    names = {d.id: d.name for d in viewer().visible_divisions}
    return render_template("bookings/calendars.html", calendars=rows, names=names)


@bp.get("/bookings/calendars/<int:calendar_id>")
def calendar_view(calendar_id: int):
    """One calendar's bookings by day or by week (?day=YYYY-MM-DD, ?week=YYYY-Www)."""
    row = cal.calendar_row(calendar_id)
    ids = _division_ids()
    if row is None or (row.division_id is not None and row.division_id not in ids):
        abort(404)
    division_id = row.division_id or (ids[0] if ids else None)
    zone = cal.site_of(division_id).zone if division_id else "UTC"
    view, first, days = calendar_period(request.args, cal.today_in(zone, utcnow()))
    start = cal.local_moment(zone, first, datetime.min.time())
    end = cal.local_moment(zone, first + timedelta(days=days), datetime.min.time())
    bookings = svc.between(start, end, division_ids=ids, calendar_id=calendar_id)
    tz = cal.pytz.timezone(zone)
    grouped: dict[date, list[Booking]] = {}
    for booking in bookings:
        grouped.setdefault(booking.starts_at.astimezone(tz).date(), []).append(booking)
    step = timedelta(days=days)
    nav = [first - step, first + step]
    links = [{"day": d.isoformat()} if view == "day" else {"week": iso_week(d)} for d in nav]
    with force_time_zone(zone):
        return render_template(
            "bookings/calendar.html", calendar=cal.Calendar.of(row), view=view, first=first,
            days=[first + timedelta(days=n) for n in range(days)], grouped=grouped, zone=zone,
            previous=links[0], following=links[1], week=iso_week(first),
            today=cal.today_in(zone, utcnow()),
        )  # fmt: skip


# --- what other pages show (the vehicle page, the delivery flow list) ----------------------------


@bp.app_template_global("vehicle_bookable")
def vehicle_bookable(item: PreparationItem) -> bool:
    return svc.bookable(item)


@bp.app_template_global("vehicle_bookings")
def vehicle_bookings(item_id: int) -> list[Booking]:
    """The vehicle's coming bookings, for its page."""
    return svc.of_item(item_id, utcnow())


@bp.app_template_global("booked_deliveries")
def booked_deliveries(item_ids) -> dict[int, Booking]:
    """Each listed vehicle's booked delivery, for the delivery flow list."""
    return svc.booked_deliveries(list(item_ids))
