"""Demo vehicles: both modules, every state, with a year of state history."""

import random
import uuid
from datetime import timedelta

from app.core import audit
from app.core.models import utcnow
from app.core.settings import SettingRow, Tag
from app.core.tenancy import activate
from app.demo import seeder
from app.extensions import db
from app.preparation import locations, salespeople
from app.preparation.demo_names import name_texts
from app.preparation.models import (
    CustomList,
    CustomListItem,
    DynamicList,
    ItemStateEvent,
    ItemStationTask,
    ItemTag,
    Location,
    PreparationItem,
    StateButton,
    Station,
    StationGroup,
    StationPackage,
    StationPackageStep,
    user_stations,
)
from app.preparation.services import add_item, move_item

CARS = [
    ("Volvo", "XC60", "B4 AWD", "Diesel"),
    ("Volvo", "V60", "T6 Recharge", "Plug-in hybrid"),
    ("Volvo", "EX30", "Twin Motor", "Electric"),
    ("Volkswagen", "Golf", "1.5 eTSI", "Petrol"),
    ("Volkswagen", "ID.4", "Pro", "Electric"),
    ("Toyota", "RAV4", "2.5 Hybrid", "Hybrid"),
    ("Toyota", "Corolla", "Touring Sports", "Hybrid"),
    ("Kia", "Niro", "EV", "Electric"),
    ("Tesla", "Model Y", "Long Range", "Electric"),
    ("Skoda", "Octavia", "Combi 2.0 TDI", "Diesel"),
    ("Audi", "A4", "Avant 40 TDI", "Diesel"),
    ("BMW", "X3", "xDrive30e", "Plug-in hybrid"),
    ("Mercedes-Benz", "GLC", "300e 4MATIC", "Plug-in hybrid"),
    ("Ford", "Kuga", "2.5 PHEV", "Plug-in hybrid"),
    ("Peugeot", "3008", "1.2 PureTech", "Petrol"),
]
COLOURS = ["Black", "White", "Silver", "Grey", "Blue", "Red", "Green"]
# Items per instance and module; each lands in a state drawn with these weights.
PER_MODULE = {"Nordbil AB": 160, "Fjordauto AS": 60}
STATE_WEIGHTS = {1: 6, 2: 10, 3: 8, 4: 18, 5: 5, 6: 16, 7: 7, 8: 6, 9: 24}


def _regno(rng: random.Random, country: str) -> str:
    letters = "ABCDEFGHJKLMNPRSTUWXYZ"
    head = "".join(rng.choice(letters) for _ in range(3 if country == "SE" else 2))
    return f"{head}{rng.randint(10, 99)}{rng.choice(letters) if country == 'SE' else rng.randint(100, 999)}"


def _vin(rng: random.Random) -> str:
    return "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ0123456789") for _ in range(17))


