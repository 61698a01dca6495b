"""Booking calendars as the administration enters them (admin/general/booking-calendars and
-locations, SettingRow kinds `booking_calendar` and `booking_location`), and the slots they offer.

A calendar is one division's (or, without a division, every division's). Its opening hours are
given per ISO weekday as "08:00-12:00, 13:00-17:00" (empty: closed); a slot lasts
`slot_minutes`, the next begins `buffer_minutes` after it ends, and slots are offered from now
up to `days_ahead` days ahead. The days off are the holidays of the division's country and those
of every country (admin/general/holidays). Times are local times of the division's zone (its
country's first zone in the IANA list), so a slot at 09:00 stays at 09:00 across a change of
daylight-saving time."""

import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

import pytz
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import or_, select

from app.core.i18n import DEFAULT_LOCALE, DEFAULT_TIME_ZONE
from app.core.localized import for_reader, instance_locale, localized
from app.core.models import Country, Division, Region
from app.core.settings import Holiday, SettingRow
from app.extensions import db

CALENDAR, LOCATION = "booking_calendar", "booking_location"
WEEKDAYS = (
    _l("Monday"), _l("Tuesday"), _l("Wednesday"), _l("Thursday"), _l("Friday"),
    _l("Saturday"), _l("Sunday"),
)  # fmt: skip
DEFAULT_SLOT, DEFAULT_AHEAD = 60, 30
_SPAN = re.compile(r"^\s*(\d{1,2})[:.](\d{2})\s*[-–]\s*(\d{1,2})[:.](\d{2})\s*$")

Hours = tuple[tuple[time, time], ...]


def parse_hours(text: str | None) -> Hours:
    """'08:00-12:00, 13:00-17:00' as ((08:00, 12:00), (13:00, 17:00)); empty: closed.
    ValueError for anything else (a time that does not exist, a span that ends before it
    begins, spans that overlap)."""
    spans = []
    for part in (text or "").split(","):
        if not part.strip():
            continue
        match = _SPAN.match(part)
        if not match:
            raise ValueError(part)
        h1, m1, h2, m2 = (int(g) for g in match.groups())
        if h2 == 24 and m2 == 0:
            h2, m2 = 23, 59
        begin, end = time(h1, m1), time(h2, m2)  # ValueError past 23:59
        if end <= begin:
            raise ValueError(part)
        spans.append((begin, end))
    spans.sort()
    if any(a[1] > b[0] for a, b in zip(spans, spans[1:], strict=False)):
        raise ValueError(text)
    return tuple(spans)


def hours_error(text: str | None) -> str | None:
    """The administration's refusal of an opening-hours field, translated; None when it reads."""
    try:
        parse_hours(text)
    except ValueError:
        return _("Write the hours as 08:00-17:00, several separated by commas, or leave it empty for closed.")  # fmt: skip
    return None


