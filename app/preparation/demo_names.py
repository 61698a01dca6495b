"""The demo's names of stations, station groups, locations and tags in every language (issue 37):
each dealer writes them in its own language (the name as written), and every reader reads them
in theirs (`name_texts`, app.core.localized.Named). Words as GLOSSARY.md has them."""

# sv-SE, nb-NO, fi-FI, da-DK, en-GB, de-DE, nl-NL
TAGS = ("sv-SE", "nb-NO", "fi-FI", "da-DK", "en-GB", "de-DE", "nl-NL")
WORDS = [
    # station groups
    ("Verkstad", "Verksted", "Korjaamo", "Værksted", "Workshop", "Werkstatt", "Werkplaats"),
    ("Rekond", "Klargjøring", "Kunnostus", "Klargøring", "Reconditioning", "Aufbereitung",
     "Voorbereiding"),
    # stations
    ("Mekanisk kontroll", "Mekanisk kontroll", "Mekaaninen tarkastus", "Mekanisk kontrol",
     "Mechanical inspection", "Technische Prüfung", "Technische controle"),
    ("Lackering och bucklor", "Karosseri", "Kori- ja maalaustyöt", "Karrosseri og lak",
     "Bodywork and paint", "Karosserie und Lack", "Carrosserie en lak"),
    ("Tvätt", "Vask", "Pesu", "Vask", "Wash", "Wäsche", "Wassen"),
    ("Invändig rekond", "Innvendig rengjøring", "Sisäpuhdistus", "Indvendig rengøring",
     "Interior cleaning", "Innenreinigung", "Interieurreiniging"),
    ("Fotografering", "Fotografering", "Valokuvaus", "Fotografering", "Photography",
     "Fotografie", "Fotografie"),
    ("Leveranskontroll (PDI)", "Leveringskontroll (PDI)", "Luovutustarkastus (PDI)",
     "Leveringskontrol (PDI)", "Pre-delivery inspection (PDI)", "Auslieferungsinspektion (PDI)",
     "Afleveringsinspectie (PDI)"),
    ("Tillbehörsmontering", "Tilbehørsmontering", "Lisävarusteasennus", "Tilbehørsmontering",
     "Accessory fitting", "Zubehörmontage", "Accessoiremontage"),
    # locations
    ("P1 Framsidan", "P1 Forsiden", "P1 Etupiha", "P1 Forsiden", "P1 Front", "P1 Vorderseite",
     "P1 Voorzijde"),
    ("P2 Baksidan", "P2 Baksiden", "P2 Takapiha", "P2 Bagsiden", "P2 Rear", "P2 Rückseite",
     "P2 Achterzijde"),
    ("Verkstadsgården", "Verkstedgården", "Korjaamon piha", "Værkstedsgården", "Workshop yard",
     "Werkstatthof", "Werkplaatsterrein"),
    ("Nyckelskåp", "Nøkkelskap", "Avainkaappi", "Nøgleskab", "Key cabinet", "Schlüsselschrank",
     "Sleutelkast"),
    ("Receptionen", "Resepsjonen", "Vastaanotto", "Receptionen", "Reception", "Empfang",
     "Receptie"),
    ("Leveranshallen", "Leveringshallen", "Luovutushalli", "Leveringshallen", "Delivery hall",
     "Auslieferungshalle", "Afleverhal"),
    # tags
    ("Kampanj", "Kampanje", "Kampanja", "Kampagne", "Campaign", "Aktion", "Actie"),
    ("Export", "Eksport", "Vienti", "Eksport", "Export", "Export", "Export"),
    ("Prisöversyn", "Prisgjennomgang", "Hintatarkistus", "Prisgennemgang", "Price review",
     "Preisprüfung", "Prijsherziening"),
    # booking calendar locations
    ("Utställningshallen", "Utstillingshallen", "Näyttely", "Showroom", "Showroom", "Ausstellung",
     "Showroom"),
    # station packages (named in English by the demo)
    ("Standard", "Standard", "Perus", "Standard", "Standard", "Standard", "Standaard"),
    ("Full rekond", "Full klargjøring", "Täysi kunnostus", "Fuld klargøring",
     "Full reconditioning", "Vollständige Aufbereitung", "Volledige voorbereiding"),
    ("Nybilsleverans", "Nybillevering", "Uuden auton luovutus", "Nybilslevering",
     "New car delivery", "Neuwagenauslieferung", "Nieuwe auto aflevering"),
    # rules' names and warnings
    ("Parkerad mer än 21 dagar", "Parkert mer enn 21 dager", "Pysäköity yli 21 päivää",
     "Parkeret mere end 21 dage", "Parked for more than 21 days", "Länger als 21 Tage geparkt",
     "Langer dan 21 dagen geparkeerd"),
    ("Dags för prisöversyn", "Tid for prisgjennomgang", "Hintatarkistuksen aika",
     "Tid til prisgennemgang", "Time for a price review", "Zeit für eine Preisprüfung",
     "Tijd voor een prijsherziening"),
]  # fmt: skip
# A name as a Swedish or a Norwegian dealer (or the demo, in English) writes it -> its texts.
_BY_NAME = {
    written: dict(zip(TAGS, words, strict=True))
    for words in WORDS
    for written in (*words[:2], words[4])
}


def name_texts(name: str) -> dict:
    """The demo name's text in every language ({} for a name the demo does not translate)."""
    return dict(_BY_NAME.get(name, {}))
