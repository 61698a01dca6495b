"""Starting and ending a signed-in session."""

from urllib.parse import urlsplit

from flask import session
from flask_login import login_user, logout_user

from app.auth.models import User
from app.core import audit
from app.extensions import login_manager


def start_session(user: User) -> None:
    """Sign `user` in on a fresh session (no fixation: the old session's contents go)."""
    session.clear()
    login_user(user)
    session.permanent = True


def end_session(user: User | None) -> None:
    if user is not None and user.is_authenticated:
        audit.record("logout", user=user)
    logout_user()
    session.clear()


def safe_next(target: str | None) -> str | None:
    """Return `target` only when it is a path on this site."""
    if not target:
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return None
    if "\\" in target:
        return None
    return target


@login_manager.user_loader
def load_user(user_id: str) -> User | None:
    from sqlalchemy import select
    from sqlalchemy.orm import joinedload

    from app.extensions import db

    raw_id, _, nonce = user_id.partition(".")
    if not raw_id.isdigit():
        return None
    user = db.session.scalars(
        select(User)
        .options(joinedload(User.active_instance))
        .where(User.id == int(raw_id))
        .execution_options(all_instances=True)
    ).first()
    if user is None or user.session_nonce != nonce or not user.is_active:
        return None
    return user