# The allowed transitions (state buttons) of both modules: (from, to, title).
STATE_BUTTONS = [
    (1, 2, "Register as incoming"), (2, 3, "Await preparation"), (3, 4, "Start preparation"),
    (4, 5, "Park"), (5, 4, "Resume preparation"), (4, 6, "Move to showroom"),
    (6, 7, "Mark as sold"), (7, 8, "Start delivery"), (8, 9, "Delivered, archive"),
    (1, 9, "Archive"), (2, 9, "Archive"), (3, 9, "Archive"), (6, 4, "Back to preparation"),
]  # fmt: skip
# Each state button's title as the demo's administrators entered it in every language (entered
# content, app.core.localized): sv-SE, nb-NO, fi-FI, da-DK, de-DE, nl-NL; en-GB is the title.
BUTTON_TEXTS = {
    "Register as incoming": ("Registrera som inkommande", "Registrer som innkommende", "Kirjaa saapuvaksi", "Registrér som indgående", "Als Eingang erfassen", "Registreren als binnenkomend"),
    "Await preparation": ("Vänta på iordningställande", "Vent på klargjøring", "Odottaa kunnostusta", "Afvent klargøring", "Auf Aufbereitung warten", "Wachten op voorbereiding"),
    "Start preparation": ("Starta iordningställande", "Start klargjøring", "Aloita kunnostus", "Start klargøring", "Aufbereitung starten", "Voorbereiding starten"),
    "Park": ("Parkera", "Parker", "Pysäköi", "Parkér", "Parken", "Parkeren"),
    "Resume preparation": ("Återuppta iordningställande", "Gjenoppta klargjøring", "Jatka kunnostusta", "Genoptag klargøring", "Aufbereitung fortsetzen", "Voorbereiding hervatten"),
    "Move to showroom": ("Flytta till showroom", "Flytt til showroom", "Siirrä näyttelyyn", "Flyt til showroom", "In die Ausstellung", "Naar showroom"),
    "Mark as sold": ("Markera som såld", "Merk som solgt", "Merkitse myydyksi", "Markér som solgt", "Als verkauft markieren", "Markeren als verkocht"),
    "Start delivery": ("Starta leverans", "Start levering", "Aloita toimitus", "Start levering", "Auslieferung starten", "Levering starten"),
    "Delivered, archive": ("Levererad, arkivera", "Levert, arkiver", "Toimitettu, arkistoi", "Leveret, arkivér", "Ausgeliefert, archivieren", "Geleverd, archiveren"),
    "Archive": ("Arkivera", "Arkiver", "Arkistoi", "Arkivér", "Archivieren", "Archiveren"),
    "Back to preparation": ("Tillbaka till iordningställande", "Tilbake til klargjøring", "Takaisin kunnostukseen", "Tilbage til klargøring", "Zurück zur Aufbereitung", "Terug naar voorbereiding"),
}  # fmt: skip
TEXT_TAGS = ("sv-SE", "nb-NO", "fi-FI", "da-DK", "de-DE", "nl-NL")


def _button_texts(title: str) -> dict:
    return {"en-GB": title, **dict(zip(TEXT_TAGS, BUTTON_TEXTS[title], strict=True))}


STATIONS = {  # per country: module -> [(group, name, target minutes)]
    "SE": {
        "begcare": [("Verkstad", "Mekanisk kontroll", 120), ("Verkstad", "Lackering och bucklor", 180),
                    ("Rekond", "Tvätt", 45), ("Rekond", "Invändig rekond", 60), ("Rekond", "Fotografering", 30)],
        "newcare": [("Verkstad", "Leveranskontroll (PDI)", 90), ("Verkstad", "Tillbehörsmontering", 120),
                    ("Rekond", "Tvätt", 45), ("Rekond", "Fotografering", 30)],
    },
    "NO": {
        "begcare": [("Verksted", "Mekanisk kontroll", 120), ("Verksted", "Karosseri", 180),
                    ("Klargjøring", "Vask", 45), ("Klargjøring", "Innvendig rengjøring", 60), ("Klargjøring", "Fotografering", 30)],
        "newcare": [("Verksted", "Leveringskontroll (PDI)", 90), ("Verksted", "Tilbehørsmontering", 120),
                    ("Klargjøring", "Vask", 45), ("Klargjøring", "Fotografering", 30)],
    },
}  # fmt: skip
PACKAGES = {  # module -> [(name, indexes into the module's stations)]
    "begcare": [("Standard", [0, 2, 3, 4]), ("Full reconditioning", [0, 1, 2, 3, 4])],
    "newcare": [("New car delivery", [0, 1, 2, 3])],
}
# The places of each division, in the company's language (a dealer names its own places).
LOCATIONS = {
    "SE": [
        ("parking", "P1 Framsidan"),
        ("parking", "P2 Baksidan"),
        ("parking", "Verkstadsgården"),
        ("key", "Nyckelskåp"),
        ("key", "Receptionen"),
        ("delivery", "Leveranshallen"),
    ],
    "NO": [
        ("parking", "P1 Forsiden"),
        ("parking", "P2 Baksiden"),
        ("key", "Nøkkelskap"),
        ("key", "Resepsjonen"),
        ("delivery", "Leveringshallen"),
    ],
}


