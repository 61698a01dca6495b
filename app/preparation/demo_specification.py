"""Demo specification fields and a service schedule: categories and properties named in the
seven languages, values on the vehicles in work, the Volvo schedule with its check-up tasks,
and the last services that make a few used Volvos due (their check-up tasks given)."""

import random
from datetime import timedelta

from app.core.models import utcnow
from app.core.settings import GlobalSettingRow
from app.core.tenancy import activate
from app.demo import seeder
from app.extensions import db
from app.preparation import service_due
from app.preparation.models import PreparationItem, VehiclePropertyValue

LANGS = ("sv-SE", "nb-NO", "fi-FI", "da-DK", "en-GB", "de-DE", "nl-NL")


def _names(*names: str) -> dict:
    return {f"name_{tag}": name for tag, name in zip(LANGS, names, strict=True)}


CATEGORIES = {
    "engine": _names("Motor", "Motor", "Moottori", "Motor", "Engine", "Motor", "Motor"),
    "size": _names("Mått och vikt", "Mål og vekt", "Mitat ja paino", "Mål og vægt",
                   "Dimensions and weight", "Maße und Gewicht", "Afmetingen en gewicht"),
    "equipment": _names("Utrustning", "Utstyr", "Varusteet", "Udstyr", "Equipment",
                        "Ausstattung", "Uitrusting"),
}  # fmt: skip
# key: (category, type, unit, names)
PROPERTIES = {
    "power": ("engine", "number", "kW", _names("Effekt", "Effekt", "Teho", "Effekt", "Power", "Leistung", "Vermogen")),
    "range": ("engine", "number", "km", _names("Räckvidd", "Rekkevidde", "Toimintamatka", "Rækkevidde", "Range", "Reichweite", "Actieradius")),
    "weight": ("size", "number", "kg", _names("Tjänstevikt", "Egenvekt", "Omamassa", "Egenvægt", "Kerb weight", "Leergewicht", "Rijklaar gewicht")),
    "length": ("size", "number", "mm", _names("Längd", "Lengde", "Pituus", "Længde", "Length", "Länge", "Lengte")),
    "towbar": ("equipment", "yesno", "", _names("Dragkrok", "Hengerfeste", "Vetokoukku", "Anhængertræk", "Tow bar", "Anhängerkupplung", "Trekhaak")),
    "tyres": ("equipment", "text", "", _names("Däck", "Dekk", "Renkaat", "Dæk", "Tyres", "Reifen", "Banden")),
}  # fmt: skip
CHECKUPS = (
    (_names("Byte av motorolja och filter", "Skift av motorolje og filter", "Moottoriöljyn ja suodattimen vaihto",
            "Skift af motorolie og filter", "Engine oil and filter change", "Motoröl- und Filterwechsel",
            "Motorolie en filter verversen"), 45),
    (_names("Bromskontroll", "Bremsekontroll", "Jarrujen tarkastus", "Bremsekontrol", "Brake inspection",
            "Bremsenprüfung", "Remmencontrole"), 30),
    (_names("Nollställ serviceindikatorn", "Nullstill serviceindikatoren", "Huoltomuistutuksen nollaus",
            "Nulstil serviceindikatoren", "Reset the service indicator", "Serviceanzeige zurücksetzen",
            "Onderhoudsindicator resetten"), 10),
)  # fmt: skip
# Per model: power kW, range km (electric and plug-in), kerb weight kg, length mm.
SPECS = {
    "XC60": (145, None, 1916, 4708), "V60": (257, 88, 2088, 4778), "EX30": (315, 460, 1960, 4233),
    "Golf": (110, None, 1320, 4284), "ID.4": (210, 550, 2124, 4584), "RAV4": (160, None, 1690, 4600),
    "Corolla": (103, None, 1420, 4650), "Niro": (150, 460, 1737, 4420), "Model Y": (378, 533, 1979, 4751),
    "Octavia": (110, None, 1453, 4698), "A4": (150, None, 1610, 4762), "X3": (215, 50, 1990, 4708),
    "GLC": (230, 100, 2170, 4716), "Kuga": (165, 56, 1844, 4614), "3008": (96, None, 1361, 4447),
}  # fmt: skip
TYRES = (
    "Michelin Pilot Sport 4 235/55 R18",
    "Nokian Hakkapeliitta R5 215/60 R17",
    "Continental EcoContact 6 205/55 R16",
)


def _rows() -> dict[str, GlobalSettingRow]:
    """The global categories, properties, schedule and check-up tasks (named in Swedish, with
    their names per language)."""
    made = {}
    for key, names in CATEGORIES.items():
        made[key] = GlobalSettingRow(kind="category", name=names["name_sv-SE"], data=dict(names))
    db.session.add_all(made.values())
    db.session.flush()
    for key, (category, kind, unit, names) in PROPERTIES.items():
        made[key] = GlobalSettingRow(
            kind="property", name=names["name_sv-SE"],
            data={"category": str(made[category].id), "type": kind, "unit": unit, **names},
        )  # fmt: skip
    made["schedule"] = GlobalSettingRow(
        kind="service_schedule", name="Volvo",
        description="Volvo: service var 30 000 km eller var tolfte månad.",
        data={"brand": "Volvo", "interval_km": 30000, "interval_months": 12},
    )  # fmt: skip
    db.session.add_all(made.values())
    db.session.flush()
    for names, minutes in CHECKUPS:
        db.session.add(
            GlobalSettingRow(
                kind="checkup_task", name=names["name_sv-SE"],
                data={"schedule": str(made["schedule"].id), "minutes": minutes, **names},
            )
        )  # fmt: skip
    db.session.flush()
    return made


def _values(rng: random.Random, item: PreparationItem, rows: dict) -> list[VehiclePropertyValue]:
    power, reach, weight, length = SPECS.get(item.model, (120, None, 1600, 4500))
    values = {"power": power, "weight": weight, "length": length, "range": reach,
              "towbar": rng.choice(("yes", "no")), "tyres": rng.choice(TYRES)}  # fmt: skip
    return [
        VehiclePropertyValue(instance_id=item.instance_id, item_id=item.id, property_id=rows[k].id, value=str(v))
        for k, v in values.items()
        if v is not None
    ]  # fmt: skip


@seeder(92)
def seed_specification_and_service(ctx: dict) -> None:
    """Specification values on the vehicles in work; last services of the used Volvos, some
    of them past the schedule's 30 000 km: due, with their check-up tasks."""
    rng = random.Random(20261206)  # noqa: S311 - demo data, the same every time
    rows = _rows()
    today = utcnow().date()
    for instance in ctx["instances"]:
        activate(instance.id)
        forced = False
        for item in ctx["items"][instance.id]:
            if item.state in (9, 1):
                continue
            db.session.add_all(_values(rng, item, rows))
            if item.brand == "Volvo" and item.module == "begcare" and item.mileage:
                run = 31_000 if not forced and item.state == 4 else rng.randint(1_000, 33_000)
                forced = forced or run >= 30_000
                item.last_service_mileage = max(0, item.mileage - run)
                item.last_service_on = today - timedelta(days=rng.randint(20, 330))
        db.session.flush()
        service_due.evaluate_instance(today)
    activate(None)
