"""Stored e-mails, so that every mail can be previewed at email-preview/{id}."""

import secrets
from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.models import UTCDateTime, utcnow
from app.extensions import db


def preview_token() -> str:
    """Return a 128-bit random id for a mail's public preview link."""
    return secrets.token_urlsafe(16)


class EmailMessage(db.Model):
    # The resend sweep (app.mail.jobs) reads the queued mails whose retry_at has passed, in
    # that order: an index range instead of a scan of every mail ever stored.
    __table_args__ = (Index("ix_email_message_status_retry_at", "status", "retry_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    public_id: Mapped[str] = mapped_column(String(40), unique=True, default=preview_token)
    instance_id: Mapped[int | None] = mapped_column(ForeignKey("instance.id", ondelete="SET NULL"))
    to_address: Mapped[str] = mapped_column(String(254))
    subject: Mapped[str] = mapped_column(String(300))
    body_text: Mapped[str] = mapped_column(Text)
    body_html: Mapped[str] = mapped_column(Text)
    language: Mapped[str] = mapped_column(String(5))
    kind: Mapped[str] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(
        String(20), default="queued"
    )  # queued, stored, sent, failed
    error: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Delivery attempts over SMTP, and when the resend sweep may queue the delivery of a mail
    # still queued again: resend_after() after it was stored, then the backoff after an error
    # that may pass (app.mail.services.deliver).
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    retry_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The RQ job that stored the mail, for a job that stores one: run again after it was cut
    # off, the job finds its mail by this key instead of storing another (NULL inline).
    job_key: Mapped[str | None] = mapped_column(String(64), unique=True)


class EmailAttachment(db.Model):
    """A file sent with a stored mail (a calendar invitation), shown at the mail's preview."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    mail_id: Mapped[int] = mapped_column(
        ForeignKey("email_message.id", ondelete="CASCADE"), index=True
    )
    filename: Mapped[str] = mapped_column(String(100))
    content_type: Mapped[str] = mapped_column(String(100))
    body: Mapped[str] = mapped_column(Text)
