"""The slots a calendar offers over a whole year: never on a holiday of the division's country
(nor one of every country), never outside the opening hours, never shorter than a booking,
always the buffer apart, and at the same local time on both sides of a daylight-saving change."""

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from app.bookings import calendars as cal
from app.bookings import services as svc
from app.core.settings import Holiday, SettingRow
from app.core.tenancy import activate
from app.extensions import db

NOW = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)  # a Monday morning


@pytest.mark.parametrize("code", ["SE", "NO"])
def test_a_year_of_slots_keeps_to_the_opening_hours_and_skips_the_holidays(shop, code):
    activate(shop.instance_id)
    db.session.add(Holiday(day=date(2027, 1, 1), name="Every country's", country_id=None))
    db.session.flush()
    calendar = cal.Calendar.of(db.session.get(SettingRow, shop.calendars[code]))
    site = cal.site_of(shop.divisions[code])
    zone = ZoneInfo(site.zone)
    holidays = {
        "SE": {date(2026, 12, 24), date(2026, 12, 25)},
        "NO": {date(2027, 5, 17)},
    }[code] | {date(2027, 1, 1)}
    days = cal.bookable_days(calendar, site, NOW)
    assert days[0] == date(2026, 11, 30) and days[-1] <= date(2027, 12, 1)
    offered = 0
    for n in range(367):
        day = date(2026, 11, 30) + timedelta(days=n)
        slots = svc.slots_on(calendar, site, day, NOW)
        local = [s.start.astimezone(zone) for s in slots]
        if day in holidays or day.weekday() >= 5:
            assert slots == [] and day not in days, day
            continue
        assert day in days
        # 09:00-12:00 and 13:00-17:00, 45 minutes and 15 between: 09-11 and 13-16 on the hour.
        assert [t.time() for t in local] == [time(h) for h in (9, 10, 11, 13, 14, 15, 16)], day
        assert all(t.date() == day for t in local)
        assert all(not s.taken for s in slots)
        offered += len(slots)
    assert offered == 7 * len(days)
    # Beyond the days ahead nothing is offered.
    assert svc.slots_on(calendar, site, date(2027, 12, 2), NOW) == []
    activate(None)


def test_the_same_local_time_is_another_utc_hour_after_the_spring_change(shop):
    activate(shop.instance_id)
    calendar = cal.Calendar.of(db.session.get(SettingRow, shop.calendars["NO"]))
    site = cal.site_of(shop.divisions["NO"])
    assert site.zone == "Europe/Oslo"
    friday = svc.slots_on(calendar, site, date(2027, 3, 26), NOW)[0].start
    monday = svc.slots_on(calendar, site, date(2027, 3, 29), NOW)[0].start
    assert (friday.hour, monday.hour) == (8, 7)
    activate(None)


def test_a_slot_already_past_or_taken_is_not_free(shop):
    activate(shop.instance_id)
    calendar = cal.Calendar.of(db.session.get(SettingRow, shop.calendars["SE"]))
    site = cal.site_of(shop.divisions["SE"])
    noon = datetime(2026, 11, 30, 11, 30, tzinfo=UTC)  # 12:30 in Stockholm
    starts = [s.start.astimezone(ZoneInfo(site.zone)).time() for s in svc.slots_on(calendar, site, date(2026, 11, 30), noon)]  # fmt: skip
    assert starts == [time(13), time(14), time(15), time(16)]
    activate(None)


@pytest.mark.parametrize(
    "text", ["9-17", "17:00-09:00", "08:00-12:00, 11:00-13:00", "25:00-26:00", "08:00"]
)
def test_opening_hours_that_do_not_read_are_refused(app, text):
    with app.test_request_context():
        assert cal.hours_error(text)
    assert cal.hours_error("08:00-12:00, 13:00-17:00") is None
    assert cal.hours_error("") is None
