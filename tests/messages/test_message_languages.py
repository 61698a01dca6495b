"""Admin-entered words in every language (issue 37, point 7): a system message keeps a text per
language, edited on its admin form as seven labelled inputs; a Swedish reader gets the Swedish
text, a German reader without a German text their company's language (Swedish here), and a
message with no texts the message as written."""

from datetime import timedelta

import pytest
from sqlalchemy import select

from app.core import roles as R
from app.core.localized import localized
from app.core.models import utcnow
from app.extensions import db
from app.messages.models import SystemMessage
from tests.factories import make_instance, make_user
from tests.helpers import page_text, sign_in

PATH = "/admin/global/system-messages"
READ = R.global_read("SYSTEM_MESSAGES")


def _form(token, **values) -> dict:
    return {
        "csrf_token": token,
        "type": "info",
        "message": "Service window tonight",
        "description": "",
        "started_at": (utcnow() - timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M"),
        "ended_at": "",
        "show_as": "alert",
        "audience": "all",
        "audience_instance_id": "",
        "audience_role": "",
        **values,
    }


def _read_as(client, language: str, instance) -> str:
    reader = make_user(instance)
    reader.options = {"language": language}
    db.session.flush()
    sign_in(client, reader)
    return client.get("/api/system-messages/my-messages").get_json()[0]["message"]


@pytest.mark.parametrize(
    ("texts", "locale", "fallback", "expected"),
    [
        ({"sv-SE": "Hej", "en-GB": "Hello"}, "sv-SE", "en-GB", "Hej"),
        ({"sv-SE": "Hej"}, "de-DE", "sv-SE", "Hej"),
        ({}, "de-DE", "sv-SE", "as written"),
        (None, None, None, "as written"),
    ],
)
def test_localized_takes_the_language_then_the_instances_then_the_default(
    texts, locale, fallback, expected
):
    assert localized(texts, locale, fallback, "as written") == expected


def test_the_admin_enters_the_texts_and_each_reader_gets_theirs(client):
    instance = make_instance()  # Sweden: its language is sv-SE
    admin = make_user(instance, roles=[R.ROLE_ADMIN, READ])
    token = sign_in(client, admin)
    form = page_text(client.get(f"{PATH}/new"))
    for name in ("Svenska", "Norsk bokmål", "Suomi", "Dansk", "English", "Deutsch", "Nederlands"):
        assert f">{name}</label>" in form
    data = _form(
        token,
        **{
            "message_texts-sv-SE": "  Servicefönster   i kväll ",
            "message_texts-en-GB": "Service window tonight",
        },
    )
    assert client.post(f"{PATH}/new", data=data).status_code == 302
    message = db.session.scalars(select(SystemMessage)).one()
    assert message.message_texts == {
        "sv-SE": "Servicefönster i kväll",
        "en-GB": "Service window tonight",
    }
    edit = page_text(client.get(f"{PATH}/{message.id}/edit"))
    assert 'value="Servicefönster i kväll"' in edit

    assert _read_as(client, "sv-SE", instance) == "Servicefönster i kväll"
    assert _read_as(client, "en-GB", instance) == "Service window tonight"
    assert _read_as(client, "de-DE", instance) == "Servicefönster i kväll"  # the company's


def test_a_message_without_texts_reads_as_written(client):
    instance = make_instance()
    admin = make_user(instance, roles=[R.ROLE_ADMIN, READ])
    token = sign_in(client, admin)
    assert client.post(f"{PATH}/new", data=_form(token)).status_code == 302
    assert _read_as(client, "de-DE", instance) == "Service window tonight"


def test_a_text_too_long_is_refused_naming_its_language_and_kept(client):
    admin = make_user(roles=[R.ROLE_ADMIN, READ])
    token = sign_in(client, admin)
    data = _form(token, **{"message_texts-de-DE": "x" * 301, "message_texts-sv-SE": "Hej"})
    response = client.post(f"{PATH}/new", data=data)
    assert response.status_code == 422
    text = page_text(response)
    assert "At most 300 characters: Deutsch." in text
    assert 'value="Hej"' in text
    assert db.session.scalars(select(SystemMessage)).all() == []


def _description_as(client, language: str, instance) -> str:
    reader = make_user(instance)
    reader.options = {"language": language}
    db.session.flush()
    sign_in(client, reader)
    return client.get("/api/system-messages/my-messages").get_json()[0]["description"]


def test_the_description_has_a_text_per_language_sanitised_and_kept_in_lines(client):
    instance = make_instance()  # Sweden: its language is sv-SE
    admin = make_user(instance, roles=[R.ROLE_ADMIN, READ])
    token = sign_in(client, admin)
    form = page_text(client.get(f"{PATH}/new"))
    assert 'name="description_texts-en-GB"' in form and "<textarea" in form
    data = _form(
        token,
        description="<p>As written</p>",
        **{
            "description_texts-sv-SE": "<p>Servicefönster</p>\n<ul><li>i kväll</li></ul>",
            "description_texts-en-GB": '<p onclick="x()">Service window</p><script>x()</script>',
        },
    )
    assert client.post(f"{PATH}/new", data=data).status_code == 302
    message = db.session.scalars(select(SystemMessage)).one()
    assert message.description_texts["sv-SE"] == "<p>Servicefönster</p>\n<ul><li>i kväll</li></ul>"
    assert "script" not in message.description_texts["en-GB"]
    assert "onclick" not in message.description_texts["en-GB"]
    edit = client.get(f"{PATH}/{message.id}/edit").get_data(as_text=True)
    assert 'lang="sv-SE" rows="4" maxlength="20000">&lt;p&gt;Servicefönster&lt;/p&gt;' in edit

    assert _description_as(client, "en-GB", instance).startswith("<p>Service window</p>")
    assert _description_as(client, "sv-SE", instance).startswith("<p>Servicefönster</p>")
    assert _description_as(client, "de-DE", instance).startswith("<p>Servicefönster</p>")
