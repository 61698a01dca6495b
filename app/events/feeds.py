"""The secret calendar link: made, replaced, turned off, and found again by its token.

A link made while an administrator acts as the user is theirs as such (`MadeBy`) and belongs to
the acting session: it answers only while that signed-in session lives, and it is deleted when
the acting stops. "Sign out everywhere" and a new password turn the user's link off."""

import hashlib
import secrets

from sqlalchemy import delete, select

from app.auth.models import User, UserSession
from app.auth.session import current_session_row, on_acting_end, on_revoke_all
from app.core.audit import acting_admin
from app.core.models import utcnow
from app.events.models import CalendarFeed
from app.extensions import db

TOKEN_BYTES = 16  # 128 bits


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def feed_of(user_id: int) -> CalendarFeed | None:
    return db.session.scalars(select(CalendarFeed).where(CalendarFeed.user_id == user_id)).first()


def new_link(user: User) -> str:
    """Make a new secret token for the user (an older link stops working); return it."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    feed = feed_of(user.id)
    if feed is None:
        feed = CalendarFeed(user_id=user.id)
        db.session.add(feed)
    feed.token_hash, feed.created_at, feed.last_read_at = _hash(token), utcnow(), None
    feed.stamp(user.id)
    feed.acting_session_id = current_session_row() if acting_admin() is not None else None
    db.session.flush()
    return token


@on_revoke_all
def turn_off(user_id: int) -> bool:
    return bool(
        db.session.execute(delete(CalendarFeed).where(CalendarFeed.user_id == user_id)).rowcount
    )


@on_acting_end
def end_acting_session(session_row_id: int | None) -> None:
    """The links made in an acting session stop working when the acting stops."""
    if session_row_id is not None:
        db.session.execute(
            delete(CalendarFeed).where(CalendarFeed.acting_session_id == session_row_id)
        )


def find(token: str) -> CalendarFeed | None:
    """The feed a token opens (only its hash is compared; an unknown token finds nothing, nor
    does a link whose acting session has ended or whose maker has gone)."""
    if not token or len(token) > 64:
        return None
    feed = db.session.scalars(
        select(CalendarFeed).where(CalendarFeed.token_hash == _hash(token))
    ).first()
    if feed is None or feed.acting_session_id is None:
        return feed
    acting = db.session.execute(
        select(UserSession.id)
        .join(User, User.id == UserSession.user_id)
        .where(
            UserSession.id == feed.acting_session_id,
            UserSession.user_id == feed.created_by_id,
            UserSession.revoked_at.is_(None),
            UserSession.expires_at > utcnow(),
            User.active.is_(True),
        )
    ).first()
    return feed if acting is not None else None
