"""Sign-in forms. Field messages are the spec's keys, translated."""

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import EmailField, PasswordField, ValidationError
from wtforms.validators import Email, InputRequired
from wtforms.widgets import PasswordInput

from app.auth.services import PASSWORD_MAX, password_ok
from app.core.forms import required_input, too_long
from app.core.messages import KEYS

EMAIL_MAX = 254  # the longest address a mail can carry


def email_field(autocomplete: str, *, check: bool = True) -> EmailField:
    """The required e-mail field of a form: at most EMAIL_MAX characters and, with `check`, a
    well-formed address (signing in only looks the address up)."""
    validators = [
        required_input(),
        too_long(EMAIL_MAX),
    ]
    if check:
        validators.append(Email(KEYS["INVALID_EMAIL"]))
    return EmailField(
        _l("E-mail"),
        validators=validators,
        render_kw={"autocomplete": autocomplete, "maxlength": EMAIL_MAX},
    )


class LoginForm(FlaskForm):
    email = email_field("username", check=False)
    password = PasswordField(
        _l("Password"),
        validators=[
            InputRequired(KEYS["PASSWORD_REQUIRED"]),
            too_long(PASSWORD_MAX),
        ],
        render_kw={"autocomplete": "current-password", "maxlength": PASSWORD_MAX},
    )


class ForgotPasswordForm(FlaskForm):
    email = email_field("email")


class ResetPasswordForm(FlaskForm):
    # The new password is kept after a refused submit (the page is not stored: no-store).
    password = PasswordField(
        _l("New password"),
        widget=PasswordInput(hide_value=False),
        validators=[InputRequired(KEYS["PASSWORD_REQUIRED"])],
        render_kw={"autocomplete": "new-password", "maxlength": PASSWORD_MAX, "minlength": 7},
    )
    verify_password = PasswordField(
        _l("Verify password"),
        widget=PasswordInput(hide_value=False),
        validators=[InputRequired(KEYS["VERIFY_PASSWORD_REQUIRED"])],
        render_kw={"autocomplete": "new-password", "maxlength": PASSWORD_MAX},
    )

    def validate_password(self, field) -> None:
        if not password_ok(field.data or ""):
            raise ValidationError(KEYS["PASSWORD_PATTERN"])

    def validate_verify_password(self, field) -> None:
        if field.data != self.password.data:
            raise ValidationError(KEYS["PASSWORDS_DOESNT_MATCH"])
