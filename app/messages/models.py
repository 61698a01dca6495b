"""System messages written by global admins, and the records of who has seen which version."""

from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.core.models import UTCDateTime, utcnow
from app.extensions import db

TYPES = ("info", "warning", "success", "rankingSummary", "danger")
SHOW_AS = ("modal", "alert")
AUDIENCES = ("all", "instance", "role")


class SystemMessage(db.Model):
    """A message to the users of every instance, one instance or one role (not instance
    scoped: global admins write it for the whole platform)."""

    __table_args__ = (
        CheckConstraint("show_as IN ('modal', 'alert')", name="show_as"),
        CheckConstraint("audience IN ('all', 'instance', 'role')", name="audience"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[str] = mapped_column(String(30), default="info")
    message: Mapped[str] = mapped_column(String(300))
    # The message per language, {tag: text} (app.core.localized); `message` as written is the
    # last fall-back.
    message_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    description: Mapped[str] = mapped_column(Text, default="")  # sanitised HTML
    description_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    persistent: Mapped[bool] = mapped_column(Boolean, default=False)
    show_as: Mapped[str] = mapped_column(String(10), default="alert")
    audience: Mapped[str] = mapped_column(String(10), default="all")
    audience_instance_id: Mapped[int | None] = mapped_column(
        ForeignKey("instance.id", ondelete="CASCADE"), index=True
    )
    audience_role: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    modified_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    modified_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))


class SystemMessageView(db.Model):
    """A user chose "stop showing" for one version (modified_at) of a message."""

    __table_args__ = (UniqueConstraint("user_id", "message_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    message_id: Mapped[int] = mapped_column(
        ForeignKey("system_message.id", ondelete="CASCADE"), index=True
    )
    message_modified_at: Mapped[datetime] = mapped_column(UTCDateTime)
    viewed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
