"""Webhook endpoints, their deliveries and each delivery's attempts."""

import secrets
from datetime import datetime

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.core.audit import MadeBy
from app.core.models import InstanceScoped, UTCDateTime, utcnow
from app.extensions import db


def new_signing_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(24)


class WebhookEndpoint(MadeBy, InstanceScoped, db.Model):
    """A web address that receives the events it subscribes to, signed with its secret."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    url: Mapped[str] = mapped_column(String(500))
    events: Mapped[list] = mapped_column(JSON, default=list)
    secret: Mapped[str] = mapped_column(String(80), default=new_signing_secret)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    # Paused after PAUSE_AFTER deliveries failed in a row; the administrator is told.
    paused_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    failed_in_row: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class WebhookDelivery(InstanceScoped, db.Model):
    """One event sent to one endpoint: its payload, where it stands and when it is tried next."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    endpoint_id: Mapped[int] = mapped_column(
        ForeignKey("webhook_endpoint.id", ondelete="CASCADE"), index=True
    )
    event: Mapped[str] = mapped_column(String(40))
    payload: Mapped[dict] = mapped_column(JSON)
    # pending (a job will send it), retrying (next_attempt_at), delivered, failed
    status: Mapped[str] = mapped_column(String(10), default="pending", index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)

    endpoint: Mapped[WebhookEndpoint] = relationship()
    tries: Mapped[list["WebhookAttempt"]] = relationship(
        order_by="WebhookAttempt.id", cascade="all, delete-orphan"
    )


class WebhookAttempt(db.Model):
    """One try of a delivery: the answer's status (None: no answer) and how long it took."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    delivery_id: Mapped[int] = mapped_column(
        ForeignKey("webhook_delivery.id", ondelete="CASCADE"), index=True
    )
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    status_code: Mapped[int | None] = mapped_column(Integer)
    response_ms: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str] = mapped_column(Text, default="")
