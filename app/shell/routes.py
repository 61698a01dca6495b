"""Shell pages: the start page, my settings, error and not-found; config and catalogues."""

from flask import (
    abort,
    current_app,
    jsonify,
    render_template,
    request,
    send_from_directory,
    url_for,
)
from flask_babel import gettext as _
from flask_login import current_user

from app.core.api import openapi_document
from app.core.i18n import LOCALES, current_locale, to_locale
from app.core.pages import public_page
from app.shell import bp


@bp.get("/")
def root():
    """The start page of a signed-in user."""
    return render_template("shell/home.html")


@bp.get("/user")
def settings():
    """My settings: language and landing page."""
    if current_user.login_type != "default":
        abort(404)
    languages = [{"code": code, "label": label} for code, label in LOCALES.items()]
    landing_pages = [{"value": "", "label": _("Start page")}]
    return render_template(
        "shell/settings.html",
        props={
            "language": to_locale((current_user.options or {}).get("language")) or current_locale(),
            "languages": languages,
            "landingPage": (current_user.options or {}).get("landingPage", ""),
            "landingPages": landing_pages,
            "saveUrl": "me/options",
        },
    )


@bp.get("/error")
@bp.get("/error/<message>")
@public_page
def error(message: str | None = None):
    """Spec 01: a title, the message translated under ERROR.{message}, and a way back."""
    message = (message or request.args.get("message") or "").strip()[:100]
    key = f"ERROR.{message}"
    text = _(key) if message else None  # a missing key shows the key
    return render_template("shell/error.html", title=_("Something went wrong"), message=text)


@bp.get("/not-found")
def not_found():
    return render_template("shell/not_found.html"), 404


@bp.get("/assets/config.json")
@public_page
def config_json():
    """Start-up configuration of the islands (spec 02 section 7)."""
    return jsonify(
        apiUrl=url_for("shell.root", _external=False) + "api/",
        language=current_locale(),
        title=current_app.config["APP_TITLE"],
    )


@bp.get("/assets/i18n/<language>.json")
@public_page
def i18n_json(language: str):
    """The islands' catalogue of one language, generated from the .po files by the build."""
    locale = to_locale(language)
    if locale is None:
        abort(404)
    response = send_from_directory(
        current_app.static_folder, f"dist/i18n/{locale}.json", max_age=300
    )
    response.headers["Content-Type"] = "application/json; charset=utf-8"
    return response


@bp.get("/api/openapi.json")
@public_page
def openapi_json():
    """The OpenAPI description of every JSON call, generated from the declared schemas."""
    return jsonify(openapi_document())
