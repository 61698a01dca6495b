"""Demo bookings: a calendar with a showroom address in every division of both companies, the
company's delivery calendar given opening hours, and test drives and deliveries booked on the
coming working days (relative to the day the demo is loaded)."""

from sqlalchemy import select

from app.bookings import calendars as cal
from app.bookings import services as svc
from app.core import addresses
from app.core.models import Division, utcnow
from app.core.settings import SettingRow
from app.core.tenancy import activate
from app.demo import seeder
from app.extensions import db
from app.preparation.demo_names import name_texts
from app.preparation.models import PreparationItem

WEEK = {f"hours_{n}": "09:00-12:00, 13:00-17:00" for n in range(1, 6)} | {"hours_6": "10:00-14:00"}
CUSTOMERS = (
    ("Anna Lindqvist", "anna.lindqvist@example.test", "+46 70 123 45 67", "sv-SE"),
    ("Ola Nordmann", "ola.nordmann@example.test", "+47 912 34 567", "nb-NO"),
    ("Emma Virtanen", "emma.virtanen@example.test", "", "fi-FI"),
    ("James Walker", "james.walker@example.test", "+44 7700 900123", None),
)


# A calendar's name in every language: "Test drives" and the division's name.
TEST_DRIVES = {
    "sv-SE": "Provkörningar", "nb-NO": "Prøvekjøringer", "fi-FI": "Koeajot", "da-DK": "Prøveture",
    "en-GB": "Test drives", "de-DE": "Probefahrten", "nl-NL": "Proefritten",
}  # fmt: skip


def _calendar(division: Division, swedish: bool) -> tuple[SettingRow, SettingRow]:
    texts = {tag: f"{word} {division.name}" for tag, word in TEST_DRIVES.items()}
    name = texts["sv-SE" if swedish else "nb-NO"]
    row = SettingRow(
        kind=cal.CALENDAR, name=name, division_id=division.id,
        description="Provkörningar och leveranser" if swedish else "Prøvekjøringer og leveranser",
        data={"slot_minutes": 45, "buffer_minutes": 15, "days_ahead": 30, "name_texts": texts,
              **WEEK},
    )  # fmt: skip
    db.session.add(row)
    db.session.flush()
    street = "Bilgatan 1" if swedish else "Bilveien 1"
    name = "Utställningshallen" if swedish else "Utstillingshallen"
    place = SettingRow(
        kind=cal.LOCATION, name=name,
        data={"calendar": str(row.id), "address": f"{street}, {division.name}",
              "name_texts": name_texts(name)},
    )  # fmt: skip
    db.session.add(place)
    return row, place


def _delivery_address(item: PreparationItem) -> int | None:
    """A delivery is handed over at the division's address (app.core.addresses)."""
    if item.state != svc.DELIVERY_FLOW:
        return None
    found = addresses.first_of(item.division_id)
    return found.id if found else None


@seeder(95)
def seed_bookings(ctx: dict) -> None:
    """Calendars in every division and a few bookings in each company."""
    now = utcnow()
    maker = ctx["users"]["admin@demo.test"]
    for instance in ctx["instances"]:
        activate(instance.id)
        divisions = list(db.session.scalars(select(Division).order_by(Division.id)))
        swedish = cal.site_of(divisions[0].id).zone == "Europe/Stockholm"
        for delivery in db.session.scalars(
            select(SettingRow).where(SettingRow.kind == cal.CALENDAR)
        ):
            delivery.data = {**(delivery.data or {}), "slot_minutes": 60, "days_ahead": 60, **WEEK}
        for n, division in enumerate(divisions):
            row, place = _calendar(division, swedish)
            db.session.flush()
            calendar, site = cal.Calendar.of(row), cal.site_of(division.id)
            items = [
                db.session.scalars(
                    select(PreparationItem)
                    .where(PreparationItem.division_id == division.id, *where)
                    .order_by(PreparationItem.id)
                    .limit(1)
                ).first()
                for where in ((PreparationItem.state.in_((2, 6)),), (PreparationItem.state == 8,))
            ]
            items = [item for item in items if item is not None]
            days = cal.bookable_days(calendar, site, now)[1:]
            for k, item in enumerate(items):
                free = [s.start for s in svc.slots_on(calendar, site, days[k], now) if not s.taken]
                name, email, phone, language = CUSTOMERS[(n + k) % len(CUSTOMERS)]
                svc.book(
                    item, calendar, "delivery" if item.state == svc.DELIVERY_FLOW else "test_drive",
                    free[(n + 2 * k) % len(free)], place,
                    svc.Customer(name, email, phone, language), maker.id, now,
                    address_id=_delivery_address(item),
                )  # fmt: skip
        db.session.flush()
    activate(None)
