"""Demo quick tests: a storage template with nested groups and every type of information, and
finished tests of two showroom vehicles with real photos (drawn with Pillow), for Nordbil."""

import io
import random
from datetime import timedelta

from PIL import Image, ImageDraw
from sqlalchemy import select

from app.core.models import Division, utcnow
from app.core.tenancy import activate
from app.demo import demo_link, seeder, swedish_and, swedish_options
from app.extensions import db
from app.preparation import files
from app.preparation.models import FileObject
from app.quicktest.models import (
    Information,
    InformationGroup,
    Storage,
    StorageContainer,
    StorageContainerValue,
    StorageGroup,
    StorageGroupInformation,
)

# (information group, [(title, type, choices)])
INFORMATIONS = [
    ("Exteriör", [
        ("Lackskador", "select", ["Inga", "Små", "Måttliga", "Stora"]),
        ("Mönsterdjup sommardäck (mm)", "number", []),
        ("Bild framifrån", "image", []),
        ("Bild bakifrån", "image", []),
    ]),
    ("Interiör", [
        ("Rökfri", "checkbox", []),
        ("Klädsel", "select", ["Tyg", "Läder", "Konstläder"]),
        ("Anmärkningar interiör", "textarea", []),
    ]),
    ("Teknik", [
        ("Mätarställning", "mileage", []),
        ("Servicebok finns", "checkbox", []),
        ("Senaste service", "date", []),
        ("Bromsar fram", "select", ["Bra", "Godkänt", "Byts"]),
        ("Bromsar bak", "select", ["Bra", "Godkänt", "Byts"]),
        ("Felkoder", "text", []),
    ]),
    ("Värdering", [
        ("Uppskattad reparationskostnad", "currency", []),
        ("Jämförbar annons", "link", []),
        ("Sammanfattning", "textarea", []),
    ]),
]  # fmt: skip
# (title, parent title, show title, image support, informations)
GROUPS = [
    ("Exteriör", None, True, True, ["Lackskador", "Mönsterdjup sommardäck (mm)", "Bild framifrån", "Bild bakifrån"]),
    ("Interiör", None, True, False, ["Rökfri", "Klädsel", "Anmärkningar interiör"]),
    ("Teknik", None, True, False, ["Mätarställning", "Servicebok finns", "Senaste service", "Felkoder"]),
    ("Bromsar", "Teknik", True, False, ["Bromsar fram", "Bromsar bak"]),
    ("Värdering", None, True, False, ["Uppskattad reparationskostnad", "Jämförbar annons", "Sammanfattning"]),
]  # fmt: skip
# The template's words in every language (issue 37): Swedish as written, then
# app.demo.AFTER_SWEDISH (nb-NO fi-FI da-DK en-GB de-DE nl-NL).
TEXTS = {
    "Snabbtest begagnat": (
        "Hurtigtest bruktbil",
        "Pikatesti, käytetty auto",
        "Hurtigtest brugt bil",
        "Quick test, used vehicle",
        "Schnelltest Gebrauchtwagen",
        "Snelle test occasion",
    ),
    "Inbytesbil": (
        "Innbyttebil",
        "Vaihtoauto",
        "Byttebil",
        "Trade-in",
        "Inzahlungnahme",
        "Inruilauto",
    ),
    "Exteriör": ("Eksteriør", "Ulkopuoli", "Eksteriør", "Exterior", "Außen", "Exterieur"),
    "Interiör": ("Interiør", "Sisätilat", "Interiør", "Interior", "Innenraum", "Interieur"),
    "Teknik": ("Teknikk", "Tekniikka", "Teknik", "Technical", "Technik", "Techniek"),
    "Bromsar": ("Bremser", "Jarrut", "Bremser", "Brakes", "Bremsen", "Remmen"),
    "Värdering": (
        "Verdivurdering",
        "Arvonmääritys",
        "Vurdering",
        "Valuation",
        "Bewertung",
        "Taxatie",
    ),
    "Lackskador": (
        "Lakkskader",
        "Maalivauriot",
        "Lakskader",
        "Paint damage",
        "Lackschäden",
        "Lakschade",
    ),
    "Mönsterdjup sommardäck (mm)": (
        "Mønsterdybde sommerdekk (mm)",
        "Kesärenkaiden urasyvyys (mm)",
        "Mønsterdybde sommerdæk (mm)",
        "Tread depth, summer tyres (mm)",
        "Profiltiefe Sommerreifen (mm)",
        "Profieldiepte zomerbanden (mm)",
    ),
    "Bild framifrån": (
        "Bilde forfra",
        "Kuva edestä",
        "Billede forfra",
        "Photo from the front",
        "Foto von vorn",
        "Foto van voren",
    ),
    "Bild bakifrån": (
        "Bilde bakfra",
        "Kuva takaa",
        "Billede bagfra",
        "Photo from the rear",
        "Foto von hinten",
        "Foto van achteren",
    ),
    "Rökfri": ("Røykfri", "Savuton", "Røgfri", "Non-smoker", "Nichtraucher", "Rookvrij"),
    "Klädsel": ("Trekk", "Verhoilu", "Polstring", "Upholstery", "Polsterung", "Bekleding"),
    "Anmärkningar interiör": (
        "Merknader interiør",
        "Huomiot sisätiloista",
        "Bemærkninger interiør",
        "Interior remarks",
        "Anmerkungen Innenraum",
        "Opmerkingen interieur",
    ),
    "Mätarställning": (
        "Kilometerstand",
        "Mittarilukema",
        "Kilometerstand",
        "Mileage",
        "Kilometerstand",
        "Kilometerstand",
    ),
    "Servicebok finns": (
        "Servicebok finnes",
        "Huoltokirja on",
        "Servicebog findes",
        "Service book present",
        "Serviceheft vorhanden",
        "Onderhoudsboekje aanwezig",
    ),
    "Senaste service": (
        "Siste service",
        "Viimeisin huolto",
        "Seneste service",
        "Last service",
        "Letzte Wartung",
        "Laatste onderhoudsbeurt",
    ),
    "Bromsar fram": (
        "Bremser foran",
        "Etujarrut",
        "Bremser for",
        "Front brakes",
        "Bremsen vorn",
        "Remmen voor",
    ),
    "Bromsar bak": (
        "Bremser bak",
        "Takajarrut",
        "Bremser bag",
        "Rear brakes",
        "Bremsen hinten",
        "Remmen achter",
    ),
    "Felkoder": ("Feilkoder", "Vikakoodit", "Fejlkoder", "Fault codes", "Fehlercodes", "Foutcodes"),
    "Uppskattad reparationskostnad": (
        "Anslått reparasjonskostnad",
        "Arvioitu korjauskustannus",
        "Anslået reparationsomkostning",
        "Estimated repair cost",
        "Geschätzte Reparaturkosten",
        "Geschatte reparatiekosten",
    ),
    "Jämförbar annons": (
        "Sammenlignbar annonse",
        "Vertailukelpoinen ilmoitus",
        "Sammenlignelig annonce",
        "Comparable advert",
        "Vergleichbares Inserat",
        "Vergelijkbare advertentie",
    ),
    "Sammanfattning": (
        "Oppsummering",
        "Yhteenveto",
        "Opsummering",
        "Summary",
        "Zusammenfassung",
        "Samenvatting",
    ),
}
OPTION_TEXTS = {
    "Inga": ("Ingen", "Ei yhtään", "Ingen", "None", "Keine", "Geen"),
    "Små": ("Små", "Pieniä", "Små", "Minor", "Kleine", "Klein"),
    "Måttliga": ("Moderate", "Kohtalaisia", "Moderate", "Moderate", "Mittlere", "Matig"),
    "Stora": ("Store", "Suuria", "Store", "Major", "Große", "Groot"),
    "Tyg": ("Stoff", "Kangas", "Stof", "Cloth", "Stoff", "Stof"),
    "Läder": ("Skinn", "Nahka", "Læder", "Leather", "Leder", "Leer"),
    "Konstläder": ("Kunstskinn", "Keinonahka", "Kunstlæder", "Faux leather", "Kunstleder",
                   "Kunstleer"),
    "Bra": ("God", "Hyvä", "God", "Good", "Gut", "Goed"),
    "Godkänt": ("Godkjent", "Hyväksytty", "Godkendt", "Acceptable", "In Ordnung", "Voldoende"),
    "Byts": ("Byttes", "Vaihdetaan", "Udskiftes", "Replace", "Tauschen", "Vervangen"),
}  # fmt: skip