def _number(value, default: int, low: int, high: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return default
    return min(max(number, low), high)


@dataclass(frozen=True)
class Calendar:
    id: int
    name: str
    division_id: int | None
    slot_minutes: int
    buffer_minutes: int
    days_ahead: int
    hours: dict[int, Hours] = field(default_factory=dict)  # 0 = Monday

    @classmethod
    def of(cls, row: SettingRow) -> "Calendar":
        data = row.data or {}
        hours = {}
        for day in range(7):
            try:
                hours[day] = parse_hours(data.get(f"hours_{day + 1}"))
            except ValueError:
                hours[day] = ()
        return cls(
            id=row.id,
            name=for_reader(data.get("name_texts"), row.name),
            division_id=row.division_id,
            slot_minutes=_number(data.get("slot_minutes"), DEFAULT_SLOT, 5, 480),
            buffer_minutes=_number(data.get("buffer_minutes"), 0, 0, 240),
            days_ahead=_number(data.get("days_ahead"), DEFAULT_AHEAD, 1, 366),
            hours=hours,
        )

    def runs_for(self, division_id: int) -> bool:
        return self.division_id is None or self.division_id == division_id


def calendars_for(division_id: int) -> list[Calendar]:
    """The active calendars a vehicle of the division books on, by name."""
    rows = SettingRow.of_kind(
        CALENDAR, or_(SettingRow.division_id == division_id, SettingRow.division_id.is_(None))
    )
    return [Calendar.of(row) for row in rows]


def calendars_of(division_ids: list[int]) -> list[Calendar]:
    """The calendars of these divisions (and the instance's own), by name: those its staff run."""
    rows = SettingRow.of_kind(
        CALENDAR,
        or_(SettingRow.division_id.in_(division_ids), SettingRow.division_id.is_(None)),
        active_only=False,
    )
    return [Calendar.of(row) for row in rows]


def calendar_row(calendar_id: int) -> SettingRow | None:
    row = db.session.get(SettingRow, calendar_id)
    return row if row is not None and row.kind == CALENDAR else None


def calendar_choices() -> list[tuple[str, str]]:
    """Every calendar of the instance as (id, name), for the locations' screen."""
    rows = SettingRow.of_kind(CALENDAR, active_only=False)
    return [(str(row.id), for_reader((row.data or {}).get("name_texts"), row.name)) for row in rows]


def locations_of(calendar_id: int) -> list[SettingRow]:
    """The active places a calendar runs at, by name."""
    rows = SettingRow.of_kind(LOCATION)
    return [row for row in rows if str((row.data or {}).get("calendar")) == str(calendar_id)]


def location_name(location: SettingRow, locale: str | None = None) -> str:
    """A place's name (its "name_texts", one per language) in `locale`, else the company's
    language, else as written; without a `locale`, in the current reader's."""
    texts = (location.data or {}).get("name_texts")
    if locale is None:
        return for_reader(texts, location.name)
    return localized(texts, locale, instance_locale(location.instance_id), location.name)


def address_of(location: SettingRow | None, locale: str | None = None) -> str:
    """The place as a booking keeps it (its name in the customer's `locale`) and its address."""
    if location is None:
        return ""
    address = (location.data or {}).get("address") or ""
    name = location_name(location, locale)
    return f"{name}, {address}" if address else name


@dataclass(frozen=True)
class Site:
    """What a division's calendars need of it: its zone, language and country."""

    zone: str
    language: str
    country_id: int | None


def site_of(division_id: int) -> Site:
    row = db.session.execute(
        select(Country.id, Country.code, Country.locale)
        .join(Region, Region.country_id == Country.id)
        .join(Division, Division.region_id == Region.id)
        .where(Division.id == division_id)
    ).first()
    if row is None:
        return Site(DEFAULT_TIME_ZONE, DEFAULT_LOCALE, None)
    zones = pytz.country_timezones.get((row.code or "").upper()) or [DEFAULT_TIME_ZONE]
    return Site(zones[0], row.locale or DEFAULT_LOCALE, row.id)


def closed_days(site: Site, first: date, last: date) -> set[date]:
    """The holidays from `first` to `last` of the site's country and of every country."""
    return set(
        db.session.scalars(
            select(Holiday.day).where(
                Holiday.day >= first,
                Holiday.day <= last,
                or_(Holiday.country_id == site.country_id, Holiday.country_id.is_(None)),
            )
        )
    )


def local_moment(zone: str, day: date, at: time) -> datetime:
    """The UTC moment of a local time in the zone (a time that a spring change skips counts
    as the standard time's)."""
    tz = pytz.timezone(zone)
    return tz.normalize(tz.localize(datetime.combine(day, at))).astimezone(pytz.utc)


def day_starts(calendar: Calendar, zone: str, day: date) -> list[datetime]:
    """The UTC starts of the day's slots by its opening hours (holidays not considered)."""
    starts = []
    step = timedelta(minutes=calendar.slot_minutes + calendar.buffer_minutes)
    length = timedelta(minutes=calendar.slot_minutes)
    for begin, end in calendar.hours.get(day.weekday(), ()):
        at = datetime.combine(day, begin)
        while at + length <= datetime.combine(day, end):
            starts.append(local_moment(zone, day, at.time()))
            at += step
    return starts


def today_in(zone: str, now: datetime) -> date:
    return now.astimezone(pytz.timezone(zone)).date()


def bookable_days(calendar: Calendar, site: Site, now: datetime) -> list[date]:
    """The days from today up to the calendar's last that it is open (not a holiday)."""
    first = today_in(site.zone, now)
    last = first + timedelta(days=calendar.days_ahead)
    closed = closed_days(site, first, last)
    return [
        first + timedelta(days=n)
        for n in range((last - first).days + 1)
        if (first + timedelta(days=n)) not in closed
        and calendar.hours.get((first + timedelta(days=n)).weekday())
    ]


def offered_starts(calendar: Calendar, site: Site, day: date, now: datetime) -> list[datetime]:
    """The starts the calendar offers on `day`: in its opening hours, not on a holiday, after
    now and not beyond its days ahead. (Whether one is taken is the bookings' business.)"""
    first = today_in(site.zone, now)
    if not first <= day <= first + timedelta(days=calendar.days_ahead):
        return []
    if closed_days(site, day, day):
        return []
    return [start for start in day_starts(calendar, site.zone, day) if start > now]
