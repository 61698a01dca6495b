"""Error answers: JSON for calls, pages for people; never a traceback, always a request id."""

import logging
import secrets

from flask import Flask, g, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException

from app.core.numbers import BadInteger
from app.core.pages import is_public
from app.extensions import db

log = logging.getLogger("app.errors")


def wants_json() -> bool:
    """Tell whether the request is a JSON call rather than a page."""
    return request.path.startswith(("/api/", "/assets/"))


def storage_full(exc: BaseException) -> bool:
    """Tell whether a database error says its disk is full (PostgreSQL's SQLSTATE 53100 or
    any "No space left on device"; SQLite's SQLITE_FULL)."""
    original = getattr(exc, "orig", exc)
    if getattr(original, "sqlstate", None) == "53100":
        return True
    text = str(original).lower()
    return "no space left on device" in text or "database or disk is full" in text


def storage_full_message() -> str:
    return _(
        "There is no room left to store this. Nothing was saved: please try again later or tell your administrator."
    )


def _messages() -> dict[int, str]:
    return {
        400: _("The request could not be read."),
        401: _("Sign in to continue."),
        403: _("You do not have permission to do this."),
        404: _("The page or item could not be found."),
        405: _("This action is not allowed here."),
        413: _("The upload is too large."),
        429: _("Too many attempts. Please wait and try again."),
    }


def init_app(app: Flask) -> None:
    @app.before_request
    def _request_id():
        g.request_id = secrets.token_hex(6)

    @app.after_request
    def _request_id_header(response):
        response.headers["X-Request-Id"] = g.get("request_id", "")
        return response

    @app.errorhandler(CSRFError)
    def _csrf(exc: CSRFError):
        if wants_json() and not current_user.is_authenticated and not is_public(request.endpoint):
            # The session is gone, and its CSRF secret with it: say 401, so that the page
            # offers the login modal and retries the call with the new token.
            return jsonify({"message": _("Sign in to continue.")}), 401
        text = _("Your form has expired or was sent from elsewhere. Please try again.")
        if wants_json():
            return jsonify({"message": text}), 400
        return render_template("shell/error.html", title=_("Please try again"), message=text), 400

    @app.errorhandler(BadInteger)
    def _bad_integer(exc: BadInteger):
        """A form or query integer that is not a whole number in range (app/core/numbers.py):
        422 naming the field, nothing done."""
        db.session.rollback()
        text = exc.message
        if wants_json():
            body = {
                "message": text,
                "errors": {exc.field: text},
                "keys": {exc.field: "INVALID_VALUE"},
            }
            return jsonify(body), 422
        page = render_template("shell/error.html", title=_("Please check your input"), message=text)
        return page, 422

    @app.errorhandler(OperationalError)
    def _database(exc: OperationalError):
        """A full disk answers 507 with a message (the transaction is rolled back, nothing is
        kept); any other database failure is an unexpected error."""
        if not storage_full(exc):
            return _unexpected(exc)

        log.error("storage full, request id %s: %s", g.get("request_id"), exc.orig)
        db.session.rollback()
        text = storage_full_message()
        if wants_json():
            return jsonify({"message": text, "requestId": g.get("request_id")}), 507
        page = render_template("shell/error.html", title=_("Storage is full"), message=text)
        return page, 507

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        status = exc.code or 500
        text = _messages().get(status, exc.name)
        # What the exception itself says in headers (Allow on a 405, WWW-Authenticate, …).
        headers = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}
        if status == 429 and exc.response is None:
            retry = getattr(exc, "retry_after", None)
            if retry:
                headers["Retry-After"] = str(retry)
        if wants_json():
            body = {"message": getattr(exc, "user_message", None) or text}
            return jsonify(body), status, headers
        if status == 401:
            return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))
        if status == 404:
            if not current_user.is_authenticated and not is_public(request.endpoint):
                return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))
            return render_template("shell/not_found.html"), 404, headers
        page = render_template(
            "shell/error.html",
            title=exc.name if status >= 500 else text,
            message=getattr(exc, "user_message", None) or text,
        )
        return page, status, headers

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        log.exception("unhandled error, request id %s", g.get("request_id"))

        db.session.rollback()
        text = _("Something went wrong on our side. We have logged it.")
        if wants_json():
            return jsonify({"message": text, "requestId": g.get("request_id")}), 500
        return (
            render_template(
                "shell/error.html",
                title=_("Something went wrong"),
                message=text,
                request_id=g.get("request_id"),
            ),
            500,
        )
