"""A user's calendar feed: the secret link a calendar program subscribes to."""

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.audit import MadeBy
from app.core.models import UTCDateTime, utcnow
from app.extensions import db


class CalendarFeed(MadeBy, db.Model):
    """One secret feed link per user; only the SHA-256 of its 128-bit token is stored, so a
    new link replaces the old one and turning the feed off deletes the row. A link made by an
    administrator acting as the user belongs to that acting session (`acting_session_id`, the
    administrator's signed-in session): it ends when the acting ends."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), unique=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_read_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    acting_session_id: Mapped[int | None] = mapped_column(
        ForeignKey("user_session.id", ondelete="CASCADE"), index=True
    )
