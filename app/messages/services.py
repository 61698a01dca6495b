"""System messages: sanitising, the audience rule, the active messages of a user, viewed records."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

import nh3
from sqlalchemy import or_, select

from app.core.localized import for_reader
from app.core.models import utcnow
from app.extensions import db
from app.messages.models import SystemMessage, SystemMessageView

# What a description may hold: text formatting, lists, headings, tables and safe links.
ALLOWED_TAGS = {
    "a", "b", "blockquote", "br", "code", "em", "h2", "h3", "h4", "hr", "i", "li", "ol", "p",
    "pre", "s", "small", "span", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead",
    "tr", "u", "ul",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "td": {"colspan"}, "th": {"colspan", "scope"}}
SAFE_SCHEMES = {"http", "https", "mailto"}
KNOWN_TYPES = ("info", "warning", "success", "rankingSummary")


def sanitise(html: str | None) -> str:
    """The description as stored: no script or style, no event handlers, only safe links."""
    cleaned = nh3.clean(
        html or "",
        tags=ALLOWED_TAGS,
        clean_content_tags={"script", "style"},
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=SAFE_SCHEMES,
        link_rel="noopener noreferrer",
        set_tag_attribute_values={"a": {"target": "_blank"}},
    )
    return cleaned.strip()


def plain_text(html: str) -> str:
    """The description's text without markup (for lengths and list previews)."""
    return re.sub(r"\s+", " ", nh3.clean(html or "", tags=set())).strip()


@dataclass(frozen=True)
class Reader:
    """Who reads the messages: the user's id, active instance and roles."""

    user_id: int
    instance_id: int | None
    roles: frozenset[str]


def is_active(message: SystemMessage, now: datetime | None = None) -> bool:
    now = now or utcnow()
    return message.started_at <= now and (message.ended_at is None or message.ended_at > now)


def reaches(message: SystemMessage, reader: Reader) -> bool:
    """The audience rule: everyone, the users working in one instance, or holders of a role."""
    if message.audience == "instance":
        return reader.instance_id is not None and message.audience_instance_id == reader.instance_id
    if message.audience == "role":
        return bool(message.audience_role) and message.audience_role in reader.roles
    return True


def my_messages(reader: Reader, now: datetime | None = None) -> list[SystemMessage]:
    """The reader's active messages, oldest change first, without those the reader stopped
    showing (a later edit shows a message again)."""
    now = now or utcnow()
    rows = db.session.scalars(
        select(SystemMessage)
        .where(SystemMessage.started_at <= now)
        .where(or_(SystemMessage.ended_at.is_(None), SystemMessage.ended_at > now))
        .order_by(SystemMessage.modified_at, SystemMessage.id)
    ).all()
    viewed = dict(
        db.session.execute(
            select(SystemMessageView.message_id, SystemMessageView.message_modified_at).where(
                SystemMessageView.user_id == reader.user_id
            )
        ).all()
    )
    return [m for m in rows if reaches(m, reader) and viewed.get(m.id) != m.modified_at]


def to_api(message: SystemMessage) -> dict:
    """A message as GET system-messages/my-messages answers it (spec 01 section 3), its text in
    the reader's language (app.core.localized)."""
    return {
        "id": message.id,
        "type": message.type,
        "message": for_reader(message.message_texts, message.message),
        "description": for_reader(message.description_texts, message.description or ""),
        "modifiedAt": message.modified_at.isoformat(),
        "startedAt": message.started_at.isoformat(),
        "endedAt": message.ended_at.isoformat() if message.ended_at else None,
        "options": {"persistent": message.persistent, "showAs": message.show_as},
    }


def record_viewed(user_id: int, message: SystemMessage) -> SystemMessageView:
    """Remember that the user stopped showing this version of the message."""
    view = db.session.scalar(
        select(SystemMessageView).where(
            SystemMessageView.user_id == user_id, SystemMessageView.message_id == message.id
        )
    )
    if view is None:
        view = SystemMessageView(user_id=user_id, message_id=message.id)
        db.session.add(view)
    view.message_modified_at = message.modified_at
    view.viewed_at = utcnow()
    db.session.flush()
    return view


def save(message: SystemMessage, values: dict, user_id: int | None) -> SystemMessage:
    """Create or change a message from validated values; the description is sanitised and
    modified_at renewed, so that users see the changed message again."""
    message.type = values["type"]
    message.message = values["message"]
    message.message_texts = values.get("message_texts") or {}
    message.description = sanitise(values.get("description"))
    message.description_texts = {
        tag: html
        for tag, text in (values.get("description_texts") or {}).items()
        if (html := sanitise(text))
    }
    message.started_at = values["started_at"]
    message.ended_at = values.get("ended_at")
    message.persistent = bool(values.get("persistent"))
    message.show_as = values["show_as"]
    message.audience = values["audience"]
    message.audience_instance_id = (
        values.get("audience_instance_id") if message.audience == "instance" else None
    )
    message.audience_role = values.get("audience_role") if message.audience == "role" else None
    now = utcnow()
    if message.id is None:
        message.created_at = now
        message.created_by_id = user_id
        db.session.add(message)
    message.modified_at = now
    message.modified_by_id = user_id
    db.session.flush()
    return message


def status(message: SystemMessage, now: datetime | None = None) -> str:
    """scheduled, active or ended."""
    now = now or utcnow()
    if message.started_at > now:
        return "scheduled"
    return "active" if is_active(message, now) else "ended"