def _texts(words: str) -> dict:
    return swedish_and(words, TEXTS[words])


TESTS = [
    {
        "Lackskador": "Små", "Mönsterdjup sommardäck (mm)": "5.5", "Rökfri": "1",
        "Klädsel": "Läder", "Anmärkningar interiör": "Lätt slitage på förarstolens sidobolster.",
        "Servicebok finns": "1", "Senaste service": "2026-03-14", "Bromsar fram": "Bra",
        "Bromsar bak": "Godkänt", "Felkoder": "Inga", "Uppskattad reparationskostnad": "4500",
        "Jämförbar annons": "https://www.example.com/annons/xc60-2021",
        "Sammanfattning": "Välskött bil i gott skick.\nLackering av höger framskärm rekommenderas.",
        "colour": (27, 54, 93),
    },
    {
        "Lackskador": "Inga", "Mönsterdjup sommardäck (mm)": "7", "Rökfri": "1",
        "Klädsel": "Tyg", "Servicebok finns": "0", "Bromsar fram": "Byts", "Bromsar bak": "Bra",
        "Felkoder": "P0420 katalysator", "Uppskattad reparationskostnad": "12900",
        "Sammanfattning": "Främre bromsskivor och klossar behöver bytas före leverans.",
        "colour": (176, 30, 35),
    },
]  # fmt: skip


