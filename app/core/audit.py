"""The audit log: who did what, on whose behalf, and when.

While an administrator acts as someone else (app.auth.impersonation puts them in
`g.impersonator`), the one who really did it is the `user_id` and the user acted as the
`acting_user_id`, on the audit row and, through `MadeBy`, on what the request creates."""

from datetime import datetime

from flask import g, has_request_context, request
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
    # The division the entry concerns (a division's row, item or setting); None: the instance's.
    division_id: Mapped[int | None] = mapped_column(
        ForeignKey("division.id", ondelete="SET NULL"), index=True
    )
    action: Mapped[str] = mapped_column(String(80), index=True)
    address: Mapped[str | None] = mapped_column(String(64))
    details: Mapped[dict] = mapped_column(JSON, default=dict)


def acting_admin():
    """The administrator acting as the signed-in user in this request, or None."""
    return g.get("impersonator") if has_request_context() else None


def who_really(actor_id: int | None) -> tuple[int | None, int | None]:
    """(who really did it, whom they acted as or None) for something done as `actor_id`."""
    admin = acting_admin()
    if admin is None or actor_id is None or admin.id == actor_id:
        return actor_id, None
    return admin.id, actor_id


class MadeBy:
    """Who really made a row: the user, or the administrator acting as them (`acting_as_id`
    then names the user), so that what is made while acting is owned as such. `stamp` fills
    both from the request."""

    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    acting_as_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))

    def stamp(self, user_id: int) -> None:
        self.created_by_id, self.acting_as_id = who_really(user_id)


def record(
    action: str,
    *,
    user=None,
    instance_id: int | None = None,
    division_id: int | None = None,
    **details,
) -> AuditLog:
    """Add an audit row for `action` to the session (the caller's commit stores it)."""
    actor = user
    if actor is None and has_request_context() and current_user.is_authenticated:
        actor = current_user
    user_id, acting_user_id = who_really(actor.id if actor is not None else None)
    entry = AuditLog(
        action=action,
        user_id=user_id,
        acting_user_id=acting_user_id,
        division_id=division_id,
        instance_id=instance_id
        if instance_id is not None
        else getattr(actor, "active_instance_id", None),
        address=request.remote_addr if has_request_context() else None,
        details=details,
    )
    db.session.add(entry)
    return entry
