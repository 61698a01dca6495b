"""Demo purchase analyses: dynamic fields, priorities, a calculator and three analyses of the
first instance, one with the model analysis over the demo's most sold used model."""

import io
from collections import Counter
from datetime import timedelta

from PIL import Image, ImageDraw
from sqlalchemy import select

from app.core.models import utcnow
from app.core.tenancy import activate
from app.demo import demo_link, seeder, swedish_and, swedish_options
from app.extensions import db
from app.preparation import files
from app.purchase.models import (
    Calculator,
    PurchaseAnalysis,
    PurchaseComment,
    PurchaseCommentImage,
    PurchaseDynamicField,
    PurchasePriority,
    PurchaseValuation,
)
from app.purchase.rules import calculate
from app.purchase.services import set_input_image

FIELDS = [  # (section, title, type, choices)
    ("Skick", "Servicebok finns", "checkbox", []),
    ("Skick", "Senaste service", "date", []),
    ("Skick", "Mätarställning vid service", "mileage", []),
    ("Skick", "Däck", "select", ["Sommardäck", "Vinterdäck", "Helårsdäck"]),
    ("Skick", "Skador", "textarea", []),
    ("Affär", "Säljare", "text", []),
    ("Affär", "Kundens begärda pris", "currency", []),
    ("Affär", "Antal ägare", "number", []),
    ("Affär", "Annons", "link", []),
    ("Affär", "Foto från kund", "image", []),
]
# The fields' words in every language (issue 37): sv-SE as written, then app.demo.AFTER_SWEDISH.
FIELD_TEXTS = {
    "Skick": ("Tilstand", "Kunto", "Stand", "Condition", "Zustand", "Staat"),
    "Affär": ("Handel", "Kauppa", "Handel", "Deal", "Geschäft", "Deal"),
    "Servicebok finns": ("Servicebok finnes", "Huoltokirja on", "Servicebog findes",
                         "Service book present", "Serviceheft vorhanden", "Onderhoudsboekje aanwezig"),
    "Senaste service": ("Siste service", "Viimeisin huolto", "Seneste service", "Last service",
                        "Letzte Wartung", "Laatste onderhoudsbeurt"),
    "Mätarställning vid service": ("Kilometerstand ved service", "Mittarilukema huollossa",
                                   "Kilometerstand ved service", "Mileage at service",
                                   "Kilometerstand bei der Wartung", "Kilometerstand bij onderhoud"),
    "Däck": ("Dekk", "Renkaat", "Dæk", "Tyres", "Reifen", "Banden"),
    "Skador": ("Skader", "Vauriot", "Skader", "Damage", "Schäden", "Schade"),
    "Säljare": ("Selger", "Myyjä", "Sælger", "Seller", "Verkäufer", "Verkoper"),
    "Kundens begärda pris": ("Kundens ønskede pris", "Asiakkaan pyytämä hinta",
                             "Kundens ønskede pris", "Customer's asking price",
                             "Preisvorstellung des Kunden", "Vraagprijs van de klant"),
    "Antal ägare": ("Antall eiere", "Omistajien määrä", "Antal ejere", "Number of owners",
                    "Anzahl der Halter", "Aantal eigenaren"),
    "Annons": ("Annonse", "Ilmoitus", "Annonce", "Advert", "Anzeige", "Advertentie"),
    "Foto från kund": ("Foto fra kunde", "Asiakkaan kuva", "Foto fra kunde", "Photo from customer",
                       "Foto vom Kunden", "Foto van de klant"),
}  # fmt: skip
OPTION_TEXTS = {
    "Sommardäck": ("Sommerdekk", "Kesärenkaat", "Sommerdæk", "Summer tyres", "Sommerreifen",
                   "Zomerbanden"),
    "Vinterdäck": ("Vinterdekk", "Talvirenkaat", "Vinterdæk", "Winter tyres", "Winterreifen",
                   "Winterbanden"),
    "Helårsdäck": ("Helårsdekk", "Ympärivuotiset renkaat", "Helårsdæk", "All-season tyres",
                   "Ganzjahresreifen", "Vierseizoenenbanden"),
}  # fmt: skip


