"""Sign-in rules: password hashes, throttling of failed attempts, reset tokens."""

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

import email_validator
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from flask import current_app, url_for
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from app.auth.models import AuthThrottle, Membership, PasswordResetToken, User
from app.auth.session import revoke_all_sessions
from app.core import audit
from app.core.i18n import DEFAULT_LOCALE, to_locale
from app.core.locking import locked
from app.core.models import utcnow
from app.extensions import db
from app.mail.services import send_mail

_hasher = PasswordHasher()  # argon2id with the library's current recommended parameters
# Verified against on an unknown address, so both answers take the same time.
_DUMMY_HASH = _hasher.hash(secrets.token_hex(16))
PASSWORD_RE = re.compile(r"^(?=.*[a-z])(?=.*\d)(?=.*[^A-Za-z0-9\s]).{7,}$")
PASSWORD_MAX = 128
# The demo accounts (CONTRACT.md) live under .test, a name email-validator refuses as reserved;
# the forms and calls that check an address's syntax must accept them.
email_validator.SPECIAL_USE_DOMAIN_NAMES = [
    name for name in email_validator.SPECIAL_USE_DOMAIN_NAMES if name != "test"
]


def hash_password(password: str) -> str:
    """Return the argon2id hash of a password."""
    return _hasher.hash(password)


def verify_password(user: User | None, password: str) -> bool:
    """Check a password in constant time, rehashing when the parameters have changed."""
    stored = user.password_hash if user is not None and user.password_hash else _DUMMY_HASH
    try:
        _hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False
    if user is None or not user.password_hash:
        return False
    if _hasher.check_needs_rehash(stored):
        user.password_hash = hash_password(password)
    return True


def password_ok(password: str) -> bool:
    """Spec rule: at least 7 characters with a lowercase letter, a digit and a special one."""
    return bool(PASSWORD_RE.match(password or "")) and len(password) <= PASSWORD_MAX


def normalise_email(email: str) -> str:
    return (email or "").strip().lower()


def find_user(email: str) -> User | None:
    """Return the user with this e-mail address, whatever the instance."""
    stmt = select(User).where(func.lower(User.email) == normalise_email(email))
    return db.session.scalars(stmt.execution_options(all_instances=True)).first()


def active_members(instance_id: int, *where):
    """The query of an instance's active users (read from any instance: jobs, mails, events);
    `where`: further conditions."""
    return (
        select(User)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.instance_id == instance_id, User.active.is_(True), *where)
        .execution_options(all_instances=True)
    )


def mail_user(user: User, template: str, *, instance_id: int | None, kind=None, to=None, **ctx):
    """Send a user a mail in their language that names them (`to`: at another address)."""
    return send_mail(
        to=to or user.email,
        template=template,
        kind=kind or template,
        language=(user.options or {}).get("language") or DEFAULT_LOCALE,
        instance_id=instance_id,
        user_name=user.full_name,
        **ctx,
    )


# --- throttling ------------------------------------------------------------------------------


class TooManyAttempts(Exception):
    def __init__(self, retry_after: int) -> None:
        super().__init__(retry_after)
        self.retry_after = max(1, retry_after)


def _wait_seconds(row: AuthThrottle, rule: dict, now: datetime) -> int:
    """Seconds the key must still wait: growing delays after `free` failures, then a lock."""
    if row.failures < rule["free"]:
        return 0
    lock = rule.get("lock")
    if lock is not None and row.failures >= lock:
        until = row.last_failure_at + timedelta(minutes=rule["lock_minutes"])
    else:
        delay = 2 ** min(row.failures - rule["free"], 16)
        if rule.get("max_wait"):
            delay = min(delay, rule["max_wait"])
        until = row.last_failure_at + timedelta(seconds=delay)
    return max(0, int((until - now).total_seconds() + 0.999))


def _rows(keys: dict[str, str]) -> dict[str, AuthThrottle]:
    rows = db.session.scalars(select(AuthThrottle).where(AuthThrottle.key.in_(keys.values())))
    by_key = {row.key: row for row in rows}
    return {kind: by_key[key] for kind, key in keys.items() if key in by_key}


def _window_expired(row: AuthThrottle, rule: dict, now: datetime) -> bool:
    return now - row.last_failure_at > timedelta(minutes=rule["lock_minutes"])


def check_throttle(rules: dict, keys: dict[str, str]) -> None:
    """Raise TooManyAttempts when any key must still wait."""
    now = utcnow()
    waits = [
        _wait_seconds(row, rules[kind], now)
        for kind, row in _rows(keys).items()
        if not _window_expired(row, rules[kind], now)
    ]
    if waits and max(waits) > 0:
        raise TooManyAttempts(max(waits))


