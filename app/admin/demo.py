"""The administration area's demo rows: a few of each simple setting, so its screens are not
empty, and one Swedish text of the invitation in the template engine (Nordbil)."""

from datetime import date

from sqlalchemy import select

from app.admin.models import Tag
from app.core.models import Country
from app.core.settings import Address, Holiday, SettingRow
from app.core.tenancy import activate
from app.core.workdays import FLAG
from app.demo import seeder
from app.extensions import db
from app.preparation.demo_names import name_texts
from app.providers.demo import demo_providers

# The public holidays of the demo year (and the Christmas of the year before, which the demo's
# year of history reaches), from the Swedish and Norwegian calendars; the Swedish eves are the
# days off of Swedish dealers. Weekend days are kept as the calendars list them.
# The demo's valuation action's button in every language (entered content, app.core.localized).
VALUE_THE_CAR = {
    "sv-SE": "Värdera bilen", "nb-NO": "Verdivurder bilen", "fi-FI": "Arvioi auton arvo",
    "da-DK": "Vurdér bilen", "en-GB": "Value the car", "de-DE": "Fahrzeug bewerten",
    "nl-NL": "Auto taxeren",
}  # fmt: skip
HOLIDAYS = {
    "SE": [
        (date(2025, 12, 24), "Julafton"), (date(2025, 12, 25), "Juldagen"),
        (date(2025, 12, 26), "Annandag jul"), (date(2025, 12, 31), "Nyårsafton"),
        (date(2026, 1, 1), "Nyårsdagen"), (date(2026, 1, 6), "Trettondedag jul"),
        (date(2026, 4, 3), "Långfredagen"), (date(2026, 4, 5), "Påskdagen"),
        (date(2026, 4, 6), "Annandag påsk"), (date(2026, 5, 1), "Första maj"),
        (date(2026, 5, 14), "Kristi himmelsfärdsdag"), (date(2026, 5, 24), "Pingstdagen"),
        (date(2026, 6, 6), "Sveriges nationaldag"), (date(2026, 6, 19), "Midsommarafton"),
        (date(2026, 6, 20), "Midsommardagen"), (date(2026, 10, 31), "Alla helgons dag"),
        (date(2026, 12, 24), "Julafton"), (date(2026, 12, 25), "Juldagen"),
        (date(2026, 12, 26), "Annandag jul"), (date(2026, 12, 31), "Nyårsafton"),
    ],
    "NO": [
        (date(2025, 12, 25), "1. juledag"), (date(2025, 12, 26), "2. juledag"),
        (date(2026, 1, 1), "1. nyttårsdag"), (date(2026, 4, 2), "Skjærtorsdag"),
        (date(2026, 4, 3), "Langfredag"), (date(2026, 4, 5), "1. påskedag"),
        (date(2026, 4, 6), "2. påskedag"), (date(2026, 5, 1), "Offentlig høytidsdag"),
        (date(2026, 5, 14), "Kristi himmelfartsdag"), (date(2026, 5, 17), "Grunnlovsdag"),
        (date(2026, 5, 24), "1. pinsedag"), (date(2026, 5, 25), "2. pinsedag"),
        (date(2026, 12, 25), "1. juledag"), (date(2026, 12, 26), "2. juledag"),
    ],
}  # fmt: skip
INVITE_SV = (
    "<p>Hej {user_name}!</p><p>Välkommen till {company}. Välj ditt lösenord här:</p>"
    "<p>{reset_url}</p>"  # the system makes it the link (app.admin.mail_templates)
)


# Each division's address (street, postcode, city) and each company's central store.
ADDRESSES = {
    "Nordbil Solna": ("Bilgatan 1", "171 45", "Solna"),
    "Nordbil Södertälje": ("Verkstadsvägen 4", "151 38", "Södertälje"),
    "Nordbil Göteborg": ("Hisingsgatan 12", "417 03", "Göteborg"),
    "Nordbil Borås": ("Bilvägen 7", "504 30", "Borås"),
    "Fjordauto Oslo Sentrum": ("Bilveien 1", "0150", "Oslo"),
    "Fjordauto Lillestrøm": ("Storgata 20", "2000", "Lillestrøm"),
    "Fjordauto Bergen": ("Fjordveien 3", "5003", "Bergen"),
    "Fjordauto Voss": ("Vangsgata 8", "5700", "Voss"),
}
CENTRAL = {
    "Nordbil AB": ("Centrallagret", "Lagervägen 2", "175 61", "Järfälla"),
    "Fjordauto AS": ("Sentrallageret", "Lagerveien 5", "2013", "Skjetten"),
}


@seeder(26)
def seed_addresses(ctx: dict) -> None:
    """Each division's address and the company's central store (the whole instance's): where
    the adverts' cars stand and where deliveries hand them over."""
    for instance in ctx["instances"]:
        activate(instance.id)
        for division in sorted(ctx["divisions"].values(), key=lambda d: d.id):
            if division.instance_id == instance.id and division.name in ADDRESSES:
                street, postcode, city = ADDRESSES[division.name]
                db.session.add(
                    Address(name=division.name, street=street, postcode=postcode, city=city,
                            division_id=division.id)
                )  # fmt: skip
        name, street, postcode, city = CENTRAL[instance.company_name]
        db.session.add(Address(name=name, street=street, postcode=postcode, city=city))
        db.session.flush()
    activate(None)


@seeder(90)
def seed_admin(ctx: dict) -> None:
    """Tags, holidays, a data provider, an event rule, a booking calendar per company
    (the shared specification fields and service schedule: app/preparation/demo_specification.py;
    the salespeople: app/preparation/demo.py)."""
    for instance in ctx["instances"]:
        activate(instance.id)
        country, country_id = instance_country(instance)
        # Days are counted as the dealers count them: working days of their country.
        instance.options = {
            **(instance.options or {}),
            "configuration": {**(instance.options or {}).get("configuration", {}), FLAG: True},
        }
        db.session.add_all(
            [
                *[Tag(name=name, name_texts=name_texts(name), color=color) for name, color in (
                    ("Kampanj" if country == "SE" else "Kampanje", "#c0392b"),
                    ("Export" if country == "SE" else "Eksport", "#2c7a7b"))],
                *[Holiday(day=day, name=name, country_id=country_id) for day, name in HOLIDAYS.get(country, [])],
                *demo_providers(),
                SettingRow(kind="event", name="Såld bil: avisera anläggningen", data={"event": "vehicle_sold", "action": "notify", "target": ""}),
                SettingRow(kind="booking_calendar", name="Leveranser", data={"slot_minutes": 45, "division": ""}),
                SettingRow(kind="action", name="Värdering" if country == "SE" else "Verdivurdering", data={"label": "Värdera bilen" if country == "SE" else "Verdivurder bilen", "label_texts": VALUE_THE_CAR, "url": "https://valuation.example.test/estimate?regno={regno}&vin={vin}&km={mileage}"}),
            ]
        )  # fmt: skip
        if country == "SE":
            db.session.add(
                SettingRow(
                    kind="email_template", name="Välkommen till {company}",
                    description=INVITE_SV, data={"template": "admin_invite", "language": "sv-SE"},
                )
            )  # fmt: skip
        db.session.flush()  # stamped with the active instance
    activate(None)


def instance_country(instance) -> tuple[str, int]:
    """The code and id of the instance's country."""
    found = db.session.execute(
        select(Country.code, Country.id).where(Country.instance_id == instance.id)
    ).first()
    return found.code, found.id
