"""Starting and ending a signed-in session.

The session cookie is signed by Flask, but a cookie alone cannot be taken back: each sign-in
therefore also stores a `UserSession` row, named in the cookie by a random id (`_sid`). A
request is signed in only while that row is neither revoked nor expired, so logging out (or
"sign out everywhere", or a new password) ends the session on the server, copied cookies
included."""

import hashlib
import secrets
from collections.abc import Callable
from datetime import timedelta
from urllib.parse import urlsplit

from flask import current_app, session
from flask_login import login_user, logout_user
from sqlalchemy import bindparam, exists, select, update
from sqlalchemy.orm import joinedload

from app.auth.models import User, UserSession
from app.core import audit
from app.core.models import utcnow
from app.extensions import db, login_manager

SESSION_ID_KEY = "_sid"
IMPERSONATOR_KEY = "impersonator"


def _hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def new_session_id(user: User) -> str:
    """Store a new server-side session for `user` and return its id (for the cookie)."""
    session_id = secrets.token_urlsafe(32)
    now = utcnow()
    lifetime = current_app.config.get("PERMANENT_SESSION_LIFETIME") or timedelta(hours=12)
    db.session.add(
        UserSession(
            user_id=user.id, token_hash=_hash(session_id), created_at=now, expires_at=now + lifetime
        )
    )
    db.session.flush()
    return session_id


def start_session(user: User) -> None:
    """Sign `user` in on a fresh session (no fixation: the old session's contents go) and
    commit its server-side record."""
    session.clear()
    session[SESSION_ID_KEY] = new_session_id(user)
    login_user(user)
    session.permanent = True
    db.session.commit()


def revoke_session(session_id: str | None) -> None:
    if session_id:
        db.session.execute(
            update(UserSession)
            .where(UserSession.token_hash == _hash(session_id), UserSession.revoked_at.is_(None))
            .values(revoked_at=utcnow())
        )


# What else ends with every session of a user ("sign out everywhere", a new password), and
# with an administrator's acting as someone else: features add a function (of the user id, of
# the acting session's UserSession id) with `@on_revoke_all` and `@on_acting_end`.
_ON_REVOKE_ALL: list[Callable[[int], object]] = []
_ON_ACTING_END: list[Callable[[int | None], object]] = []


def on_revoke_all(fn: Callable[[int], object]) -> Callable[[int], object]:
    _ON_REVOKE_ALL.append(fn)
    return fn


def on_acting_end(fn: Callable[[int | None], object]) -> Callable[[int | None], object]:
    _ON_ACTING_END.append(fn)
    return fn


def acting_ended() -> None:
    """Run what ends with this session's acting as someone else (the caller commits)."""
    row_id = current_session_row()
    for fn in _ON_ACTING_END:
        fn(row_id)


def revoke_all_sessions(user_id: int) -> None:
    """End every session of a user, on every device, and what ends with them (the caller
    commits)."""
    db.session.execute(
        update(UserSession)
        .where(UserSession.user_id == user_id, UserSession.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    for fn in _ON_REVOKE_ALL:
        fn(user_id)


def current_session_row() -> int | None:
    """The id of the UserSession row this request's cookie names (the signer's), or None."""
    session_id = session.get(SESSION_ID_KEY)
    if not isinstance(session_id, str) or not session_id:
        return None
    return db.session.scalar(
        select(UserSession.id).where(UserSession.token_hash == _hash(session_id))
    )


def end_session(user: User | None) -> None:
    """Sign out: the server-side session is revoked (the caller commits) and the cookie
    emptied."""
    if user is not None and user.is_authenticated:
        audit.record("logout", user=user)
    revoke_session(session.get(SESSION_ID_KEY))
    logout_user()
    session.clear()


def session_alive(signer_id: int) -> bool:
    """Whether the request's session id names a live session of the user who signed in."""
    session_id = session.get(SESSION_ID_KEY)
    if not isinstance(session_id, str) or not session_id:
        return False
    found = db.session.scalar(
        select(UserSession.id).where(
            UserSession.token_hash == _hash(session_id),
            UserSession.user_id == signer_id,
            UserSession.revoked_at.is_(None),
            UserSession.expires_at > utcnow(),
        )
    )
    return found is not None


def safe_next(target: str | None) -> str | None:
    """Return `target` only when it is a path on this site (no scheme, host, backslash or
    control character, which browsers drop and so could turn `/\t/x` into `//x`)."""
    if not target:
        return None
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in target):
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return None
    if "\\" in target:
        return None
    return target


def signer_id(user_id: int) -> int | None:
    """Who signed this session in: the impersonator while acting as someone else."""
    raw = session.get(IMPERSONATOR_KEY)
    if raw is None:
        return user_id
    head = str(raw).partition(".")[0]
    return int(head) if head.isdigit() and len(head) < 12 else None


def _user_query():
    """The signed-in user with their active instance, and whether the session named in the
    cookie is live for the user who signed it in: one statement, one round trip. Built once
    per process with bound parameters (SQLAlchemy also keeps its compiled form)."""
    alive = (
        exists()
        .where(
            UserSession.token_hash == bindparam("token_hash"),
            UserSession.user_id == bindparam("signer_id"),
            UserSession.revoked_at.is_(None),
            UserSession.expires_at > bindparam("now", type_=UserSession.expires_at.type),
        )
        .label("alive")
    )
    return (
        select(User, alive)
        .options(joinedload(User.active_instance))
        .where(User.id == bindparam("user_id"))
        .execution_options(all_instances=True)
    )


_USER_QUERY = None


@login_manager.user_loader
def load_user(user_id: str) -> User | None:
    """The user of a `get_id()` value, while their nonce matches, they are active and the
    server-side session of whoever signed in (the impersonator while acting) is live."""
    global _USER_QUERY
    raw_id, _, nonce = user_id.partition(".")
    if not raw_id.isdigit() or len(raw_id) > 11:
        return None
    signer = signer_id(int(raw_id))
    session_id = session.get(SESSION_ID_KEY)
    if signer is None or not isinstance(session_id, str) or not session_id:
        return None
    if _USER_QUERY is None:
        _USER_QUERY = _user_query()
    row = db.session.execute(
        _USER_QUERY,
        {
            "user_id": int(raw_id), "signer_id": signer, "token_hash": _hash(session_id),
            "now": utcnow(),
        },
    ).first()  # fmt: skip
    if row is None:
        return None
    user, alive = row
    if user.session_nonce != nonce or not user.is_active or not alive:
        return None
    return user