def _wash_station(ctx: dict, user) -> Station:
    """The begcare wash (Tvätt) of the user's home instance: the demo station user's station."""
    return next(s for s in ctx["stations"][(user.home_instance_id, "begcare")] if s.name == "Tvätt")


@seeder(28)
def seed_configuration(ctx: dict) -> None:
    """State buttons, stations, packages and locations of both modules."""
    ctx["packages"], ctx["stations"] = {}, {}
    for instance in ctx["instances"]:
        activate(instance.id)
        country = "SE" if instance.company_name == "Nordbil AB" else "NO"
        divisions = [d for d in ctx["divisions"].values() if d.instance_id == instance.id]
        for module in ("begcare", "newcare"):
            for n, (src, dst, title) in enumerate(STATE_BUTTONS):
                db.session.add(
                    StateButton(
                        module=module,
                        from_state=src,
                        to_state=dst,
                        title=title,
                        title_texts=_button_texts(title),
                        ordering=n,
                    )  # fmt: skip
                )
            groups, stations = {}, []
            for n, (group_name, name, minutes) in enumerate(STATIONS[country][module]):
                if group_name not in groups:
                    groups[group_name] = StationGroup(
                        module=module, name=group_name, name_texts=name_texts(group_name)
                    )
                    db.session.add(groups[group_name])
                station = Station(
                    module=module,
                    name=name,
                    name_texts=name_texts(name),
                    group=groups[group_name],
                    target_minutes=minutes,
                    ordering=n,
                )
                db.session.add(station)
                stations.append(station)
            db.session.flush()
            ctx["stations"][(instance.id, module)] = stations
            packages = []
            for name, indexes in PACKAGES[module]:
                package = StationPackage(module=module, name=name, name_texts=name_texts(name))
                package.steps = [
                    StationPackageStep(
                        station_id=stations[i].id, ordering=k, instance_id=instance.id
                    )
                    for k, i in enumerate(indexes)
                ]
                db.session.add(package)
                packages.append(package)
            for division in divisions:
                for kind, name in LOCATIONS[country]:
                    db.session.add(Location(module=module, kind=kind, name=name, name_texts=name_texts(name),
                                            division_id=division.id))  # fmt: skip
            db.session.flush()
            ctx["packages"][(instance.id, module)] = packages
    station_user = ctx["users"]["station@demo.test"]
    wash = _wash_station(ctx, station_user)
    db.session.execute(user_stations.insert().values(user_id=station_user.id, station_id=wash.id))
    activate(None)


# Nordbil's add wizard for new vehicles: the step titles in every language of the product.
WIZARD_STEPS = (
    ({"sv-SE": "Fordonet", "nb-NO": "Kjøretøyet", "fi-FI": "Ajoneuvo", "da-DK": "Køretøjet",
      "en-GB": "The vehicle", "de-DE": "Das Fahrzeug", "nl-NL": "Het voertuig"},
     ("division_id", "vin", "regno", "brand", "model", "model_year", "color", "mileage")),
    ({"sv-SE": "Pris och iordningställande", "nb-NO": "Pris og klargjøring",
      "fi-FI": "Hinta ja kunnostus", "da-DK": "Pris og klargøring", "en-GB": "Price and preparation",
      "de-DE": "Preis und Aufbereitung", "nl-NL": "Prijs en voorbereiding"},
     ("sales_price", "package_id")),
    ({"sv-SE": "Var den står", "nb-NO": "Hvor den står", "fi-FI": "Missä se on",
      "da-DK": "Hvor den står", "en-GB": "Where it is", "de-DE": "Wo es steht",
      "nl-NL": "Waar het staat"},
     ("parking_location_id", "key_location_id")),
)  # fmt: skip


@seeder(29)
def seed_wizard(ctx: dict) -> None:
    """Nordbil's add wizard for new vehicles: the VIN required, the mileage starting at 0."""
    instance = next(i for i in ctx["instances"] if i.company_name == "Nordbil AB")
    activate(instance.id)
    fields = {"vin": {"required": True}, "mileage": {"default": "0"}}
    steps = [
        {"title": titles, "fields": [{"key": k, **fields.get(k, {})} for k in keys]}
        for titles, keys in WIZARD_STEPS
    ]
    db.session.add(
        SettingRow(kind="newcare.wizard", name="Nybilsintag", data={"steps": steps},
                   description="Nya bilar kommer med chassinummer; mätarställningen börjar på 0.")
    )  # fmt: skip
    db.session.flush()
    activate(None)


