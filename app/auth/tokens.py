"""API tokens: `Authorization: Bearer <token>` on the /api calls the token's scopes allow.

A token acts as its own service user (login_type "api"): a member of the token's instance only,
with the roles, modules and divisions its creator chose from what they could grant themselves
(app.auth.privileges). Every view therefore checks a token's call exactly as it checks a
person's. Only the SHA-256 of the secret is stored; it is shown once, when it is made.

Each call with a token is checked as it starts, before the CSRF check: the token is known,
active, unexpired, and still no broader than its creator (who may have lost rights since); the
call is an /api call whose scope the token holds (app/core/scopes.py), or a public one (which
needs no token: the OpenAPI document, the public links); the token is within its rate limit. A request that also sends the session cookie is refused: a cookie session is always
checked for CSRF, and a token call is exempt only because it has no cookie (`g.stateless`,
app/extensions.py). The last use is written at most once a minute.
"""

import hashlib
import secrets
from datetime import datetime, timedelta

from flask import Flask, current_app, g, request
from flask_babel import gettext as _
from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String, select, update
from sqlalchemy.orm import Mapped, mapped_column, relationship
from werkzeug.datastructures import WWWAuthenticate
from werkzeug.exceptions import BadRequest, Forbidden, HTTPException, Unauthorized

from app.auth import privileges as P
from app.auth.models import MODULES, User
from app.core.api import OPERATIONS
from app.core.audit import MadeBy
from app.core.models import InstanceScoped, UTCDateTime, utcnow
from app.core.pages import is_public
from app.core.ratelimit import check_rate
from app.core.scopes import scope_for
from app.extensions import db, login_manager

PREFIX = "dc_"
LAST_USED_EVERY = timedelta(minutes=1)


class ApiToken(MadeBy, InstanceScoped, db.Model):
    """A machine caller of the API. `MadeBy` says who made it (an administrator acting as
    someone: both); its rights are its service user's."""

    __tablename__ = "api_user"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    token_hint: Mapped[str] = mapped_column(String(12))
    scopes: Mapped[list] = mapped_column(JSON, default=list)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    service_user_id: Mapped[int | None] = mapped_column(
        ForeignKey("user.id", ondelete="SET NULL"), index=True
    )

    service_user: Mapped[User | None] = relationship(foreign_keys=[service_user_id])

    @property
    def expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= utcnow()

    def revoke(self) -> None:
        """Refuse the token from its next call on; its service user can do nothing more."""
        self.active, self.revoked_at = False, utcnow()
        if self.service_user is not None:
            self.service_user.active = False
            self.service_user.modified_at = utcnow()