def count_failure(rules: dict, keys: dict[str, str]) -> None:
    """Count one failed attempt for every key, its rows locked first (concurrent failures
    neither lose a count nor, on SQLite, fail to upgrade a read transaction to a write)."""
    now = utcnow()
    rows = locked(select(AuthThrottle).where(AuthThrottle.key.in_(keys.values()))).scalars()
    by_key = {row.key: row for row in rows}
    existing = {kind: by_key[key] for kind, key in keys.items() if key in by_key}
    for kind, key in keys.items():
        row = existing.get(kind)
        if row is None:
            try:
                with db.session.begin_nested():
                    db.session.add(
                        AuthThrottle(key=key, failures=1, first_failure_at=now, last_failure_at=now)
                    )
                continue
            except IntegrityError:  # a parallel attempt inserted it first
                row = db.session.scalars(select(AuthThrottle).where(AuthThrottle.key == key)).one()
        if _window_expired(row, rules[kind], now):
            row.failures, row.first_failure_at, row.last_failure_at = 1, now, now
        else:
            row.failures += 1
            row.last_failure_at = now
    db.session.flush()


def clear_throttle(key: str) -> None:
    db.session.execute(AuthThrottle.__table__.delete().where(AuthThrottle.key == key))


# --- sign-in ---------------------------------------------------------------------------------


@dataclass
class SignIn:
    user: User | None
    ok: bool


def login_keys(email: str, address: str) -> dict[str, str]:
    """The throttle keys of a sign-in: this account from this address (`pair`, the only one
    ever locked), the account from anywhere and the address for any account (both only slowed).
    The address is the client's as the trusted proxies report it (TRUSTED_PROXIES)."""
    account = normalise_email(email)
    digest = hashlib.sha256(account.encode()).hexdigest()[:32]
    return {
        "pair": f"login:pair:{digest}|{address}",
        "account": f"login:acct:{account}",
        "address": f"login:ip:{address}",
    }


def authenticate(email: str, password: str, address: str) -> SignIn:
    """Check e-mail and password, throttled per account and address (login_keys).

    Raises TooManyAttempts while a key must wait; the attempt is then not even checked.
    """
    rules = current_app.config["LOGIN_THROTTLE"]
    keys = login_keys(email, address)
    check_throttle(rules, keys)
    user = find_user(email)
    ok = verify_password(user, password) and user is not None and user.is_active
    if not ok:
        count_failure(rules, keys)
        audit.record("login_failed", user=user, email=normalise_email(email)[:254])
        return SignIn(user, False)
    clear_throttle(keys["pair"])
    if user.active_instance_id is None and user.instances:
        user.active_instance_id = user.instances[0].id
    audit.record("login", user=user)
    return SignIn(user, True)


# --- password reset --------------------------------------------------------------------------


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def request_password_reset(email: str, address: str, language: str) -> None:
    """Mail a reset link when the address belongs to a user; the caller answers the same anyway."""
    rules = current_app.config["FORGOT_THROTTLE"]
    keys = {"address": f"forgot:ip:{address}"}
    check_throttle(rules, keys)
    count_failure(rules, keys)  # every request counts: it sends mail
    user = find_user(email)
    if user is None or not user.is_active or user.login_type != "default":
        return
    token = new_reset_token(user, timedelta(hours=current_app.config["RESET_TOKEN_HOURS"]))
    audit.record("password_reset_requested", user=user)
    language = to_locale((user.options or {}).get("language")) or to_locale(language)
    send_mail(
        to=user.email,
        template="password_reset",
        kind="password_reset",
        language=language or DEFAULT_LOCALE,
        instance_id=user.home_instance_id,
        user_name=user.full_name,
        reset_url=url_for("auth.reset_password", token=token, _external=True),
        hours=current_app.config["RESET_TOKEN_HOURS"],
    )


def new_reset_token(user: User, lifetime: timedelta) -> str:
    """A new link token for the user to choose a password (a reset, or an invitation's first
    password): only its hash is stored; it lapses after `lifetime`."""
    token = secrets.token_urlsafe(32)
    now = utcnow()
    db.session.add(
        PasswordResetToken(
            user=user, token_hash=_token_hash(token), created_at=now, expires_at=now + lifetime
        )
    )
    return token


def find_reset_token(token: str) -> PasswordResetToken | None:
    """Return the token's record when it is known, unused and not expired."""
    if not token or len(token) > 200:
        return None
    record = db.session.scalars(
        select(PasswordResetToken).where(PasswordResetToken.token_hash == _token_hash(token))
    ).first()
    if record is None or record.used_at is not None or record.expires_at <= utcnow():
        return None
    return record


def reset_password(token: str, password: str) -> User | None:
    """Set a new password with a valid token; the token and every session end with it."""
    record = find_reset_token(token)
    if record is None:
        return None
    user = record.user
    user.password_hash = hash_password(password)
    user.session_nonce = secrets.token_hex(8)
    record.used_at = utcnow()
    # Every other open link for this user ends too.
    for other in db.session.scalars(
        select(PasswordResetToken).where(
            PasswordResetToken.user_id == user.id, PasswordResetToken.used_at.is_(None)
        )
    ):
        other.used_at = record.used_at
    account = normalise_email(user.email)
    clear_throttle(f"login:acct:{account}")
    digest = hashlib.sha256(account.encode()).hexdigest()[:32]
    db.session.execute(
        AuthThrottle.__table__.delete().where(AuthThrottle.key.startswith(f"login:pair:{digest}|"))
    )

    revoke_all_sessions(user.id)
    audit.record("password_changed", user=user)
    return user
