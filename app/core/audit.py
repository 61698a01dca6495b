"""The audit log: who did what, on whose behalf, and when."""

from datetime import datetime

from flask import has_request_context, request
from flask_login import current_user
from sqlalchemy import JSON, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.models import UTCDateTime, utcnow
from app.extensions import db


class AuditLog(db.Model):
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    instance_id: Mapped[int | None] = mapped_column(
        ForeignKey("instance.id", ondelete="SET NULL"), index=True
    )
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    acting_user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    action: Mapped[str] = mapped_column(String(80), index=True)
    address: Mapped[str | None] = mapped_column(String(64))
    details: Mapped[dict] = mapped_column(JSON, default=dict)


def record(action: str, *, user=None, instance_id: int | None = None, **details) -> AuditLog:
    """Add an audit row for `action` to the session (the caller's commit stores it)."""
    actor = user
    if actor is None and has_request_context() and current_user.is_authenticated:
        actor = current_user
    entry = AuditLog(
        action=action,
        user_id=actor.id if actor is not None else None,
        instance_id=instance_id
        if instance_id is not None
        else getattr(actor, "active_instance_id", None),
        address=request.remote_addr if has_request_context() else None,
        details=details,
    )
    db.session.add(entry)
    return entry
