"""The demo's system messages: an alert and a dialog for each company's users, written in the
language of the company's country (Nordbil: Swedish, Fjordauto: Norwegian) and carrying all seven
languages, so each reader gets their own; never another company's."""

from sqlalchemy import select

from app.core.models import Country, Instance
from app.extensions import db
from app.messages.models import SystemMessage
from tests.helpers import sign_in
from tests.shell.conftest import demo_user

MY_MESSAGES = "/api/system-messages/my-messages"
ENGLISH = {"Planned maintenance on Sunday", "New: the ranking of your divisions"}
SWEDISH = {
    "alert": "Planerat underhåll söndag 06:00–07:00 UTC: DealerCare kan vara otillgängligt.",
    "modal": "Nyhet: rankingen av dina anläggningar",
}
NORWEGIAN = {
    "alert": "Planlagt vedlikehold søndag 06:00–07:00 UTC: DealerCare kan være utilgjengelig.",
    "modal": "Nyhet: rangeringen av dine avdelinger",
}


def mine(client) -> dict[str, dict]:
    """The signed-in user's messages, by how they are shown (one of each)."""
    response = client.get(MY_MESSAGES)
    assert response.status_code == 200, response.get_data(as_text=True)
    answer = response.get_json()
    assert sorted(m["options"]["showAs"] for m in answer) == ["alert", "modal"], answer
    return {m["options"]["showAs"]: m for m in answer}


def company(name: str) -> Instance:
    return db.session.scalars(select(Instance).where(Instance.company_name == name)).one()


def test_the_norwegian_buyer_reads_the_messages_of_fjordauto_in_norwegian(demo_client):
    sign_in(demo_client, demo_user("buyer@demo.test"))
    shown = mine(demo_client)
    assert {kind: m["message"] for kind, m in shown.items()} == NORWEGIAN
    assert shown["alert"]["type"] == "info"
    assert shown["alert"]["description"] == (
        "<p>Vi oppdaterer serverne. Kjøretøy og bud påvirkes ikke.</p>"
    )
    dialog = shown["modal"]
    assert dialog["type"] == "success"
    assert "<strong>rangeringssesong</strong>" in dialog["description"]
    assert "under <em>Rangering</em> i brukermenyen" in dialog["description"]  # the menu's entry
    assert dialog["description"].count("<li>") == 2
    assert "<li>En ny sesong starter hvert kvartal.</li>" in dialog["description"]
    assert not any(text in m["message"] for text in ENGLISH for m in shown.values())


def test_the_swedish_seller_reads_the_messages_of_nordbil_in_swedish(demo_client):
    seller = demo_user("seller@demo.test")
    seller.options = {**(seller.options or {}), "language": "sv-SE"}
    db.session.commit()
    sign_in(demo_client, seller)
    shown = mine(demo_client)
    assert {kind: m["message"] for kind, m in shown.items()} == SWEDISH
    assert "<strong>rankingsäsong</strong>" in shown["modal"]["description"]
    assert "under <em>Rankning</em> i användarmenyn" in shown["modal"]["description"]
    assert shown["alert"]["description"] == (
        "<p>Vi uppdaterar servrarna. Fordon och bud påverkas inte.</p>"
    )


def test_a_user_cannot_mark_another_companys_demo_message_as_read(demo_client):
    token = sign_in(demo_client, demo_user("buyer@demo.test"))
    nordbil = company("Nordbil AB")
    ids = db.session.scalars(
        select(SystemMessage.id).where(SystemMessage.audience_instance_id == nordbil.id)
    ).all()
    assert len(ids) == 2  # Nordbil's alert and dialog
    for message_id in ids:
        response = demo_client.post(
            f"/api/system-messages/{message_id}/viewed", json={}, headers={"X-CSRFToken": token}
        )
        assert response.status_code == 404


def test_the_admin_reads_the_messages_of_the_company_they_work_in(demo_client):
    token = sign_in(demo_client, demo_user("admin@demo.test"))  # English, both companies

    def of(name: str) -> set[int]:
        return set(
            db.session.scalars(
                select(SystemMessage.id).where(
                    SystemMessage.audience_instance_id == company(name).id
                )
            )
        )

    shown = mine(demo_client)
    assert {m["id"] for m in shown.values()} == of("Nordbil AB")  # Nordbil first
    assert shown["modal"]["message"] == "New: the ranking of your divisions"  # in English
    response = demo_client.patch(
        f"/api/me/change-active-instance/{company('Fjordauto AS').id}",
        headers={"X-CSRFToken": token},
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    shown = mine(demo_client)
    assert {m["id"] for m in shown.values()} == of("Fjordauto AS")
    assert shown["modal"]["message"] == "New: the ranking of your divisions"


def test_every_demo_company_has_an_alert_and_a_dialog_in_its_countrys_language(demo_app):
    for instance in db.session.scalars(select(Instance)):
        rows = db.session.scalars(
            select(SystemMessage).where(SystemMessage.audience_instance_id == instance.id)
        ).all()
        assert sorted(m.show_as for m in rows) == ["alert", "modal"], instance.company_name
        assert {m.audience for m in rows} == {"instance"}
        locale = db.session.scalars(
            select(Country.locale)
            .where(Country.instance_id == instance.id)
            .execution_options(all_instances=True)
        ).first()
        expected = NORWEGIAN if locale == "nb-NO" else SWEDISH
        assert locale in {"sv-SE", "nb-NO"}, (instance.company_name, locale)
        assert {m.show_as: m.message for m in rows} == expected, instance.company_name
    everyone = db.session.scalars(select(SystemMessage).where(SystemMessage.audience != "instance"))
    assert everyone.all() == []  # none for every company in one language


def test_an_english_reader_of_nordbil_reads_the_demo_messages_in_english(demo_client):
    """The demo's messages carry all seven languages (issue 37, point 7): a seller of the Swedish
    company who reads English gets the maintenance banner and the dialog in English."""
    seller = demo_user("seller@demo.test")
    seller.options = {**(seller.options or {}), "language": "en-GB"}
    db.session.commit()
    sign_in(demo_client, seller)
    shown = mine(demo_client)
    assert shown["alert"]["message"].startswith("Planned maintenance on Sunday")
    assert shown["alert"]["description"] == (
        "<p>We update the servers. Vehicles and bids are not affected.</p>"
    )
    assert shown["modal"]["message"] == "New: the ranking of your divisions"
    assert "<strong>ranking season</strong>" in shown["modal"]["description"]
