"""Sign-in JSON calls (the spec's "user service") and the signed-in user's own record."""

from collections.abc import Callable
from typing import Annotated

from flask import request
from flask_login import current_user
from flask_wtf.csrf import generate_csrf
from pydantic import EmailStr, Field, ValidationInfo, WithJsonSchema, field_validator
from pydantic_core import PydanticCustomError

from app.auth import api_bp, services
from app.auth.session import safe_next, start_session
from app.core.api import ApiError, Schema, api_call, parse_body
from app.core.i18n import LOCALES, TIME_ZONES, current_locale, to_locale
from app.core.messages import message
from app.extensions import csrf, db


class LoginBody(Schema):
    required_keys = {"password": "PASSWORD_REQUIRED"}

    email: str = Field(min_length=1, max_length=254)
    password: str = Field(min_length=1, max_length=services.PASSWORD_MAX)


class ForgotBody(Schema):
    email: EmailStr = Field(max_length=254)


class ResetBody(Schema):
    required_keys = {
        "password": "PASSWORD_REQUIRED",
        "verifyPassword": "VERIFY_PASSWORD_REQUIRED",
    }

    password: str = Field(min_length=1, max_length=services.PASSWORD_MAX)
    verify_password: str = Field(
        alias="verifyPassword", min_length=1, max_length=services.PASSWORD_MAX
    )

    @field_validator("password")
    @classmethod
    def _pattern(cls, value: str) -> str:
        if not services.password_ok(value):
            raise PydanticCustomError("PASSWORD_PATTERN", "PASSWORD_PATTERN")
        return value

    @field_validator("verify_password")
    @classmethod
    def _match(cls, value: str, info: ValidationInfo) -> str:
        # The error belongs to the verify field, as on the form; a refused password is not compared.
        password = info.data.get("password")
        if password is not None and value != password:
            raise PydanticCustomError("PASSWORDS_DOESNT_MATCH", "PASSWORDS_DOESNT_MATCH")
        return value


class MessageOut(Schema):
    message: str


class TokenOut(Schema):
    valid: bool


class NamedRef(Schema):
    id: int
    name: str


class DynamicListRefOut(Schema):
    title: str
    uuid: str


class DynamicListMenuItem(Schema):
    dynamic_list: DynamicListRefOut = Field(serialization_alias="dynamicList")


class MeOut(Schema):
    id: int
    username: str
    firstname: str
    lastname: str
    roles: list[str]
    options: dict
    login_type: str = Field(serialization_alias="loginType")
    modules: list[str]
    custom_lists: list[NamedRef] = Field(serialization_alias="customLists")
    dynamic_list_menu_items: list[DynamicListMenuItem] = Field(
        serialization_alias="dynamicListMenuItems"
    )
    is_authenticated_fully: bool = Field(serialization_alias="isAuthenticatedFully")
    is_logged_in: bool = Field(serialization_alias="isLoggedIn")


class LoginOut(Schema):
    user: MeOut
    csrf_token: str = Field(serialization_alias="csrfToken")


# A landing page is a path of this site (safe_next): no scheme or host, no backslash or control
# character. The published schema says so; the validator below decides.
LANDING_SCHEMA = {
    "anyOf": [
        {
            "type": "string",
            "maxLength": 200,
            "pattern": "^\\s*(/(?![/\\\\])[^\\\\\\u0000-\\u001f\\u007f]*)?$",
        },
        {"type": "null"},
    ]
}
LANGUAGE_SCHEMA = {"anyOf": [{"type": "string", "enum": list(LOCALES)}, {"type": "null"}]}
# The document lists the zones the call takes ("" clears the choice), not any string.
TIME_ZONE_SCHEMA = {"anyOf": [{"type": "string", "enum": ["", *TIME_ZONES]}, {"type": "null"}]}


