"""Shell pages: the start page, error and not-found; config and catalogues."""

from urllib.parse import urlencode

from flask import (
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    send_from_directory,
    session,
    url_for,
)
from flask_babel import gettext as _

from app.auth import impersonation
from app.auth.session import safe_next
from app.auth.viewer import DIVISION_SESSION_KEY, KEBAB, viewer
from app.core.api import openapi_document
from app.core.i18n import current_locale, to_locale
from app.core.pages import public_page
from app.extensions import db
from app.shell import bp
from app.shell.landing import landing_target
from app.shell.layout import current_shell
from app.shell.menu import can_administer


@bp.get("/")
def root():
    """Spec 01 landing rule: the user's landing page, else the first available module."""
    target = landing_target(viewer())
    if target:
        return redirect(target)
    return render_template("shell/home.html")


@bp.get("/<any(begcare, newcare, 'purchase-analysis', market):kebab>")
def module_home(kebab: str):
    """A module's start: its sections, with the vehicle counts per state."""
    v = viewer()
    module = next((m for m, k in KEBAB.items() if k == kebab), None)
    if module not in v.modules:
        abort(404)
    entry = next(n for n in current_shell().menu if n.entry.path == f"/{kebab}")
    return render_template("shell/module_home.html", node=entry, module=module)


@bp.get("/admin")
def admin_home():
    v = viewer()
    if not can_administer(v):
        abort(403)
    return render_template("shell/admin_index.html", group=None)


# Spec 01 section 2: redirects.
for _old, _new in (
    ("/preparation", "/begcare"),
    ("/cc-market", "/market"),
    ("/new-purchase-analysis", "/purchase-analysis"),
):
    bp.add_url_rule(
        _old, f"redirect_{_old.strip('/').replace('-', '_')}", lambda _new=_new: redirect(_new, 301)
    )


@bp.get("/search")
def search():
    """Spec 01: a trimmed, non-empty phrase goes to the module's overview; else nothing."""
    phrase = (request.args.get("searchphrase") or "").strip()[:200]
    v = viewer()
    back = safe_next(request.args.get("next")) or url_for("shell.root")
    module = v.search_module(back.split("?", 1)[0])
    if not phrase or module is None:
        return redirect(back)
    query = urlencode({"division": "all", "searchphrase": phrase})
    return redirect(f"/{module}/overview?{query}")


@bp.post("/division")
def choose_division():
    """Store the division selector's value (all or {division|region|country}-{id})."""
    v = viewer()
    value = request.form.get("value", "all")
    if not any(c.value == value for c in v.division_choices):
        abort(422)
    session[DIVISION_SESSION_KEY] = value
    return redirect(safe_next(request.form.get("next")) or url_for("shell.root"))


@bp.get("/file-download/<file_id>/<title>")
def file_download(file_id: str, title: str):
    """Spec 01: a numeric id streams a preparation-item file, any other a file object."""
    if file_id.isdigit():
        return redirect(f"/api/preparation-item-files/{file_id}/view")
    return redirect(f"/api/file-objects/{file_id}/binary")


@bp.post("/impersonate/exit")
def stop_impersonating():
    """Return from acting as another user to the original one."""
    original = impersonation.stop()
    db.session.commit()
    if original is not None:
        flash(_("You are yourself again."), "info")
    return redirect(url_for("shell.root"))


@bp.route("/<page:unknown>")
def unknown_path(unknown: str):
    """Any unknown path goes to not-found (signed-in users only)."""
    abort(404)


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


@bp.get("/favicon.ico")
@public_page
def favicon():
    """Browsers ask for /favicon.ico whatever the page says; the icon is an SVG."""
    return redirect(url_for("static", filename="favicon.svg"), 301)


@bp.get("/sw.js")
@public_page
def service_worker():
    """The service worker, served from the root so that its scope is the whole site."""
    response = send_from_directory(current_app.static_folder, "dist/sw.js", max_age=0)
    response.headers["Content-Type"] = "text/javascript; charset=utf-8"
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Service-Worker-Allowed"] = "/"
    return response


@bp.get("/api/openapi.json")
@public_page
def openapi_json():
    """The OpenAPI description of every JSON call, generated from the declared schemas."""
    return jsonify(openapi_document())
