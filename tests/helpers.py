"""Helpers shared by the request tests: signing in, reading pages and translated texts."""

import html
import re

from flask import Flask
from flask_babel import force_locale
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from app.auth.models import User
from app.core.messages import message
from tests.conftest import csrf_token


def sign_in(client, user: User) -> str:
    """Put `user` into the client's session as a sign-in would; return the page's CSRF token.

    The real sign-in (argon2 verification) is tested in tests/auth; elsewhere this keeps the
    suite fast.
    """
    from app.auth.session import SESSION_ID_KEY, new_session_id

    session_id = new_session_id(user)  # the server-side session a sign-in stores
    with client.session_transaction() as session:
        session.clear()
        session[SESSION_ID_KEY] = session_id
        session["_user_id"] = user.get_id()
        session["_fresh"] = True
        session.permanent = True
    return csrf_token(client, "/error")


def translated(app: Flask, key: str, locale: str = "en_GB", **params) -> str:
    """The text a user reading `locale` sees for a message key or msgid."""
    with app.test_request_context(), force_locale(locale):
        return message(key, **params)


def page_text(response) -> str:
    """The response body with HTML entities resolved, for asserting on visible text."""
    return html.unescape(response.get_data(as_text=True))


def html_lang(response) -> str | None:
    match = re.search(r'<html lang="([^"]*)"', response.get_data(as_text=True))
    return match.group(1) if match else None


def message_key(response, field: str) -> str | None:
    """The spec message key shown under a form field (data-message-key of its error)."""
    pattern = rf'id="{field}-error"\s+data-message-key="([A-Z_.]+)"'
    match = re.search(pattern, response.get_data(as_text=True))
    return match.group(1) if match else None


def documented(client, method: str, path: str) -> set[int]:
    """The statuses /api/openapi.json lists for `method` on `path` (its template, as
    "/api/dashboard-widgets/{widget_id}"): every status a call answers must be one of them."""
    doc = client.get("/api/openapi.json").get_json()
    return {int(code) for code in doc["paths"][path][method.lower()]["responses"]}


def schema_errors(doc: dict, pointer: str, value) -> list[str]:
    """What the schema at `pointer` (a JSON pointer) of the API document refuses in `value`, its
    $refs read in the document itself."""
    resource = Resource(contents=doc, specification=DRAFT202012)
    registry = Registry().with_resource("urn:doc", resource)
    validator = Draft202012Validator({"$ref": f"urn:doc#{pointer}"}, registry=registry)
    return [f"{pointer}: {error.message}" for error in validator.iter_errors(value)]