class OptionsBody(Schema):
    language: Annotated[str | None, WithJsonSchema(LANGUAGE_SCHEMA)] = Field(
        default=None, max_length=10
    )
    landing_page: Annotated[str | None, WithJsonSchema(LANDING_SCHEMA)] = Field(
        default=None, alias="landingPage", max_length=200
    )
    time_zone: Annotated[str | None, WithJsonSchema(TIME_ZONE_SCHEMA)] = Field(
        default=None, alias="timeZone", max_length=64
    )

    @field_validator("time_zone")
    @classmethod
    def _time_zone(cls, value: str | None) -> str | None:
        if value and value not in TIME_ZONES:
            raise PydanticCustomError("INVALID_VALUE", "INVALID_VALUE")
        return value or None

    @field_validator("language")
    @classmethod
    def _language(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if (locale := to_locale(value)) is None or locale not in LOCALES:
            raise PydanticCustomError("INVALID_VALUE", "INVALID_VALUE")
        return locale

    @field_validator("landing_page")
    @classmethod
    def _landing(cls, value: str | None) -> str | None:
        if value and safe_next(value) is None:  # the same check as `next`: a path of this site
            raise PydanticCustomError("INVALID_VALUE", "INVALID_VALUE")
        return value


def throttled(exc: services.TooManyAttempts) -> ApiError:
    """429 with Retry-After and the message; the counted attempt is kept."""
    db.session.commit()
    seconds = exc.retry_after
    return ApiError(
        429, message("TOO_MANY_ATTEMPTS", seconds=seconds), headers={"Retry-After": str(seconds)}
    )


# What features add to /api/me: `read(user)` gives some of MeOut's fields by name (the user's
# lists: app.preparation.viewer_parts). Read from the database, not from the viewer's snapshot:
# the sign-in call answers before the request's tenancy is set.
ME_FIELDS: list[Callable] = []


def me_fields(read: Callable) -> Callable:
    """Register `read(user) -> {field: value}` as fields of /api/me."""
    ME_FIELDS.append(read)
    return read


def me_out(user) -> MeOut:
    """Serialise the signed-in user as spec 01 section 3 names it."""
    fields = {"custom_lists": [], "dynamic_list_menu_items": []}
    for read in ME_FIELDS:
        fields.update(read(user))
    return MeOut(
        id=user.id,
        username=user.username,
        firstname=user.firstname,
        lastname=user.lastname,
        roles=sorted(user.all_roles()),
        options=user.options or {},
        login_type=user.login_type,
        modules=list(user.modules or []),
        **fields,
        is_authenticated_fully=True,
        is_logged_in=True,
    )


def _same_origin() -> bool:
    origin = request.headers.get("Origin")
    return origin is None or origin.rstrip("/") == request.host_url.rstrip("/")


@csrf.exempt  # a JSON body cannot be sent cross-site without CORS; the origin is checked too
@api_call(
    api_bp,
    "/auth/login",
    "POST",
    body=LoginBody,
    response=LoginOut,
    public=True,
    errors=(401, 403),
)
def login(body: LoginBody):
    """Sign in with e-mail and password (used by the login modal)."""
    if not _same_origin():
        raise ApiError(403, message("ERROR.FORBIDDEN"))
    try:
        result = services.authenticate(body.email, body.password, request.remote_addr or "")
    except services.TooManyAttempts as exc:
        raise throttled(exc) from None
    db.session.commit()
    if not result.ok:
        raise ApiError(401, message("INVALID_CREDENTIALS"))
    start_session(result.user)
    return LoginOut(user=me_out(result.user), csrf_token=generate_csrf())


@api_call(
    api_bp, "/auth/forgot-password", "POST", body=ForgotBody, response=MessageOut, public=True
)
def forgot_password(body: ForgotBody):
    """Mail a reset link; the answer is the same whether or not the address exists."""
    try:
        services.request_password_reset(
            str(body.email), request.remote_addr or "", current_locale()
        )
    except services.TooManyAttempts as exc:
        raise throttled(exc) from None
    db.session.commit()
    return MessageOut(message=message("FORGOT_PASSWORD_EMAIL_SENT"))


@api_call(api_bp, "/auth/reset-password/<token>", "GET", response=TokenOut, public=True)
def check_reset_token(token: str):
    """Tell whether a reset link is still valid."""
    if services.find_reset_token(token) is None:
        raise ApiError(404, message("INVALID_RESET_TOKEN"))
    return TokenOut(valid=True)


@api_call(
    api_bp,
    "/auth/reset-password/<token>",
    "POST",
    bodies=(ResetBody,),
    response=MessageOut,
    public=True,
)
def change_password(token: str):
    """Set a new password with a valid reset link (an unknown link is a 404 before its body is
    read)."""
    if services.find_reset_token(token) is None:
        raise ApiError(404, message("INVALID_RESET_TOKEN"))
    body = parse_body(ResetBody)
    if services.reset_password(token, body.password) is None:
        raise ApiError(404, message("INVALID_RESET_TOKEN"))
    db.session.commit()
    return MessageOut(message=message("PASSWORD_CHANGED"))


@api_call(api_bp, "/me", "GET", response=MeOut)
def me():
    """The signed-in user."""
    return me_out(current_user)
