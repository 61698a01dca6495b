"""What bookings add to the shell's main menu: the booking calendars of the user's divisions."""

from flask_babel import lazy_gettext as _l

from app.shell.menu import Entry, main_entry, not_global


def _runs_vehicles(v) -> bool:
    """Bookings are made from vehicles: the staff of a vehicle module see the calendars."""
    return not_global(v) and bool({"begcare", "newcare"} & set(v.modules))


main_entry(
    Entry("bookings", _l("Bookings"), "/bookings", rule=_runs_vehicles, icon="calendar"),
    after="station",
)
