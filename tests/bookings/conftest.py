"""A dealership with a Swedish and a Norwegian division, a booking calendar in each (weekdays
09:00-12:00 and 13:00-17:00, 45 minutes and 15 between, a year ahead), a showroom, a vehicle in
each, and a salesperson of both divisions."""

from dataclasses import dataclass
from datetime import date

import pytest

from app.bookings import calendars as cal
from app.core.models import Country, Division, Instance, Region
from app.core.settings import Holiday, SettingRow
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import PreparationItem
from tests.factories import make_user
from tests.shell.conftest import as_demo, demo_user  # noqa: F401

HOURS = {f"hours_{n}": "09:00-12:00, 13:00-17:00" for n in range(1, 6)}
HOLIDAYS = {"SE": [date(2026, 12, 24), date(2026, 12, 25)], "NO": [date(2027, 5, 17)]}


@dataclass
class Shop:
    instance_id: int
    user_id: int
    divisions: dict  # country code -> division id
    calendars: dict  # country code -> calendar row id
    places: dict  # country code -> location row id
    items: dict  # country code -> item id


def make_shop(tag: str = "shop", state: int = 6) -> Shop:
    instance = Instance(company_name=f"Bilhuset {tag}")
    db.session.add(instance)
    db.session.flush()
    activate(instance.id)
    shop = Shop(instance.id, 0, {}, {}, {}, {})
    for code, name, locale in (("SE", "Sverige", "sv-SE"), ("NO", "Norge", "nb-NO")):
        country = Country(code=code, name=name, currency="SEK", locale=locale, milage_unit="km")
        region = Region(name=f"{name} {tag}", slug=f"{code}-{tag}", country=country)
        division = Division(name=f"Bilhuset {name}", slug=f"bh-{code}-{tag}", region=region)
        db.session.add_all([country, region, division])
        db.session.flush()
        db.session.add_all(
            Holiday(day=d, name="Helgdag", country_id=country.id) for d in HOLIDAYS[code]
        )
        calendar = SettingRow(
            kind=cal.CALENDAR, name=f"Provkörningar {code}", division_id=division.id,
            data={"slot_minutes": 45, "buffer_minutes": 15, "days_ahead": 366, **HOURS},
        )  # fmt: skip
        db.session.add(calendar)
        db.session.flush()
        place = SettingRow(
            kind=cal.LOCATION, name="Utställningshallen",
            data={"calendar": str(calendar.id), "address": "Bilgatan 1"},
        )  # fmt: skip
        item = PreparationItem(
            module="begcare", division_id=division.id, state=state, regno=f"{code}{tag[:3].upper()}123",
            brand="Volvo", model="XC60",
        )  # fmt: skip
        db.session.add_all([place, item])
        db.session.flush()
        shop.divisions[code], shop.calendars[code] = division.id, calendar.id
        shop.places[code], shop.items[code] = place.id, item.id
    user = make_user(
        db.session.get(Instance, instance.id), modules=["begcare"], all_divisions=True,
        options={"language": "en-GB"},
    )  # fmt: skip
    shop.user_id = user.id
    activate(None)
    return shop


@pytest.fixture
def shop(app):
    return make_shop()