def _texts(words: str) -> dict:
    return swedish_and(words, FIELD_TEXTS[words])


PRIORITY_TEXTS = {  # the demo's priorities, written in Swedish (nb, fi, da, en, de, nl)
    "Brådskande": ("Haster", "Kiireellinen", "Haster", "Urgent", "Dringend", "Dringend"),
    "Normal": ("Normal", "Normaali", "Normal", "Normal", "Normal", "Normaal"),
    "Låg": ("Lav", "Matala", "Lav", "Low", "Niedrig", "Laag"),
}

CALCULATOR_TEXTS = {  # the calculator's title and rows' titles (nb, fi, da, en, de, nl)
    "Inbyteskalkyl": ("Innbyttekalkyle", "Vaihtoautolaskelma", "Byttebilskalkule",
                      "Trade-in calculation", "Inzahlungnahme-Kalkulation", "Inruilcalculatie"),
    "Rekonditionering": ("Klargjøring", "Kunnostus", "Klargøring", "Reconditioning",
                         "Aufbereitung", "Voorbereiding"),
    "Nya däck": ("Nye dekk", "Uudet renkaat", "Nye dæk", "New tyres", "Neue Reifen",
                 "Nieuwe banden"),
    "Garantireserv": ("Garantireserve", "Takuuvaraus", "Garantireserve", "Warranty reserve",
                      "Garantierückstellung", "Garantiereserve"),
    "Målmarginal": ("Målmargin", "Tavoitekate", "Målavance", "Target margin", "Zielmarge",
                    "Doelmarge"),
    "Finansieringsprovision": ("Finansieringsprovisjon", "Rahoituspalkkio",
                               "Finansieringsprovision", "Finance commission",
                               "Finanzierungsprovision", "Financieringsprovisie"),
}  # fmt: skip
CALCULATOR_ROWS = [
    {"title": "Rekonditionering", "operator": "-", "value": 12000, "unit": "currency"},
    {"title": "Nya däck", "operator": "-", "value": 6500, "unit": "currency"},
    {"title": "Garantireserv", "operator": "-", "value": 2, "unit": "percent"},
    {"title": "Målmarginal", "operator": "-", "value": 10, "unit": "percent"},
    {"title": "Finansieringsprovision", "operator": "+", "value": 3500, "unit": "currency"},
]


def demo_jpeg(width: int = 480, height: int = 320, paint=(29, 78, 216)) -> bytes:
    """A small real JPEG: a car's outline on a workshop floor, drawn with Pillow."""
    image = Image.new("RGB", (width, height), (214, 222, 230))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, int(height * 0.72), width, height), fill=(120, 128, 138))
    body = (int(width * 0.12), int(height * 0.42), int(width * 0.88), int(height * 0.7))
    draw.rounded_rectangle(body, radius=18, fill=paint)
    roof = [(width * 0.28, height * 0.43), (width * 0.38, height * 0.26),
            (width * 0.64, height * 0.26), (width * 0.74, height * 0.43)]  # fmt: skip
    draw.polygon(roof, fill=paint)
    draw.polygon(
        [(x, y + 6) for x, y in roof[1:3]]
        + [(width * 0.7, height * 0.42), (width * 0.32, height * 0.42)],
        fill=(200, 230, 250),
    )
    for cx in (width * 0.28, width * 0.72):
        draw.ellipse((cx - 30, height * 0.62, cx + 30, height * 0.62 + 60), fill=(30, 30, 30))
        draw.ellipse(
            (cx - 13, height * 0.62 + 17, cx + 13, height * 0.62 + 43), fill=(180, 180, 180)
        )
    draw.rectangle(
        (int(width * 0.45), int(height * 0.5), int(width * 0.55), int(height * 0.53)),
        fill=(220, 38, 38),
    )
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


