"""Entered words in every language (issue 37, point 7): a quick-test template's title, kind,
groups, informations and the options of a choice read in the reader's language, else the
company's (Swedish for Nordbil), else as written; on the test's page, its print, the public view
and the fill-in form. An answer stores the option as first written, whatever the language."""

from app.extensions import db
from app.quicktest.models import Information, Storage
from tests.helpers import page_text
from tests.quicktest.conftest import (
    demo_storage,
    division,
    finished_tests,
    foreign_test,
    group,
    info,
)

ADMIN = "/admin/general"
GERMAN = ("Schnelltest Gebrauchtwagen", "Inzahlungnahme", "Außen", "Bremsen", "Lackschäden",
          "Kleine", "Polsterung", "Leder")  # fmt: skip
SWEDISH = ("Snabbtest begagnat", "Inbytesbil", "Exteriör", "Bromsar", "Lackskador", "Små",
           "Klädsel", "Läder")  # fmt: skip


def _pages(test) -> tuple[str, ...]:
    return (
        f"/quick-test/{test.id}",
        f"/pdf-preview/quick-test/{test.id}",
        f"/quick-test/view/{test.uuid}",
    )


def test_each_reader_reads_the_template_and_its_options_in_their_language(seller):
    client, _ = seller
    test = finished_tests()[0]
    for language, words in (("de-DE", GERMAN), ("sv-SE", SWEDISH)):
        for path in _pages(test):
            text = page_text(client.get(f"{path}?lang={language}"))
            for word in words:
                assert word in text, (language, path, word)
    data = client.get(f"/api/_public/quick-test/view/{test.uuid}?lang=de-DE").json
    assert data["storage"]["title"] == "Schnelltest Gebrauchtwagen"
    assert data["storage"]["groups"][0]["informations"][0]["title"] == "Lackschäden"
    stored = {v["value"] for v in data["values"]}
    assert "Små" in stored and "Kleine" not in stored  # the value as first written


def test_a_missing_language_falls_back_to_the_companys_then_as_written(seller):
    client, _ = seller
    test = finished_tests()[0]
    paint = info("Lackskador")
    paint.title_texts = {k: v for k, v in paint.title_texts.items() if k != "nl-NL"}
    paint.choices_texts = {k: v for k, v in paint.choices_texts.items() if k != "nl-NL"}
    exterior = group("Exteriör", test.storage_id)
    exterior.title_texts = {}
    db.session.flush()
    text = page_text(client.get(f"/quick-test/view/{test.uuid}?lang=nl-NL"))
    assert "Snelle test occasion" in text and "Lackskador" in text and "Små" in text
    assert "Exteriör" in text  # no texts at all: as written
    assert "Interieur" in text  # the others still in Dutch
    # Another company's template without texts reads as written to any reader.
    other = foreign_test()
    assert "Hurtigtest" in page_text(client.get(f"/quick-test/view/{other.uuid}?lang=de-DE"))


def test_the_fill_form_offers_the_options_in_the_readers_language(seller):
    client, token = seller
    response = client.post(
        "/quick-test/start?lang=de-DE",
        data={"csrf_token": token, "regno": "ABC123", "storage": str(demo_storage().id),
              "division": str(division("Nordbil Solna").id)},
    )  # fmt: skip
    assert response.status_code == 302
    page = client.get(response.headers["Location"] + "?lang=de-DE").get_data(as_text=True)
    assert "Lackschäden" in page
    assert '<option value="Små">Kleine</option>' in page


def test_the_admin_enters_the_texts_where_the_template_is_made(as_demo):
    client, token = as_demo("admin")
    storage = demo_storage()
    form = page_text(client.get(f"{ADMIN}/storages/{storage.id}/edit"))
    assert 'name="title_texts-de-DE"' in form and 'name="group_texts-nl-NL"' in form
    saved = client.post(f"{ADMIN}/storages/{storage.id}/edit", data={
        "csrf_token": token, "title": "Snabbtest begagnat", "group": "Inbytesbil",
        "title_texts-sv-SE": "Snabbtest begagnat", "title_texts-en-GB": " Used-car check ",
    })  # fmt: skip
    assert saved.status_code == 302, page_text(saved)
    db.session.expire_all()
    storage = db.session.get(Storage, storage.id)
    assert storage.title_texts == {"sv-SE": "Snabbtest begagnat", "en-GB": "Used-car check"}
    assert storage.group_texts == {}
    brakes = group("Bromsar", storage.id)
    form = page_text(client.get(f"{ADMIN}/storages/{storage.id}/groups/{brakes.id}/edit"))
    assert 'value="Bremsen"' in form  # the group's texts are loaded


def test_options_per_language_must_match_the_options_and_keep_the_input(as_demo):
    client, token = as_demo("admin")
    upholstery = info("Klädsel")
    before = dict(upholstery.choices_texts)
    data = {
        "csrf_token": token, "title": "Klädsel", "type": "select", "ordering": "11",
        "information_group": str(upholstery.information_group_id),
        "choices": "Tyg\nLäder\nKonstläder", "title_texts-en-GB": "Upholstery",
        "choices_texts-en-GB": "Cloth\nLeather",  # one short
        "choices_texts-de-DE": "Stoff\nLeder\nKunstleder",
    }  # fmt: skip
    refused = client.post(f"{ADMIN}/information/{upholstery.id}/edit", data=data)
    assert refused.status_code == 422
    text = page_text(refused)
    assert "Write 3 options, one on each line in the order above: English" in text
    assert "Cloth\nLeather</textarea>" in text  # the input kept
    db.session.expire_all()
    assert db.session.get(Information, upholstery.id).choices_texts == before  # nothing saved
    data["choices_texts-en-GB"] = "Cloth\n\nLeather\nFaux leather\n"
    assert client.post(f"{ADMIN}/information/{upholstery.id}/edit", data=data).status_code == 302
    db.session.expire_all()
    saved = db.session.get(Information, upholstery.id)
    assert saved.choices == ["Tyg", "Läder", "Konstläder"]
    assert saved.choices_texts == {
        "en-GB": "Cloth\n\nLeather\nFaux leather",
        "de-DE": "Stoff\nLeder\nKunstleder",
    }