def car_picture(colour: tuple[int, int, int], rear: bool = False) -> bytes:
    """A small JPEG of a car (body, windows, wheels) on a light background, in the car's colour."""
    image = Image.new("RGB", (640, 400), (228, 233, 238))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 300, 640, 400), fill=(120, 126, 133))  # road
    draw.rounded_rectangle((70, 190, 570, 300), radius=36, fill=colour)  # body
    draw.polygon([(170, 190), (230, 120), (430, 120), (500, 190)], fill=colour)  # cabin
    draw.polygon([(190, 186), (238, 130), (322, 130), (322, 186)], fill=(180, 214, 235))
    draw.polygon([(334, 186), (334, 130), (422, 130), (476, 186)], fill=(180, 214, 235))
    lamp = (220, 40, 40) if rear else (250, 240, 190)
    draw.rectangle((540, 215, 568, 240) if not rear else (72, 215, 100, 240), fill=lamp)
    for x in (170, 470):
        draw.ellipse((x - 48, 252, x + 48, 348), fill=(30, 30, 30))
        draw.ellipse((x - 22, 278, x + 22, 322), fill=(170, 170, 170))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


def _file(data: bytes, name: str, user_id: int) -> FileObject:
    kind, name = files.check_upload(data, name)
    file = FileObject(
        name=name, content_type=kind.content_type, size=len(data), data=data,
        small=files.small_variation(data), created_by_id=user_id,
    )  # fmt: skip
    db.session.add(file)
    return file


