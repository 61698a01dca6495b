"""Working days: how the product counts days when the configuration says so (workingDays).

A working day is a Monday to Friday that is not a holiday of the vehicle's country (the
division's region's country) nor a holiday of every country (a row without a country), as the
admin enters them in admin/general/holidays. The days from a moment to another are the working
days whose date (UTC) comes after the first moment's and up to the second's: a vehicle that
changed state on Friday has one working day on Monday. Without the flag a day is 24 hours, as
before. docs/decisions.md, "Working days".

The counter is built once per request and instance (two queries: the instance's holidays and
its divisions' countries), then counts any number of rows without a query: weekdays by
arithmetic, holidays by bisection in the country's sorted list.
"""

from bisect import bisect_right
from collections.abc import Callable
from datetime import date, datetime

from flask import g, has_app_context
from sqlalchemy import select

from app.core.models import Division, Instance, Region
from app.core.settings import Holiday
from app.core.tenancy import active_instance_id
from app.extensions import db

FLAG = "workingDays"
DayCounter = Callable[[datetime | None, datetime, int | None], int]


def _weekdays_through(day: date) -> int:
    """Mondays to Fridays from 0001-01-01 (a Monday) through `day`."""
    n = day.toordinal()
    return n // 7 * 5 + min(n % 7, 5)


def working_days(start: date, end: date, holidays: list[date]) -> int:
    """Mondays to Fridays after `start` and up to `end` that are not in `holidays` (sorted,
    weekdays only)."""
    if end <= start:
        return 0
    off = bisect_right(holidays, end) - bisect_right(holidays, start)
    return _weekdays_through(end) - _weekdays_through(start) - off


def calendar_days(start: datetime | None, end: datetime, division_id: int | None = None) -> int:
    """Whole 24-hour days from `start` to `end` (the count without the flag)."""
    return 0 if start is None else max(0, (end - start).days)


class WorkingDays:
    """Working days per division, from the holidays of its country and of every country."""

    def __init__(self, holidays: list[tuple[date, int | None]], countries: dict[int, int]):
        common = [day for day, country in holidays if country is None]
        by_country: dict[int, list[date]] = {}
        for day, country in holidays:
            if country is not None:
                by_country.setdefault(country, []).append(day)
        self.version = hash(tuple(sorted(holidays, key=lambda h: (h[0], h[1] or 0))))
        self._common = sorted({d for d in common if d.weekday() < 5})
        self._lists = {
            division: sorted(
                {d for d in [*common, *by_country.get(country, [])] if d.weekday() < 5}
            )
            for division, country in countries.items()
        }

    def __call__(self, start: datetime | None, end: datetime, division_id: int | None = None):
        if start is None:
            return 0
        holidays = self._lists.get(division_id, self._common)
        return working_days(start.date(), end.date(), holidays)


def day_counter(instance) -> DayCounter:
    """How the instance counts days: working days when its configuration says so, kept for the
    request; else calendar days (no query)."""
    if instance is None or not instance.configuration(FLAG):
        return calendar_days
    key = ("working_days", instance.id)
    cache = g.setdefault("day_counters", {}) if has_app_context() else {}
    if key not in cache:
        holidays = [
            (row.day, row.country_id)
            for row in db.session.execute(select(Holiday.day, Holiday.country_id))
        ]
        countries = dict(
            db.session.execute(select(Division.id, Region.country_id).join(Region)).all()
        )
        cache[key] = WorkingDays(holidays, countries)
    return cache[key]


def active_counter() -> DayCounter:
    """How the active instance counts days (for services that have no instance at hand)."""
    instance_id = active_instance_id()
    return day_counter(db.session.get(Instance, instance_id) if instance_id is not None else None)


def average_days(count_days: DayCounter, rows) -> float | None:
    """The average of `count_days` over (start, end, division id) rows, to one decimal; None
    without rows. A row without a start counts 0 days."""
    days = [count_days(start, end, division_id) for start, end, division_id in rows]
    return round(sum(days) / len(days), 1) if days else None
