"""Outgoing mail: the public preview, delivery over SMTP, and a failing server."""

import re
from datetime import timedelta
from email import message_from_bytes, policy

from sqlalchemy import select

from app.config import ROOT
from app.core.models import utcnow
from app.extensions import db
from app.mail.models import EmailMessage
from app.mail.services import _mail_folders, mail_folder
from app.market.bidder_mail import TEMPLATES
from tests.conftest import csrf_token
from tests.factories import make_user
from tests.helpers import page_text, translated
from tests.mail._smtp import free_port, mail_through


def ask_for_reset(client, email):
    return client.post(
        "/api/auth/forgot-password",
        json={"email": email},
        headers={"X-CSRFToken": csrf_token(client)},
    )


def the_mail(address: str) -> EmailMessage:
    db.session.expire_all()
    stmt = select(EmailMessage).where(EmailMessage.to_address == address)
    return db.session.scalars(stmt).one()


# --- the preview -------------------------------------------------------------------------------


def test_an_unknown_preview_is_a_404_page_for_signed_out_users(client, app):
    response = client.get("/email-preview/unknown-id")
    assert response.status_code == 404
    assert "Location" not in response.headers  # public: no detour to the login page
    assert translated(app, "The page or item could not be found.") in page_text(response)


def test_the_preview_shows_subject_recipient_and_body(client):
    user = make_user(firstname="Ada")
    ask_for_reset(client, user.email)
    mail = the_mail(user.email)
    response = client.get(f"/email-preview/{mail.public_id}")
    assert response.status_code == 200
    text = page_text(response)
    assert mail.subject and mail.subject in text
    assert user.email in text
    assert "Ada" in text
    assert "<script" not in mail.body_html


def test_preview_ids_are_long_and_random(client):
    users = [make_user(), make_user()]
    for user in users:
        ask_for_reset(client, user.email)
    ids = [the_mail(user.email).public_id for user in users]
    assert ids[0] != ids[1]
    assert all(len(i) >= 22 for i in ids)  # 128 bits in URL-safe base64
    assert client.get(f"/email-preview/{ids[0][:-1]}").status_code == 404


# --- delivery ----------------------------------------------------------------------------------


def test_with_mail_url_the_mail_is_sent_over_smtp(client, app, smtp_server, monkeypatch):
    mail_through(app, smtp_server, monkeypatch)
    user = make_user()
    assert ask_for_reset(client, user.email).status_code == 200

    mail = the_mail(user.email)
    assert mail.status == "sent"
    assert mail.sent_at is not None
    assert mail.error is None
    assert len(smtp_server.received) == 1
    envelope = smtp_server.received[0]
    assert user.email in envelope["rcpt"][0]
    sent = message_from_bytes(envelope["data"], policy=policy.default)
    assert sent["To"] == user.email
    assert sent["Subject"] == mail.subject
    assert sent["From"] == app.config["MAIL_FROM"]
    body = sent.get_body(preferencelist=("plain",)).get_content()
    assert "/reset-password/" in body
    assert sent.get_body(preferencelist=("html",)) is not None


def test_an_unreachable_smtp_server_leaves_the_mail_queued_to_be_tried_again(
    client, app, monkeypatch
):
    monkeypatch.setitem(app.config, "MAIL_URL", f"smtp://127.0.0.1:{free_port()}")
    user = make_user()
    asked = utcnow()
    response = ask_for_reset(client, user.email)
    assert response.status_code == 200  # the request does not break
    assert response.get_json() == {"message": translated(app, "FORGOT_PASSWORD_EMAIL_SENT")}
    mail = the_mail(user.email)
    assert mail.status == "queued"  # the resend sweep tries again in 5 minutes
    assert mail.attempts == 1
    assert asked + timedelta(minutes=5) <= mail.retry_at <= utcnow() + timedelta(minutes=5)
    assert mail.error
    assert mail.sent_at is None
    assert client.get(f"/email-preview/{mail.public_id}").status_code == 200  # still stored


def test_without_mail_url_the_mail_is_only_stored(client, app):
    assert app.config["MAIL_URL"] is None
    user = make_user()
    ask_for_reset(client, user.email)
    assert the_mail(user.email).status == "stored"


# --- where the mails are -----------------------------------------------------------------------


def test_every_mail_lives_in_its_features_emails_folder():
    """Each feature keeps its mails in templates/<feature>/emails/: every template a send_mail
    call names has its subject, text and HTML there, once across the features, and no mail is
    left in a shared folder."""
    templates = ROOT / "templates"
    named = set()
    for path in (ROOT / "app").rglob("*.py"):
        named |= set(re.findall(r'template="(\w+)"', path.read_text(encoding="utf-8")))
    named |= {"booking_booked", "booking_cancelled", "booking_moved"}  # template=f"booking_{what}"
    named |= set(TEMPLATES.values())
    assert named <= set(_mail_folders())
    for name in named:
        folder = mail_folder(name)
        assert folder.endswith("/emails") and folder.count("/") == 1, folder
        for suffix in (".subject.txt", ".txt", ".html"):
            assert (templates / folder / f"{name}{suffix}").is_file(), (name, suffix)
    assert not list((templates / "emails").glob("*"))
