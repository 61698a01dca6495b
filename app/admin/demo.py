"""The administration area's demo rows: a few of each simple setting, so its screens are not
empty, and one Swedish text of the invitation in the template engine (Nordbil)."""

from datetime import date

from app.admin.models import GlobalSettingRow, Holiday, SettingRow, Tag
from app.core.tenancy import activate
from app.demo import seeder
from app.extensions import db

HOLIDAYS = {
    "SE": [(date(2026, 12, 24), "Julafton"), (date(2026, 12, 25), "Juldagen"),
           (date(2026, 6, 19), "Midsommarafton")],
    "NO": [(date(2026, 12, 25), "1. juledag"), (date(2026, 5, 17), "Grunnlovsdag")],
}  # fmt: skip
INVITE_SV = (
    "<p>Hej {user_name}!</p><p>Välkommen till {company}. Välj ditt lösenord här:</p>"
    "<p>{reset_url}</p>"  # the system makes it the link (app.admin.mail_templates)
)


@seeder(90)
def seed_admin(ctx: dict) -> None:
    """Tags, holidays, a data provider, an event rule, a seller, a booking calendar per company;
    shared vehicle properties and a service interval."""
    for instance in ctx["instances"]:
        activate(instance.id)
        country = instance_country(instance)
        db.session.add_all(
            [
                Tag(name="Kampanj" if country == "SE" else "Kampanje", color="#c0392b"),
                Tag(name="Export" if country == "SE" else "Eksport", color="#2c7a7b"),
                *[Holiday(day=day, name=name) for day, name in HOLIDAYS.get(country, [])],
                SettingRow(kind="provider", name="Bilregistret", data={"url": "https://api.example.test/regno", "provider": "Registry"}),
                SettingRow(kind="event", name="Såld bil: avisera anläggningen", data={"event": "vehicle_sold", "action": "notify", "target": ""}),
                SettingRow(kind="seller", name="Kalle Säljare", data={"email": "kalle@example.test", "phone": "", "division": ""}),
                SettingRow(kind="booking_calendar", name="Leveranser", data={"slot_minutes": 45, "division": ""}),
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
    db.session.add_all(
        [
            GlobalSettingRow(kind="property", name="Dragkrok", data={"unit": ""}),
            GlobalSettingRow(kind="property", name="Räckvidd", data={"unit": "km"}),
            GlobalSettingRow(kind="category", name="Utrustning", data={}),
            GlobalSettingRow(kind="service_schedule", name="Volvo", data={"brand": "Volvo", "interval_km": 30000, "interval_months": 12}),
        ]
    )  # fmt: skip
    db.session.flush()


def instance_country(instance) -> str:
    from sqlalchemy import select

    from app.core.models import Country

    return db.session.scalar(select(Country.code).where(Country.instance_id == instance.id))