@seeder(46)
def seed_quick_tests(ctx: dict) -> None:
    """Nordbil's quick-test template and two finished tests of showroom vehicles."""
    rng = random.Random(20261124)  # noqa: S311 - demo data, the same every time
    instance = ctx["instances"][0]
    seller = ctx["users"]["seller@demo.test"]
    activate(instance.id)
    infos = {}
    for n, (group_title, rows) in enumerate(INFORMATIONS):
        group = InformationGroup(title=group_title, ordering=n * 10)
        db.session.add(group)
        for m, (title, kind, choices) in enumerate(rows):
            infos[title] = Information(
                title=title, title_texts=_texts(title), type=kind, choices=choices,
                choices_texts=swedish_options(choices, OPTION_TEXTS), ordering=n * 10 + m,
                information_group=group,
            )  # fmt: skip
            db.session.add(infos[title])
    storage = Storage(title="Snabbtest begagnat", group="Inbytesbil",
                      title_texts=_texts("Snabbtest begagnat"), group_texts=_texts("Inbytesbil"))  # fmt: skip
    db.session.add(storage)
    db.session.flush()
    groups = {}
    for n, (title, parent, show, photos, names) in enumerate(GROUPS):
        groups[title] = StorageGroup(
            storage_id=storage.id, parent_id=groups[parent].id if parent else None, title=title,
            title_texts=_texts(title), ordering=n * 10, show_title=show, image_support=photos,
            links=[StorageGroupInformation(information_id=infos[i].id) for i in names],
        )  # fmt: skip
        db.session.add(groups[title])
        db.session.flush()
    group_of = {i: title for title, _p, _s, _i, names in GROUPS for i in names}
    items = [i for i in ctx["items"][instance.id] if i.module == "begcare" and i.state == 6]
    now = utcnow().replace(second=0, microsecond=0)

    def record(test: StorageContainer, answers: dict, mileage: int) -> None:
        """The test's answers, its mileage and three drawn photos."""
        db.session.add(test)
        db.session.flush()
        for title, value in answers.items():
            if title == "colour":
                continue
            db.session.add(
                StorageContainerValue(
                    container_id=test.id,
                    group_id=groups[group_of[title]].id,
                    information_id=infos[title].id,
                    value=value,
                )  # fmt: skip
            )
        db.session.add(
            StorageContainerValue(
                container_id=test.id,
                group_id=groups["Teknik"].id,
                information_id=infos["Mätarställning"].id,
                value=str(mileage),
            )  # fmt: skip
        )
        for title, rear in (("Bild framifrån", False), ("Bild bakifrån", True)):
            picture = _file(
                car_picture(answers["colour"], rear), f"{test.identifier}.jpg", seller.id
            )
            db.session.add(
                StorageContainerValue(
                    container_id=test.id,
                    group_id=groups["Exteriör"].id,
                    information_id=infos[title].id,
                    file=picture,
                )  # fmt: skip
            )
        photo = _file(car_picture(answers["colour"]), f"{test.identifier}-detalj.jpg", seller.id)
        db.session.add(
            StorageContainerValue(
                container_id=test.id,
                group_id=groups["Exteriör"].id,
                file=photo,
                description="Höger framskärm",
            )  # fmt: skip
        )

    for n, answers in enumerate(TESTS):
        item = items[n]
        reported = now - timedelta(days=3 - n, hours=2 + n)
        test = StorageContainer(
            uuid=f"{rng.getrandbits(128):032x}", identifier=item.regno, storage_id=storage.id,
            division_id=item.division_id, item_id=item.id, user_id=seller.id,
            created_at=reported - timedelta(minutes=25), reported_at=reported,
        )  # fmt: skip
        record(test, answers, item.mileage or 0)
    # A trade-in tested before its purchase analysis (app/purchase/demo.py analyses MLB47K):
    # the analysis shows it among the vehicle's previous tests.
    solna = db.session.scalars(select(Division).where(Division.name == "Nordbil Solna")).one()
    trade_in = StorageContainer(
        uuid=f"{rng.getrandbits(128):032x}", identifier="MLB47K", storage_id=storage.id,
        division_id=solna.id, user_id=seller.id,
        created_at=now - timedelta(days=4, minutes=20), reported_at=now - timedelta(days=4),
    )  # fmt: skip
    record(trade_in, TESTS[0], 93100)
    db.session.flush()
    activate(None)


def _first_test() -> StorageContainer | None:
    return db.session.scalars(
        select(StorageContainer)
        .where(StorageContainer.reported_at.is_not(None))
        .order_by(StorageContainer.id)
        .execution_options(all_instances=True)
    ).first()


@demo_link("quick_test")
def quick_test_link() -> str | None:
    test = _first_test()
    return f"/quick-test/view/{test.uuid}" if test else None


@demo_link("quick_test_pdf")
def quick_test_pdf_link() -> str | None:
    test = _first_test()
    return f"/pdf-preview/quick-test/{test.id}" if test else None