def _tasks(rng: random.Random, item: PreparationItem, package: StationPackage, now) -> None:
    """Station tasks for an item: done before it left the flow, part-way while in it."""
    steps = package.steps
    if item.state in (1, 2, 3):
        done = 0
    elif item.state in (4, 5):
        done = rng.randint(0, len(steps) - 1)
    else:
        done = len(steps)
    when = item.state_changed_at
    for k, step in enumerate(steps):
        task = ItemStationTask(
            instance_id=item.instance_id, item_id=item.id, station_id=step.station_id,
            ordering=k, target_minutes=step.station.target_minutes,
        )  # fmt: skip
        if k < done:
            task.status = "done"
            task.started_at = when - timedelta(hours=(len(steps) - k) * 6)
            task.finished_at = task.started_at + timedelta(
                minutes=step.station.target_minutes * rng.uniform(0.6, 1.6)
            )
        elif k == done and item.state == 4:
            task.status = "active"
            task.started_at = now - timedelta(
                minutes=rng.randint(10, step.station.target_minutes * 2)
            )
            if (now - task.started_at).total_seconds() > step.station.target_minutes * 60:
                item.warning = True  # overdue at its station
        db.session.add(task)


@seeder(30)
def seed_items(ctx: dict) -> None:
    """Vehicles over every state of both modules, with history reaching back a year."""
    rng = random.Random(20261122)  # noqa: S311 - demo data, the same every time
    now = utcnow().replace(minute=0, second=0, microsecond=0)
    seller = ctx["users"]["seller@demo.test"]
    ctx["items"] = {}
    for instance in ctx["instances"]:
        activate(instance.id)
        country = "SE" if instance.company_name == "Nordbil AB" else "NO"
        divisions = [d for d in ctx["divisions"].values() if d.instance_id == instance.id]
        items = []
        for module in ("begcare", "newcare"):
            for n in range(PER_MODULE[instance.company_name]):
                # The first nine cover every state; the rest follow the weights.
                target = (
                    n + 1
                    if n < 9
                    else rng.choices(list(STATE_WEIGHTS), weights=list(STATE_WEIGHTS.values()))[0]
                )
                brand, model, series, fuel = rng.choice(CARS)
                # Sold and archived vehicles spread over the year; the ones still in work are recent.
                age = rng.randint(2, 365) if target >= 7 else rng.randint(2, 75)
                started = now - timedelta(days=age, hours=rng.randint(0, 23))
                used = module == "begcare"
                purchase = rng.randrange(90_000, 520_000, 500) if used else None
                item = PreparationItem(
                    instance_id=instance.id, module=module, division=rng.choice(divisions),
                    division_id=None, state=1 if target == 1 else 2, state_changed_at=started,
                    regno=_regno(rng, country), vin=_vin(rng), brand=brand, model=model,
                    model_series=series, model_year=rng.randint(2016, 2025) if used else 2026,
                    fuel_type=fuel, color=rng.choice(COLOURS),
                    mileage=rng.randrange(8_000, 190_000, 10) if used else rng.randint(5, 60),
                    purchase_price=purchase,
                    sales_price=(purchase or rng.randrange(300_000, 700_000, 500)) * 1.18,
                    warning=rng.random() < 0.06,
                )  # fmt: skip
                item.division_id = item.division.id
                add_item(item, seller.id if instance.id == seller.home_instance_id else None)
                # Walk the item forward through the states up to its target, spread over time.
                when, path = started, [s for s in range(item.state + 1, target + 1) if s != 5]
                if target == 5:
                    path.append(5)
                for state in path:
                    when = min(now, when + timedelta(hours=rng.randint(4, 24 * 12)))
                    move_item(item, state, None, when)
                package = rng.choice(ctx["packages"][(instance.id, module)])
                item.package_id = package.id
                _tasks(rng, item, package, now)
                items.append(item)
        ctx["items"][instance.id] = items
        db.session.flush()
    activate(None)


