"""Sending e-mail: render in the recipient's language, store, then deliver through a job."""

import smtplib
from datetime import timedelta
from email.message import EmailMessage as MimeMessage
from functools import cache
from urllib.parse import parse_qs, unquote, urlsplit

from flask import current_app, render_template
from flask_babel import force_locale
from sqlalchemy import select

from app.config import ROOT
from app.core import jobs
from app.core.i18n import DEFAULT_TIME_ZONE, babel_name, force_time_zone
from app.core.models import utcnow
from app.extensions import db
from app.mail.jobs import resend_after
from app.mail.models import EmailAttachment, EmailMessage

# Delivery attempts in all before an error that may pass (the server down or busy) fails a
# mail for good, and the wait before the resend sweep tries again after each: 5, 15, 45 and
# 135 minutes, about three hours and a half from the first attempt to the last.
MAX_ATTEMPTS = 5
FIRST_BACKOFF = timedelta(minutes=5)

# What may replace a mail's rendered texts: `override(template, language, instance_id, ctx)` is
# (subject, html, text) or None. The administration adds its edited templates with
# `@mail_override` (app.admin.mail_templates); mail sits below it.
OVERRIDES: list = []


def mail_folder(template: str) -> str:
    """Where a mail's templates are: each feature keeps its mails in templates/<feature>/emails/
    as <template>.subject.txt, .txt and .html (a name is the mail's key, unique across features)."""
    return _mail_folders()[template]


@cache
def _mail_folders() -> dict[str, str]:
    folders: dict[str, str] = {}
    for path in sorted((ROOT / "templates").glob("*/emails/*.subject.txt")):
        name = path.name.removesuffix(".subject.txt")
        if name in folders:
            raise LookupError(f"two mail templates named {name}: {folders[name]}, {path.parent}")
        folders[name] = path.parent.relative_to(ROOT / "templates").as_posix()
    return folders


def mail_override(override):
    """Register a source of edited mail texts (see OVERRIDES)."""
    OVERRIDES.append(override)
    return override


def send_mail(
    *,
    to: str,
    template: str,
    kind: str,
    language: str,
    instance_id=None,
    time_zone=None,
    job_key: str | None = None,
    attachments: tuple[tuple[str, str, str], ...] = (),
    **ctx,
):
    """Render the mail `template` (mail_folder) in the recipient's language and time zone (every
    date filter follows it), store the mail and queue its delivery. `job_key`: the RQ job that
    stores it, for the job's next run to find (stored_by_job). `attachments`: (file name,
    content type, text) each, sent with the mail and shown at its preview."""
    now = utcnow()
    mail = EmailMessage(
        to_address=to,
        kind=kind,
        language=language,
        instance_id=instance_id,
        subject="",
        body_text="",
        body_html="",
        job_key=job_key,
        created_at=now,
        retry_at=now + resend_after(),  # the sweep's, should its delivery job never run
    )
    db.session.add(mail)
    db.session.flush()
    time_zone = time_zone or DEFAULT_TIME_ZONE
    with force_locale(babel_name(language)), force_time_zone(time_zone):
        ctx |= {"mail": mail, "language": language, "time_zone": time_zone}
        ctx["app_title"] = current_app.config["APP_TITLE"]
        folder = mail_folder(template)
        mail.subject = render_template(f"{folder}/{template}.subject.txt", **ctx).strip()
        mail.body_text = render_template(f"{folder}/{template}.txt", **ctx)
        mail.body_html = render_template(f"{folder}/{template}.html", **ctx)
    for override in OVERRIDES:
        if (custom := override(template, language, instance_id, ctx)) is not None:
            mail.subject, mail.body_html, mail.body_text = custom
            break
    for filename, content_type, body in attachments:
        db.session.add(
            EmailAttachment(
                mail_id=mail.id, filename=filename, content_type=content_type, body=body
            )
        )
    db.session.flush()
    jobs.enqueue("app.mail.services:deliver", mail.id)
    return mail


def attachments_of(mail_id: int) -> list[EmailAttachment]:
    return list(
        db.session.scalars(
            select(EmailAttachment)
            .where(EmailAttachment.mail_id == mail_id)
            .order_by(EmailAttachment.id)
        )
    )


