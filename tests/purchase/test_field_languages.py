"""Entered words in every language (issue 37, point 7): a purchase analysis's dynamic field keeps
its title and section name per language, edited on its admin form; the analysis page, the create
form, the print and the full call show them in the reader's language, else the company's
(Swedish here), else as written."""

from sqlalchemy import select

from app.core import roles as R
from app.extensions import db
from app.purchase.models import PurchaseDynamicField
from tests.factories import make_user
from tests.helpers import page_text, sign_in

ADMIN = "/admin/purchase-analysis/purchase-analyses-dynamic-fields"


def _as(client, world, language: str) -> None:
    world.user.options = {"language": language}
    db.session.flush()
    sign_in(client, world.user)


def _inputs(client, world) -> list:
    return client.get(f"/api/purchase-analyses/{world.analysis.id}/full").get_json()["data"][
        "inputs"
    ]


def test_each_reader_reads_the_field_and_section_in_their_language(client, world):
    world.field.title_texts = {"sv-SE": "Däck", "en-GB": "Tyres (set)"}
    world.field.section_texts = {"sv-SE": "Skick", "en-GB": "Condition"}
    db.session.flush()
    for language, section, title in (
        ("en-GB", "Condition", "Tyres (set)"),
        ("sv-SE", "Skick", "Däck"),
        ("de-DE", "Skick", "Däck"),  # no German: the company's language
    ):
        _as(client, world, language)
        inputs = _inputs(client, world)
        assert [(s["title"], [f["title"] for f in s["fields"]]) for s in inputs] == [
            (section, [title])
        ], language
        for path in (
            f"/purchase-analysis/{world.analysis.id}",
            f"/pdf-preview/purchase-analysis/{world.analysis.id}",
            "/purchase-analysis/create",
        ):
            text = page_text(client.get(path))
            assert section in text and title in text, (language, path)


def test_a_field_without_texts_reads_as_written(client, world):
    _as(client, world, "de-DE")
    assert _inputs(client, world)[0]["title"] == "Condition"
    assert _inputs(client, world)[0]["fields"][0]["title"] == "Tyres"


def test_the_admin_enters_the_texts_on_the_fields_form(client, world):
    admin = make_user(world.instance, roles=[R.ROLE_ADMIN], modules=["purchaseAnalysis"],
                      all_divisions=True)  # fmt: skip
    token = sign_in(client, admin)
    form = page_text(client.get(f"{ADMIN}/{world.field.id}/edit"))
    assert 'name="title_texts-en-GB"' in form and 'name="section_texts-nl-NL"' in form
    response = client.post(f"{ADMIN}/{world.field.id}/edit", data={
        "csrf_token": token, "title": "Tyres", "section": "Condition", "field_type": "select",
        "choices": "Summer\nWinter", "ordering": "1",
        "title_texts-sv-SE": " Däck ", "title_texts-nl-NL": "Banden",
        "section_texts-sv-SE": "Skick",
    })  # fmt: skip
    assert response.status_code == 302, page_text(response)
    db.session.expire_all()
    field = db.session.scalars(select(PurchaseDynamicField).where(
        PurchaseDynamicField.id == world.field.id)).one()  # fmt: skip
    assert field.title_texts == {"sv-SE": "Däck", "nl-NL": "Banden"}
    assert field.section_texts == {"sv-SE": "Skick"}


def test_a_choices_options_read_in_each_language_and_the_stored_value_stays(client, world):
    world.field.choices_texts = {"sv-SE": "Sommardäck\nVinterdäck", "de-DE": "Sommerreifen"}
    db.session.flush()
    for language, option, other in (
        ("sv-SE", "Vinterdäck", "Sommardäck"),
        ("de-DE", "Vinterdäck", "Sommerreifen"),  # German names only the first: the company's
        ("en-GB", "Vinterdäck", "Sommardäck"),  # no English: the company's language (Swedish)
    ):
        _as(client, world, language)
        field = _inputs(client, world)[0]["fields"][0]
        assert (field["value"], field["label"]) == ("Winter", option), language
        for path in (f"/purchase-analysis/{world.analysis.id}",
                     f"/pdf-preview/purchase-analysis/{world.analysis.id}"):  # fmt: skip
            assert option in page_text(client.get(path)), (language, path)
        form = page_text(client.get(f"/purchase-analysis/{world.analysis.id}/edit"))
        assert f'<option value="Winter" selected>{option}</option>' in form, language
        assert f'<option value="Summer">{other}</option>' in form, language
    world.field.choices_texts = {}
    db.session.flush()
    assert _inputs(client, world)[0]["fields"][0]["label"] == "Winter"  # as written


def test_options_per_language_must_match_the_options(client, world):
    admin = make_user(world.instance, roles=[R.ROLE_ADMIN], modules=["purchaseAnalysis"],
                      all_divisions=True)  # fmt: skip
    token = sign_in(client, admin)
    data = {
        "csrf_token": token, "title": "Tyres", "section": "Condition", "field_type": "select",
        "choices": "Summer\nWinter", "ordering": "1",
        "choices_texts-sv-SE": "Sommardäck\nVinterdäck\nHelårsdäck",
    }  # fmt: skip
    refused = client.post(f"{ADMIN}/{world.field.id}/edit", data=data)
    assert refused.status_code == 422
    text = page_text(refused)
    assert "Write 2 options, one on each line in the order above: Svenska" in text
    assert "Sommardäck\nVinterdäck\nHelårsdäck</textarea>" in text  # the input kept
    db.session.expire_all()
    assert db.session.get(PurchaseDynamicField, world.field.id).choices_texts == {}
    data["choices_texts-sv-SE"] = "Sommardäck\nVinterdäck"
    assert client.post(f"{ADMIN}/{world.field.id}/edit", data=data).status_code == 302
    db.session.expire_all()
    field = db.session.get(PurchaseDynamicField, world.field.id)
    assert field.choices == ["Summer", "Winter"]
    assert field.choices_texts == {"sv-SE": "Sommardäck\nVinterdäck"}