@seeder(31)
def seed_item_locations(ctx: dict) -> None:
    """Most vehicles in work parked with their keys in place, delivery-flow ones at the bay;
    each place in the vehicle's history as the seller put it there."""
    rng = random.Random(20261128)  # noqa: S311 - demo data, the same every time
    seller = ctx["users"]["seller@demo.test"]
    for instance in ctx["instances"]:
        activate(instance.id)
        places: dict[tuple, list[Location]] = {}
        for place in db.session.scalars(db.select(Location).order_by(Location.id)):
            places.setdefault((place.module, place.division_id, place.kind), []).append(place)
        user = seller if instance.id == seller.home_instance_id else None
        for item in ctx["items"][instance.id]:
            if item.state in (1, 9):
                continue  # a lead is not here yet, an archived vehicle has left
            for kind, share in (("parking", 0.85), ("key", 0.75), ("delivery", 1.0)):
                offered = places.get((item.module, item.division_id, kind))
                if not offered or (kind == "delivery" and item.state != 8) or rng.random() > share:
                    continue
                place = rng.choice(offered)
                setattr(item, locations.BY_KEY[kind].column, place.id)
                entry = audit.record(
                    locations.MOVE_ACTION, user=user, instance_id=instance.id,
                    division_id=item.division_id, item_id=item.id, kind=kind, from_id=None,
                    to_id=place.id, **{"from": None, "to": place.name}, to_texts=place.name_texts,
                )  # fmt: skip
                entry.created_at = item.state_changed_at  # put there when it came to its state
        db.session.flush()
    activate(None)


# Seller users per company: (name, e-mail, division index or None for the whole instance).
SALESPEOPLE = {
    "Nordbil AB": (
        ("Kalle Säljare", "kalle@nordbil.example.test", None),
        ("Anna Lindqvist", "anna@nordbil.example.test", 0),
        ("Johan Berg", "johan@nordbil.example.test", 0),
        ("Sofia Nyström", "sofia@nordbil.example.test", 1),
        ("Erik Holm", "erik@nordbil.example.test", 2),
        ("Maria Ek", "maria@nordbil.example.test", 3),
    ),
    "Fjordauto AS": (
        ("Ola Nordmann", "ola@fjordauto.example.test", None),
        ("Ingrid Dahl", "ingrid@fjordauto.example.test", 0),
        ("Lars Haugen", "lars@fjordauto.example.test", 1),
    ),
}


@seeder(33)
def seed_item_salespeople(ctx: dict) -> None:
    """Each company's salespeople (seller users) in its divisions, and who sold each sold
    vehicle: most sales name one of the division's salespeople, a few none (sold before the
    dealer recorded them), each choice in the vehicle's history at its sale."""
    rng = random.Random(20261206)  # noqa: S311 - demo data, the same every time
    seller = ctx["users"]["seller@demo.test"]
    for instance in ctx["instances"]:
        activate(instance.id)
        divisions = sorted(
            (d for d in ctx["divisions"].values() if d.instance_id == instance.id),
            key=lambda d: d.id,
        )
        rows = [
            SettingRow(
                kind=salespeople.KIND, name=name, active=True,
                division_id=None if at is None else divisions[at % len(divisions)].id,
                data={"email": email, "phone": ""},
            )
            for name, email, at in SALESPEOPLE[instance.company_name]
        ]  # fmt: skip
        db.session.add_all(rows)
        db.session.flush()
        sold_at = dict(
            db.session.execute(
                db.select(ItemStateEvent.item_id, db.func.min(ItemStateEvent.created_at))
                .where(ItemStateEvent.to_state == 7)
                .group_by(ItemStateEvent.item_id)
            ).all()
        )
        user = seller if instance.id == seller.home_instance_id else None
        for item in ctx["items"][instance.id]:
            offered = [r for r in rows if r.division_id in (None, item.division_id)]
            if item.id not in sold_at or rng.random() < 0.1:
                continue
            # The division's own salespeople sell most; the instance-wide one now and then.
            own = [r for r in offered if r.division_id is not None] or offered
            chosen = rng.choice(offered if rng.random() < 0.2 else own)
            item.salesperson_id = chosen.id
            entry = audit.record(
                salespeople.SET_ACTION, user=user, instance_id=instance.id,
                division_id=item.division_id, item_id=item.id, from_id=None, to_id=chosen.id,
                **{"from": None, "to": chosen.name},
            )  # fmt: skip
            entry.created_at = sold_at[item.id]
        db.session.flush()
    activate(None)