def stored_by_job(job_key: str | None) -> EmailMessage | None:
    """The mail an earlier run of the RQ job `job_key` stored (it was cut off and runs again),
    its delivery queued again while it is still queued; None when there is none (or no job)."""
    if job_key is None:
        return None
    mail = db.session.scalar(select(EmailMessage).where(EmailMessage.job_key == job_key))
    if mail is not None:
        redeliver(mail)
    return mail


def redeliver(mail: EmailMessage) -> None:
    """Queue a stored mail's delivery again if it is still queued: the run that stored it may
    have been cut off before it sent the delivery job. Twice is harmless (deliver skips a mail
    already sent)."""
    if mail.status == "queued":
        jobs.enqueue("app.mail.services:deliver", mail.id)


def deliver(mail_id: int) -> str:
    """Job: send a stored mail over SMTP when MAIL_URL is set; otherwise it stays stored.

    An error that may pass (passing_error) leaves the mail queued for the resend sweep to try
    again after a backoff, up to MAX_ATTEMPTS attempts in all; any other error, or the last
    attempt's, fails it for good.

    Run again (a retry, or a second delivery job: redeliver), a mail already sent is not sent
    twice; only a worker that dies between the SMTP server's answer and the commit can leave one
    to be sent again (at least once). Two runs at once take turns: the row stays locked until
    the commit (PostgreSQL; SQLite has no row locks)."""
    mail = db.session.get(EmailMessage, mail_id, with_for_update=True, populate_existing=True)
    if mail is None:
        return "missing"
    if mail.status == "sent":
        return mail.status
    url = current_app.config["MAIL_URL"]
    if not url:
        mail.status = "stored"
        return mail.status
    message = MimeMessage()
    message["Subject"], message["To"] = mail.subject, mail.to_address
    message["From"] = current_app.config["MAIL_FROM"]
    message.set_content(mail.body_text)
    message.add_alternative(mail.body_html, subtype="html")
    for attachment in attachments_of(mail.id):
        maintype, subtype = attachment.content_type.split(";", 1)[0].split("/", 1)
        message.add_attachment(
            attachment.body.encode(), maintype=maintype, subtype=subtype,
            filename=attachment.filename,
        )  # fmt: skip
    mail.attempts += 1
    try:
        with smtp_connection(url) as smtp:
            smtp.send_message(message)
        mail.status, mail.sent_at, mail.error = "sent", utcnow(), None
    except OSError as exc:  # smtplib.SMTPException is one
        mail.error = str(exc)[:500]
        if passing_error(exc) and mail.attempts < MAX_ATTEMPTS:
            mail.retry_at = utcnow() + FIRST_BACKOFF * 3 ** (mail.attempts - 1)
        else:
            mail.status = "failed"
    return mail.status


def passing_error(exc: OSError) -> bool:
    """Whether an SMTP error may pass: no connection, a connection dropped or timed out, or a
    4xx reply (every refused recipient's, when recipients are refused). 5xx replies, and
    authentication refused with one, will not."""
    if isinstance(exc, smtplib.SMTPConnectError | smtplib.SMTPServerDisconnected):
        return True
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in exc.recipients.values()]
        return bool(codes) and all(400 <= code < 500 for code in codes)
    if isinstance(exc, smtplib.SMTPResponseException):
        return 400 <= exc.smtp_code < 500
    return not isinstance(exc, smtplib.SMTPException)


def smtp_connection(url: str) -> smtplib.SMTP:
    """Open an SMTP connection from smtp://user:pass@host:port?starttls=1 or smtps://..."""
    parts = urlsplit(url)
    options = parse_qs(parts.query)
    cls = smtplib.SMTP_SSL if parts.scheme == "smtps" else smtplib.SMTP
    smtp = cls(
        parts.hostname or "localhost",
        parts.port or (465 if cls is smtplib.SMTP_SSL else 25),
        timeout=20,
    )
    if options.get("starttls", ["0"])[0] in ("1", "true"):
        smtp.starttls()
    if parts.username:
        smtp.login(unquote(parts.username), unquote(parts.password or ""))
    return smtp
