"""Bookings: test drives and deliveries of a vehicle on a division's booking calendar, mailed
to the customer with an iCalendar invitation, and the calendar's day and week for its staff."""

from flask import Blueprint

bp = Blueprint("bookings", __name__)

from app.bookings import menu, routes  # noqa: E402, F401
