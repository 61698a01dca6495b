"""My settings: the page, its props, and the password change posted from it."""

from flask import abort, flash, g, redirect, render_template, request, url_for
from flask_login import current_user
from markupsafe import Markup

from app.account import bp
from app.account import services as svc
from app.account.forms import ChangePasswordForm
from app.auth.session import start_session
from app.auth.viewer import viewer
from app.core import fragments
from app.core.i18n import (
    LOCALES,
    TIME_ZONES,
    current_locale,
    remembered_country_time_zone,
    to_locale,
    user_time_zone,
)
from app.core.islands import JSONFragment
from app.core.messages import message
from app.extensions import db
from app.shell.landing import landing_choices_json

# The same on every page: encoded once (some 430 time zones).
_LANGUAGE_CHOICES = JSONFragment(
    [{"code": code, "label": label} for code, label in LOCALES.items()]
)
_TIME_ZONE_CHOICES = JSONFragment(
    [{"value": zone, "label": zone.replace("_", " ")} for zone in TIME_ZONES]
)


def settings_props() -> dict:
    """What the preferences island of My settings shows and saves."""
    options = current_user.options or {}
    country_zone = remembered_country_time_zone(current_user)
    return {
        "language": to_locale(options.get("language")) or current_locale(),
        "languages": _LANGUAGE_CHOICES,
        "landingPage": options.get("landingPage", ""),
        "landingPages": landing_choices_json(viewer()),
        "timeZone": user_time_zone(current_user),
        "timeZones": _TIME_ZONE_CHOICES,
        "countryTimeZone": country_zone or "",
        "saveUrl": "me/options",
    }


def _settings_allowed() -> None:
    if current_user.login_type != "default":
        abort(404)


@bp.get("/user")
def settings(password_form=None):
    """My settings: language, landing page, time zone and password (default login type)."""
    _settings_allowed()
    if password_form is not None:  # sent back with its errors
        password_html = Markup(  # noqa: S704 - our template's output
            render_template("account/_password.html", password_form=password_form)
        )
    else:  # the empty form: the same for everyone of a language but the CSRF token
        key = (
            "password-form",
            current_locale(),
            request.script_root,
            viewer().impersonator is None,
        )
        password_html = fragments.with_csrf(
            key,
            lambda: render_template(
                "account/_password.html", password_form=ChangePasswordForm(formdata=None)
            ),
        )
    return render_template(
        "account/settings.html", props=settings_props(), password_html=password_html
    )


@bp.post("/user/password")
def change_password():
    """Change the password: the current one, then the new one twice (the reset rules)."""
    _settings_allowed()
    if g.get("impersonator") is not None:
        abort(403)  # acting as someone never changes their password
    form = ChangePasswordForm()
    if form.validate_on_submit():
        user = current_user._get_current_object()
        try:
            svc.change_password(user, form.current_password.data, form.password.data)
        except svc.PasswordRefused as refused:
            form.current_password.errors = [str(refused)]
        else:
            db.session.commit()
            start_session(user)  # this browser stays signed in; every other session ends
            flash(message("PASSWORD_CHANGED"), "success")
            return redirect(url_for("account.settings") + "#password")

    return settings(password_form=form), 422
