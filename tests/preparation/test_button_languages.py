"""State button titles in every language (issue 37, point 7): the vehicle page shows each
button's title in the reader's language, the company's language where that is missing, and the
admin form edits the seven titles."""

import re

from sqlalchemy import select

from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import PreparationItem, StateButton
from tests.helpers import page_text, sign_in
from tests.market._common import demo_user, nordbil


def _read_as(client, language: str, item) -> list[str]:
    user = demo_user("seller@demo.test")
    user.options = {**(user.options or {}), "language": language}
    db.session.flush()
    sign_in(client, user)
    html = client.get(f"/begcare/{item.id}", follow_redirects=True).get_data(as_text=True)
    group = re.search(r'class="state-buttons".*?</div>', html, re.S).group(0)
    return re.findall(r'<button type="submit"[^>]*>([^<]+)</button>', group)


def _incoming() -> PreparationItem:
    activate(nordbil().instance_id)
    return db.session.scalars(
        select(PreparationItem)
        .where(PreparationItem.module == "begcare", PreparationItem.state == 2)
        .order_by(PreparationItem.id)
    ).first()


def test_a_swedish_reader_gets_swedish_titles_and_a_german_one_the_fallback(demo_client):
    item = _incoming()
    assert _read_as(demo_client, "sv-SE", item) == ["Vänta på iordningställande", "Arkivera"]
    assert _read_as(demo_client, "de-DE", item) == ["Auf Aufbereitung warten", "Archivieren"]
    activate(nordbil().instance_id)
    for button in db.session.scalars(select(StateButton).where(StateButton.from_state == 2)):
        button.title_texts = {k: v for k, v in button.title_texts.items() if k != "de-DE"}
    db.session.flush()
    # No German title: the company's language (Nordbil is Swedish).
    assert _read_as(demo_client, "de-DE", item) == ["Vänta på iordningställande", "Arkivera"]


def test_the_admin_form_edits_the_titles_per_language(demo_client):
    admin = demo_user("admin@demo.test")
    admin.options = {**(admin.options or {}), "language": "en-GB"}
    db.session.flush()
    token = sign_in(demo_client, admin)
    activate(nordbil().instance_id)
    button = db.session.scalars(
        select(StateButton).where(StateButton.module == "begcare", StateButton.from_state == 2)
    ).first()
    activate(None)
    path = f"/admin/begcare/state-buttons/{button.id}/edit"
    form = demo_client.get(path)
    assert form.status_code == 200
    text = page_text(form)
    assert "Button title in each language" in text and ">Deutsch</label>" in text
    data = {
        "csrf_token": token,
        "division_id": "",
        "from_state": str(button.from_state),
        "to_state": str(button.to_state),
        "title": button.title,
        "ordering": str(button.ordering),
        "title_texts-sv-SE": "Vänta",
        "title_texts-de-DE": "",
    }
    assert demo_client.post(path, data=data).status_code == 302
    db.session.refresh(button)
    assert button.title_texts == {"sv-SE": "Vänta"}