@seeder(60)
def seed_purchase_analyses(ctx: dict) -> None:
    """Purchase analyses of the first instance (Nordbil), with valuations, comments and images."""
    instance = ctx["instances"][0]
    activate(instance.id)
    seller = ctx["users"]["seller@demo.test"]
    divisions = ctx["divisions"]
    solna, goteborg = divisions["Nordbil Solna"], divisions["Nordbil Göteborg"]
    now = utcnow().replace(minute=0, second=0, microsecond=0)

    fields = []
    for n, (section, title, kind, choices) in enumerate(FIELDS):
        field = PurchaseDynamicField(section=section, title=title, field_type=kind,
                                     section_texts=_texts(section), title_texts=_texts(title),
                                     choices=choices, choices_texts=swedish_options(choices, OPTION_TEXTS),
                                     required=n == 0, ordering=n)  # fmt: skip
        db.session.add(field)
        fields.append(field)
    priorities = [
        PurchasePriority(name=name, name_texts=swedish_and(name, others), ordering=n)
        for n, (name, others) in enumerate(PRIORITY_TEXTS.items())
    ]
    db.session.add_all(priorities)
    calculator = Calculator(
        title="Inbyteskalkyl", title_texts=swedish_and("Inbyteskalkyl", CALCULATOR_TEXTS["Inbyteskalkyl"]),
        rows=CALCULATOR_ROWS,
        row_titles_texts=swedish_options([r["title"] for r in CALCULATOR_ROWS], CALCULATOR_TEXTS),
        preset_description="Målmarginal för begagnade bilar", preset_percent=10,
    )  # fmt: skip
    db.session.add(calculator)
    db.session.flush()

    # The most sold used model of the demo's own vehicles: its model analysis has real data.
    sold = Counter(
        (item.brand, item.model, item.model_series, item.fuel_type)
        for item in ctx["items"][instance.id]
        if item.module == "begcare" and item.state >= 7
    )
    (brand, model, series, fuel), _count = sorted(sold.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    inputs = {
        str(fields[0].id): True, str(fields[1].id): (now - timedelta(days=160)).date().isoformat(),
        str(fields[2].id): 88400, str(fields[3].id): "Helårsdäck",
        str(fields[4].id): "Stenskott i vindrutan, repa på höger bakdörr.",
        str(fields[5].id): "Privatperson, Solna", str(fields[6].id): 248000,
        str(fields[7].id): 2, str(fields[8].id): "https://www.example.test/annons/4711",
    }  # fmt: skip
    photo = files.store_file(demo_jpeg(paint=(160, 165, 172)), "kundens-foto.jpg", seller.id)

    def analysis(days_ago, number, regno, status, **values):
        created = now - timedelta(days=days_ago)
        found = PurchaseAnalysis(
            identifier=f"PA-{created.year}-{number:04d}", created_by_id=seller.id, status=status,
            regno=regno, created_at=created, modified_at=created, **values,
        )  # fmt: skip
        db.session.add(found)
        db.session.flush()
        return found

    earlier = analysis(
        45, 1, "MLB47K", "rejected", division_id=solna.id, priority_id=priorities[2].id,
        brand=brand, model=model, model_series=series, model_year=2020, fuel_type=fuel,
        color="Silver", mileage=92300, inputs={str(fields[6].id): 255000},
        valuation={"priceMin": 205000, "priceMax": 236000, "priceAvg": 221000, "source": "Bilpriser"},
    )  # fmt: skip
    earlier.decided_by_id, earlier.decided_at = seller.id, earlier.created_at + timedelta(days=1)
    main = analysis(
        3, 2, "MLB47K", "requested", division_id=solna.id, priority_id=priorities[0].id,
        brand=brand, model=model, model_series=series, model_year=2020, fuel_type=fuel,
        color="Silver", mileage=93150, inputs=inputs,
        valuation={"priceMin": 212000, "priceMax": 241000, "priceAvg": 226500,
                   "pricePrediction": 231000, "source": "Bilpriser och egen försäljning"},
        price_predictions=[
            {"date": (now + timedelta(days=30)).date().isoformat(), "price": 229000, "source": "Prisprognos"},
            {"date": (now + timedelta(days=90)).date().isoformat(), "price": 221500, "source": "Prisprognos"},
            {"date": (now + timedelta(days=180)).date().isoformat(), "price": 212000, "source": "Prisprognos"},
        ],
        basic={"annualTax": 4520, "annualMalus": 0, "chassis": "Kombi", "segment": "Mellanklass",
               "equipment": ["Dragkrok", "Navigation", "Backkamera", "Eluppvärmda säten"],
               "trimPackages": ["Plus", "Klimatpaket"]},
    )  # fmt: skip
    main.requested_by_id = seller.id
    set_input_image(main, str(fields[9].id), photo)  # the customer's photo
    result = calculate(226500, CALCULATOR_ROWS)
    result.update(calculatorId=calculator.id, title=calculator.title,
                  presetDescription=calculator.preset_description, presetPercent=10.0,
                  calculatedAt=main.created_at.isoformat())  # fmt: skip
    main.latest_calculation = result
    other = analysis(
        12, 3, "RZT82C", "approved", division_id=goteborg.id, priority_id=priorities[1].id,
        brand="Volvo", model="XC60", model_series="B4 AWD", model_year=2021, fuel_type="Diesel",
        color="Svart", mileage=61200,
        valuation={"priceMin": 318000, "priceMax": 352000, "priceAvg": 334000, "source": "Bilpriser"},
    )  # fmt: skip
    other.decided_by_id, other.decided_at = seller.id, other.created_at + timedelta(hours=5)

    for target, rows in (
        (earlier, [(44, 198000, 232000, "Bilpriser")]),
        (main, [(3, 205000, 238000, "Bilpriser"), (2, 208000, 236500, "Egen försäljning")]),
        (other, [(11, 305000, 349000, "Bilpriser")]),
    ):
        for days_ago, price_in, price_out, source in rows:
            db.session.add(PurchaseValuation(
                analysis_id=target.id, created_at=now - timedelta(days=days_ago),
                price_in=price_in, price_out=price_out, source=source, user_id=seller.id,
                division_id=target.division_id, data={"inputs": dict(target.inputs)},
            ))  # fmt: skip
    first = PurchaseComment(
        analysis_id=main.id, created_by_id=seller.id, content="Bilen provkörd, växellådan känns fin. Bild på skadan bifogad.",
        created_at=now - timedelta(days=3, hours=-2), modified_at=now - timedelta(days=3, hours=-2),
    )  # fmt: skip
    db.session.add(first)
    db.session.flush()
    first.images.append(
        PurchaseCommentImage(file=files.store_file(demo_jpeg(), "provkorning.jpg", seller.id))
    )
    db.session.add(PurchaseComment(
        analysis_id=main.id, created_by_id=seller.id,
        content="Kunden kan tänka sig 230 000 kr om vi tar bilen i veckan.",
        created_at=now - timedelta(days=2), modified_at=now - timedelta(days=2),
    ))  # fmt: skip
    db.session.flush()
    ctx["purchase_analysis"] = main.id
    activate(None)


@demo_link("purchase_analysis_pdf")
def purchase_analysis_pdf_link() -> str | None:
    found = db.session.scalar(
        select(PurchaseAnalysis.id)
        .where(PurchaseAnalysis.status == "requested")
        .order_by(PurchaseAnalysis.id)
        .execution_options(all_instances=True)
    )
    return f"/pdf-preview/purchase-analysis/{found}" if found else None
