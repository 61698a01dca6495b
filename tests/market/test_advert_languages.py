"""Entered words in every language (issue 37, point 7): the seller writes an advert's description
in their company's language and may add translations; a bidder reads their language's text,
else the seller company's, else the description as written, on the public bid page, in the bid
link mail and on the advert's page."""

import re

import pytest
from sqlalchemy import select

from app.extensions import db
from app.mail.models import EmailMessage
from app.market.models import Advert, MarketLink
from tests.helpers import page_text
from tests.market._adverts import demo_login, make_advert, nordbil
from tests.market.test_adverts import LIST, form_values, hrefs

SWEDISH = "En ägare. Fullständig servicehistorik."
NORWEGIAN = "Én eier. Full servicehistorikk."
GERMAN = "Ein Vorbesitzer. Lückenloses Serviceheft."


@pytest.fixture
def as_demo(demo_client):
    return demo_login(demo_client)


def _typed(token: str, **changes) -> dict:
    return form_values(
        token, description=SWEDISH, **{"description_texts-nb-NO": NORWEGIAN,
                                        "description_texts-de-DE": f" {GERMAN} "}, **changes,
    )  # fmt: skip


def test_the_form_offers_translations_beside_the_companys_language(as_demo):
    client, _ = as_demo("seller")
    html = client.get("/market/advert/add").get_data(as_text=True)
    assert "In Swedish: condition" in html
    assert "Add translations" in html
    assert 'name="description_texts-nb-NO"' in html and 'name="description_texts-nl-NL"' in html
    assert 'name="description_texts-sv-SE"' not in html  # the description above is Swedish


def test_the_seller_adds_translations_and_each_bidder_reads_theirs(as_demo):
    client, token = as_demo("seller")
    before = db.session.scalar(select(EmailMessage.id).order_by(EmailMessage.id.desc()).limit(1))
    assert client.post("/market/advert/add", data=_typed(token)).status_code == 302
    advert = db.session.scalars(select(Advert).where(Advert.regno == "ABC123")).one()
    assert advert.description == SWEDISH
    assert advert.description_texts == {"sv-SE": SWEDISH, "nb-NO": NORWEGIAN, "de-DE": GERMAN}
    mails = db.session.scalars(select(EmailMessage).where(EmailMessage.id > before)).all()
    bodies = {m.to_address: m.body_text for m in mails}
    assert NORWEGIAN in bodies["buyer@demo.test"] and SWEDISH not in bodies["buyer@demo.test"]
    assert SWEDISH in bodies["malmo@demo.test"]
    path = re.search(r"https?://[^/\s]+(/market-bid/bid/\S+)", bodies["buyer@demo.test"]).group(1)
    for language, expected in (
        ("nb-NO", NORWEGIAN),
        ("de-DE", GERMAN),
        ("fi-FI", SWEDISH),  # no Finnish: the seller company's language
    ):
        text = page_text(client.get(f"{path}?lang={language}"))
        assert expected in text, language
    page = page_text(client.get(f"/market/adverts/{advert.id}?lang=de-DE"))
    assert GERMAN in page


def test_an_advert_without_translations_reads_as_written(as_demo):
    client, _ = as_demo("buyer")
    path = hrefs(client.get(LIST), "data-bid-link")[0]
    link = db.session.scalars(
        select(MarketLink).where(MarketLink.hash == path.rsplit("/", 1)[1])
        .execution_options(all_instances=True)
    ).one()  # fmt: skip
    advert = db.session.get(Advert, link.advert_id)
    advert.description, advert.description_texts = "Written once, in English.", {}
    db.session.flush()
    assert "Written once, in English." in page_text(client.get(f"{path}?lang=nl-NL"))
    advert.description_texts = {"sv-SE": "Skriven på svenska.", "en-GB": "Written in English."}
    db.session.flush()
    assert "Skriven på svenska." in page_text(client.get(f"{path}?lang=nl-NL"))
    assert "Written in English." in page_text(client.get(f"{path}?lang=en-GB"))


def test_bad_input_keeps_the_translations_and_saves_nothing(as_demo):
    client, token = as_demo("seller")
    response = client.post("/market/advert/add", data=_typed(token, regno=""))
    assert response.status_code == 422
    text = page_text(response)
    assert NORWEGIAN in text and GERMAN in text and SWEDISH in text
    assert re.search(r'<details class="texts-field-more" open>', text)
    assert db.session.scalars(select(Advert).where(Advert.model == "XC60 B4")).first() is None
    long = _typed(token, **{"description_texts-fi-FI": "x" * 5001})
    refused = client.post("/market/advert/add", data=long)
    assert refused.status_code == 422
    assert "At most 5000 characters: Suomi" in page_text(refused)


def test_a_drafts_form_shows_its_translations(as_demo):
    client, _ = as_demo("seller")
    draft = make_advert(nordbil(), "draft", description=SWEDISH,
                        description_texts={"sv-SE": SWEDISH, "nb-NO": NORWEGIAN})  # fmt: skip
    html = client.get(f"/market/adverts/{draft.id}/edit").get_data(as_text=True)
    assert f"{SWEDISH}</textarea>" in html and f">{NORWEGIAN}</textarea>" in html
    assert '<details class="texts-field-more" open>' in html
    assert 'name="description_texts-sv-SE"' not in html
