"""The secret calendar link: made, replaced, turned off, and found again by its token."""

import hashlib
import secrets

from sqlalchemy import delete, select

from app.core.models import utcnow
from app.events.models import CalendarFeed
from app.extensions import db

TOKEN_BYTES = 16  # 128 bits


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def feed_of(user_id: int) -> CalendarFeed | None:
    return db.session.scalars(select(CalendarFeed).where(CalendarFeed.user_id == user_id)).first()


def new_link(user_id: int) -> str:
    """Make a new secret token for the user (an older link stops working); return it."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    feed = feed_of(user_id)
    if feed is None:
        feed = CalendarFeed(user_id=user_id)
        db.session.add(feed)
    feed.token_hash, feed.created_at, feed.last_read_at = _hash(token), utcnow(), None
    db.session.flush()
    return token


def turn_off(user_id: int) -> bool:
    return bool(
        db.session.execute(delete(CalendarFeed).where(CalendarFeed.user_id == user_id)).rowcount
    )


def find(token: str) -> CalendarFeed | None:
    """The feed a token opens (only its hash is compared; an unknown token finds nothing)."""
    if not token or len(token) > 64:
        return None
    return db.session.scalars(
        select(CalendarFeed).where(CalendarFeed.token_hash == _hash(token))
    ).first()
