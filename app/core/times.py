"""Times as people read them: one rule for every page and mail (issue 37, point 6).

Every moment is shown in the viewer's zone: Flask-Babel's, which follows the signed-in user's
choice or country (`app.core.i18n.current_time_zone`), a mail's recipient's (`force_time_zone`)
or a public page's visitor's (the page forces the zone it knows, the advert's country unless
the bidder's own is known). Where people from several zones read the same text (public pages,
mails) the zone is named after the time: "2026-11-28 14:00 (Helsinki, EET)".
"""

import re
from datetime import UTC, date, datetime, timedelta

from babel.dates import get_timezone_location
from flask_babel import format_datetime, get_locale, get_timezone

# Spec 02 section 9 writes dates y-MM-dd and times HH:mm.
PATTERNS = {
    "datetime": "y-MM-dd HH:mm",
    "date": "y-MM-dd",
    "time": "HH:mm",
    "seconds": "y-MM-dd HH:mm:ss",
}


def _aware(value: datetime) -> datetime:
    """SQLite gives naive datetimes back: they are UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def zone_name(value: datetime | None = None) -> str:
    """The viewer's zone as people say it at `value`: its city in their language and its
    abbreviation then ("Helsingfors, EET" in Swedish; "UTC" alone)."""
    zone = get_timezone()
    locale = get_locale()
    short = format_datetime(_aware(value or datetime.now(UTC)), "z")
    if str(zone) in ("UTC", "Etc/UTC"):
        return short
    return f"{get_timezone_location(zone, locale=locale, return_city=True)}, {short}"


def moment(value: datetime | None, part: str = "datetime", named: bool = False) -> str:
    """`value` in the viewer's zone as the spec writes it (`part`: datetime, date, time or
    seconds), followed by the zone's name when `named`. None reads as an empty string."""
    if value is None:
        return ""
    text = format_datetime(_aware(value), PATTERNS[part])
    return f"{text} ({zone_name(value)})" if named else text


def calendar_period(args, today: date) -> tuple[str, date, int]:
    """(view, first day, number of days) of a day-or-week page from ?day=YYYY-MM-DD or
    ?week=YYYY-Www; the week of `today` when neither is given or readable."""
    if raw := args.get("day", ""):
        try:
            return "day", date.fromisoformat(raw[:10]), 1
        except ValueError:
            pass
    if match := re.fullmatch(r"(\d{4})-W(\d{2})", args.get("week", "")):
        try:
            return "week", date.fromisocalendar(int(match[1]), int(match[2]), 1), 7
        except ValueError:
            pass
    return "week", today - timedelta(days=today.weekday()), 7


def iso_week(day: date) -> str:
    """The ?week= value of the week `day` is in (YYYY-Www)."""
    year, week, _weekday = day.isocalendar()
    return f"{year}-W{week:02d}"


def init_app(app) -> None:
    """`|moment` and `|zone_name` in every template, and `zone_name()` for the zone now: a filter
    on a constant (`none | zone_name`) would be folded by Jinja's compiler into the template,
    in the zone of the first request that compiled it."""
    app.add_template_filter(moment)
    app.add_template_filter(zone_name)
    app.add_template_global(zone_name)