@seeder(91)
def seed_item_tags(ctx: dict) -> None:
    """The company's tags (seeded with the admin settings) on some vehicles in showroom and on
    the way: a campaign, an export car."""
    rng = random.Random(20261129)  # noqa: S311 - demo data, the same every time
    for instance in ctx["instances"]:
        activate(instance.id)
        tags = list(db.session.scalars(db.select(Tag).order_by(Tag.id)))
        for item in ctx["items"][instance.id]:
            if tags and item.state in (4, 5, 6, 7) and rng.random() < 0.3:
                chosen = rng.sample(tags, k=1 if rng.random() < 0.8 else min(2, len(tags)))
                db.session.add_all(ItemTag(item_id=item.id, tag_id=t.id) for t in chosen)
        db.session.flush()
    activate(None)


@seeder(40)
def seed_lists(ctx: dict) -> None:
    """The seller's two custom lists and one saved overview filter."""
    seller = ctx["users"]["seller@demo.test"]
    activate(seller.home_instance_id)
    items = ctx["items"][seller.home_instance_id]
    lists = [
        CustomList(user_id=seller.id, name="Kampanj vecka 48"),
        CustomList(user_id=seller.id, name="Leasingretur"),
    ]
    db.session.add_all(lists)
    db.session.flush()
    showroom = [i for i in items if i.state == 6]
    incoming = [i for i in items if i.state in (2, 3)]
    for custom_list, chosen in zip(lists, (showroom[:8], incoming[:6]), strict=True):
        db.session.add_all(
            CustomListItem(custom_list_id=custom_list.id, item_id=i.id) for i in chosen
        )
    db.session.add(
        DynamicList(
            uuid=str(uuid.uuid5(uuid.NAMESPACE_URL, "demo/dynamic-list/1")),
            user_id=seller.id, title="Elbilar i lager", module="begcare",
            filters={"searchphrase": "", "fuelType": "Electric"},
        )
    )  # fmt: skip
    db.session.flush()
    activate(None)


@seeder(32)
def seed_station_queue(ctx: dict) -> None:
    """A few Solna vehicles whose next task is the wash, so the station user has work waiting."""
    station_user = ctx["users"]["station@demo.test"]
    activate(station_user.home_instance_id)
    wash = _wash_station(ctx, station_user)
    solna = ctx["divisions"]["Nordbil Solna"]
    now = utcnow().replace(second=0, microsecond=0)
    chosen = [
        i
        for i in ctx["items"][station_user.home_instance_id]
        if i.module == "begcare" and i.division_id == solna.id and i.state == 4
    ][:5]
    for n, item in enumerate(chosen):
        tasks = db.session.scalars(
            db.select(ItemStationTask)
            .where(ItemStationTask.item_id == item.id)
            .order_by(ItemStationTask.ordering)
        ).all()
        if not any(t.station_id == wash.id for t in tasks):
            continue
        before = True
        for task in tasks:
            if task.station_id == wash.id:
                before = False
                task.status = "active" if n == 0 else "pending"
                task.started_at = now - timedelta(minutes=20) if n == 0 else None
                task.finished_at = None
            elif before:
                task.status = "done"
                task.started_at = task.started_at or now - timedelta(hours=5 + n)
                task.finished_at = task.finished_at or task.started_at + timedelta(minutes=90)
            else:
                task.status, task.started_at, task.finished_at = "pending", None, None
        item.warning = False
    db.session.flush()
    activate(None)
