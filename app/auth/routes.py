"""Sign-in pages: login with the forgot-password toggle, reset-password, logout."""

from flask import (
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from flask_login import current_user

from app.auth import bp, services
from app.auth.forms import ForgotPasswordForm, LoginForm, ResetPasswordForm
from app.auth.services import TooManyAttempts
from app.auth.session import (
    end_session,
    revoke_all_sessions,
    safe_next,
    signer_id,
    start_session,
)
from app.core import audit
from app.core.i18n import current_locale
from app.core.messages import message
from app.core.pages import public_page
from app.extensions import csrf, db


def _login_page(form, forgot_form, *, show_forgot=False, status=200, headers=None):
    html = render_template(
        "auth/login.html",
        form=form,
        forgot_form=forgot_form,
        show_forgot=show_forgot,
        next=safe_next(request.values.get("next")),
    )
    return make_response(html, status, headers or {})


def _throttled(exc: TooManyAttempts, form, forgot_form, show_forgot: bool = False):
    """429 with Retry-After and the message; the counted attempt is kept."""
    db.session.commit()
    flash(message("TOO_MANY_ATTEMPTS", seconds=exc.retry_after), "danger")
    headers = {"Retry-After": str(exc.retry_after)}
    return _login_page(form, forgot_form, show_forgot=show_forgot, status=429, headers=headers)


@bp.route("/login", methods=["GET", "POST"])
@csrf.exempt  # the form checks its own token, so a stale page keeps what was typed
@public_page
def login():
    """Show the sign-in form; sign in on POST."""
    if current_user.is_authenticated and request.method == "GET":
        return redirect(url_for("shell.root"))
    form, forgot_form = LoginForm(), ForgotPasswordForm(formdata=None)
    if request.method == "GET":
        return _login_page(form, forgot_form, show_forgot=request.args.get("forgot") == "1")
    if not form.validate_on_submit():
        return _login_page(form, forgot_form, status=422)
    try:
        result = services.authenticate(
            form.email.data, form.password.data, request.remote_addr or ""
        )
    except TooManyAttempts as exc:
        return _throttled(exc, form, forgot_form)
    db.session.commit()
    if not result.ok:
        flash(message("INVALID_CREDENTIALS"), "danger")
        return _login_page(form, forgot_form, status=401)
    start_session(result.user)
    return redirect(safe_next(request.form.get("next")) or url_for("shell.root"))


@bp.post("/login/forgot-password")
@csrf.exempt
@public_page
def forgot_password():
    """Mail a reset link; the answer is the same whether or not the address exists."""
    form, forgot_form = LoginForm(formdata=None), ForgotPasswordForm()
    if not forgot_form.validate_on_submit():
        return _login_page(form, forgot_form, show_forgot=True, status=422)
    try:
        services.request_password_reset(
            forgot_form.email.data, request.remote_addr or "", current_locale()
        )
    except TooManyAttempts as exc:
        return _throttled(exc, form, forgot_form, show_forgot=True)
    db.session.commit()
    flash(message("FORGOT_PASSWORD_EMAIL_SENT"), "success")
    return redirect(url_for("auth.login"))


@bp.route("/reset-password/<token>", methods=["GET", "POST"])
@csrf.exempt
@public_page
def reset_password(token: str):
    """Choose a new password with a reset link."""
    valid = services.find_reset_token(token) is not None
    form = ResetPasswordForm()
    status = 200 if valid else 404
    if request.method == "POST" and valid:
        if form.validate_on_submit():
            services.reset_password(token, form.password.data)
            db.session.commit()
            end_session(current_user)
            db.session.commit()
            flash(message("PASSWORD_CHANGED"), "success")
            return redirect(url_for("auth.login"))
        status = 422
    return render_template("auth/reset_password.html", form=form, valid=valid, token=token), status


@bp.post("/logout")
def logout():
    """Sign out and return to the login page."""
    end_session(current_user)
    db.session.commit()
    flash(_("You have signed out."), "info")
    return redirect(url_for("auth.login"))


@bp.post("/logout/everywhere")
def logout_everywhere():
    """Sign out on every device: every session of the user who signed in ends."""
    if not current_user.is_authenticated:
        return redirect(url_for("auth.login"))
    signer = signer_id(current_user.id) or current_user.id
    audit.record("logout_everywhere", user=current_user)
    revoke_all_sessions(signer)
    end_session(current_user)
    db.session.commit()
    flash(_("You have signed out on every device."), "info")
    return redirect(url_for("auth.login"))
