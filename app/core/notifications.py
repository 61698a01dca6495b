"""In-app notifications: a line for one user, shown under the bell in the shell's header and on
the notifications page, until they mark it read.

A notification stores a text's key and its parameters, not a text: each user reads it in their
own language when the page is drawn. The features register their texts here
(`NOTIFICATION_TEXTS[key] = _l("… %(name)s …")`), below the shell, which shows them.
"""

from collections.abc import Iterable
from datetime import datetime

from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from sqlalchemy import JSON, ForeignKey, Index, Integer, String, func, insert, select, update
from sqlalchemy.orm import Mapped, mapped_column

from app.core.cache import LRUCache
from app.core.localized import for_reader
from app.core.models import Instance, InstanceScoped, UTCDateTime, new_version, utcnow
from app.core.tenancy import active_instance_id
from app.extensions import db

# key -> the catalogue's text with %(name)s parameters.
NOTIFICATION_TEXTS: dict[str, object] = {
    "event": _l("%(event)s: %(subject)s (event rule %(rule)s)"),
}
KEEP = 200  # the page lists the newest this many


class Notification(InstanceScoped, db.Model):
    """One line for one user: a text (key and parameters), where it leads, and when read."""

    __table_args__ = (Index("ix_notification_user_read", "user_id", "read_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(40))
    params: Mapped[dict] = mapped_column(JSON, default=dict)
    link: Mapped[str] = mapped_column(String(300), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    read_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    @property
    def text(self) -> str:
        """The text in the reader's language (the request's locale)."""
        template = NOTIFICATION_TEXTS.get(self.key)
        if template is None:
            return self.key
        params = {k: _translated(v) for k, v in (self.params or {}).items()}
        try:
            return str(template) % params
        except (KeyError, ValueError, TypeError):  # a text changed since: its words, unfilled
            return str(template)


MSGID = "msgid"
TEXTS = "texts"


def _translated(value):
    """A parameter given as {MSGID: …} is a catalogue text of its own (an event's name); one
    given as {TEXTS: {tag: text}, "text": …} is entered words in each language (a station's
    name, app.core.localized)."""
    if isinstance(value, dict) and MSGID in value:
        return gettext(value[MSGID])
    if isinstance(value, dict) and TEXTS in value:
        return for_reader(value[TEXTS], value.get("text", ""))
    return value


def notify(instance_id: int, user_ids: Iterable[int], key: str, link: str = "", **params) -> int:
    """Add one notification per user (the caller commits); how many."""
    return notify_all(instance_id, user_ids, key, [(link, params)])


def notify_all(
    instance_id: int, user_ids: Iterable[int], key: str, lines: list[tuple[str, dict]]
) -> int:
    """`notify` of several lines at once, each (link, params), to every user: the users' bells
    told once (the caller commits); how many notifications."""
    if key not in NOTIFICATION_TEXTS:
        raise ValueError(f"unknown notification {key}")
    rows = [
        {"instance_id": instance_id, "user_id": u, "key": key, "params": params, "link": link}
        for link, params in lines
        for u in sorted(set(user_ids))
    ]
    if rows:
        db.session.execute(insert(Notification), rows)  # one INSERT for them all
        _bump(instance_id)
    return len(rows)


def _bump(instance_id: int) -> None:
    table = Instance.__table__
    db.session.execute(
        update(table).where(table.c.id == instance_id).values(notices_version=new_version())
    )


# (user id, instance id, notices version) -> unread count: one user's count, never another's.
_UNREAD = LRUCache(4096)


def unread_count(user_id: int, instance: Instance | None = None) -> int:
    """The user's unread notifications in the active instance: counted (one indexed count)
    once per user and notices version of the instance (when given)."""
    key = (user_id, instance.id, instance.notices_version) if instance is not None else None
    if key is not None and (cached := _UNREAD.get(key)) is not None:
        return cached
    count = db.session.scalar(
        select(func.count())
        .select_from(Notification)
        .where(Notification.user_id == user_id, Notification.read_at.is_(None))
    )
    if key is not None:
        _UNREAD.put(key, count)
    return count


def of_user(user_id: int) -> list[Notification]:
    """The user's notifications in the active instance, newest first."""
    return list(
        db.session.scalars(
            select(Notification)
            .where(Notification.user_id == user_id)
            .order_by(Notification.created_at.desc(), Notification.id.desc())
            .limit(KEEP)
        )
    )


def is_theirs(user_id: int, notification_id: int) -> bool:
    """Whether the notification is the user's, in the active instance."""
    return bool(
        db.session.scalar(
            select(Notification.id).where(
                Notification.id == notification_id, Notification.user_id == user_id
            )
        )
    )


def mark_read(user_id: int, notification_id: int | None = None) -> int:
    """Mark one of the user's notifications (None: all of them) read; how many changed. Another
    user's or instance's id changes nothing."""
    stmt = update(Notification).where(
        Notification.instance_id == active_instance_id(),
        Notification.user_id == user_id,
        Notification.read_at.is_(None),
    )
    if notification_id is not None:
        stmt = stmt.where(Notification.id == notification_id)
    changed = db.session.execute(stmt.values(read_at=utcnow())).rowcount
    if changed:
        _bump(active_instance_id())
    return changed