def hash_token(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    return PREFIX + secrets.token_urlsafe(32)


def set_secret(token: ApiToken, secret: str) -> None:
    token.token_hash, token.token_hint = hash_token(secret), secret[:10]


def token_for(secret: str) -> ApiToken | None:
    """The active, unexpired token a secret belongs to (any instance)."""
    if not secret or len(secret) > 200:
        return None
    token = db.session.scalars(
        select(ApiToken)
        .where(ApiToken.token_hash == hash_token(secret), ApiToken.active.is_(True))
        .execution_options(all_instances=True)
    ).first()
    return None if token is None or token.expired else token


def service_user(token: ApiToken, instance) -> User:
    """The token's service user, made on first need: a member of the token's instance only,
    who cannot sign in (no password, login_type "api")."""
    if token.service_user is None:
        user = User(
            email=f"api-{secrets.token_hex(8)}@tokens.invalid", firstname=token.name,
            lastname="", login_type="api", instances=[instance],
        )  # fmt: skip
        user.home_instance_id = user.active_instance_id = instance.id
        db.session.add(user)
        token.service_user = user
    token.service_user.firstname = token.name
    return token.service_user


def give_rights(token: ApiToken, instance, reach: P.Reach, divisions) -> User:
    """Give the token's service user `reach` in its instance (the caller has checked it against
    the maker's ceiling): its roles, modules and divisions (reach.divisions None: all)."""
    user = service_user(token, instance)
    membership = user.membership_in(instance.id) or user.join(instance)
    membership.roles = sorted(reach.roles)
    membership.modules = [m for m in MODULES if m in reach.modules]
    membership.all_divisions = reach.divisions is None
    user.divisions = [] if reach.divisions is None else list(divisions)
    user.modified_at = utcnow()
    return user


def make_token(
    name: str, maker: User, instance, scopes, reach: P.Reach, divisions=(), days: int = 90
) -> tuple[ApiToken, str]:
    """A new token of `maker` in `instance` with its secret (shown once), for the demo data and
    the tests; the admin screen makes its tokens the same way."""
    secret = new_secret()
    token = ApiToken(
        name=name, scopes=sorted(scopes), instance_id=instance.id,
        expires_at=utcnow() + timedelta(days=days), created_by_id=maker.id,
    )  # fmt: skip
    set_secret(token, secret)
    db.session.add(token)
    give_rights(token, instance, reach, divisions)
    db.session.flush()
    return token, secret


def service_reach(token: ApiToken) -> P.Reach | None:
    user = token.service_user
    return None if user is None else P.reach_of(user, token.instance_id)


def within_creators(token: ApiToken, reach: P.Reach) -> bool:
    """Whether a token's reach lies within what each of its makers (the administrator and,
    made while acting, the person acted as) could grant in its instance today."""
    makers = [i for i in (token.created_by_id, token.acting_as_id) if i is not None]
    if not makers:
        return False
    for maker_id in makers:
        maker = db.session.get(User, maker_id)
        if maker is None or not maker.is_active:
            return False
        own = P.acting_own_reach(maker, token.instance_id)
        if own is None or not reach.within(P.ceiling(own)):
            return False
    return True


# --- the check of each call ------------------------------------------------------------------


def bearer() -> str | None:
    """The request's bearer token, None when it sends none."""
    scheme, _sep, value = request.headers.get("Authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" else None


def _refuse(exc: type[HTTPException], text: str, error: str | None = None) -> HTTPException:
    """An error answer with `text` as its message; for a token not taken, RFC 6750's reason."""
    if error is not None:
        found = exc(www_authenticate=WWWAuthenticate("bearer", {"error": error}))
    else:
        found = exc()
    found.user_message = text
    return found


def _authenticate() -> None:
    """before_request, ahead of the CSRF check: a call with a bearer token is the token's."""
    secret = bearer()
    if secret is None:
        return
    if request.cookies.get(current_app.config["SESSION_COOKIE_NAME"]):
        raise _refuse(BadRequest, _("Send either an API token or the session cookie, not both."))
    if not request.path.startswith("/api/"):
        raise _refuse(Unauthorized, _("API tokens are taken by the /api calls only."))
    token = token_for(secret)
    reach = service_reach(token) if token is not None else None
    user = token.service_user if token is not None else None
    if token is None or reach is None or user is None or not user.is_active:
        text = _("This API token is unknown, revoked or expired.")
        raise _refuse(Unauthorized, text, "invalid_token")
    if not within_creators(token, reach):
        text = _("This API token has more rights than the person who made it holds today.")
        raise _refuse(Unauthorized, text, "invalid_token")
    if request.endpoint is not None and not is_public(request.endpoint):  # unknown path: 404
        needed = _scope(request.endpoint)
        if needed is None:
            raise _refuse(Forbidden, _("This call cannot be made with an API token."))
        if needed not in (token.scopes or []):
            text = _("This API token may not make this call (it needs %(scope)s).", scope=needed)
            raise _refuse(Forbidden, text)
    check_rate("API_TOKEN_RATE_LIMIT", f"token:{token.token_hash[:24]}")  # not its id: reused
    g.stateless, g.api_token_id, g.api_token_user = True, token.id, user
    _touch(token)


def _scope(endpoint: str) -> str | None:
    op = next((op for op in OPERATIONS if op.endpoint == endpoint), None)
    if op is None or request.method not in (op.method, "HEAD" if op.method == "GET" else ""):
        return None
    return scope_for(op.endpoint, op.method, op.public)


def _touch(token: ApiToken) -> None:
    """Write the token's last use (at most once a minute), in a transaction of its own."""
    now = utcnow()
    if token.last_used_at is not None and now - token.last_used_at < LAST_USED_EVERY:
        return
    db.session.execute(
        update(ApiToken)
        .where(ApiToken.id == token.id)
        .values(last_used_at=now)
        .execution_options(all_instances=True)
    )
    db.session.commit()


@login_manager.request_loader
def _token_user(_request) -> User | None:
    """Flask-Login asks here when the request has no session: the token's service user."""
    return g.get("api_token_user")


def init_app(app: Flask) -> None:
    app.before_request_funcs.setdefault(None, []).insert(0, _authenticate)
