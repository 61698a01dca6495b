"""The password change of My settings: the reset rules plus the current password."""

from flask_babel import lazy_gettext as _l
from wtforms import PasswordField
from wtforms.validators import InputRequired

from app.auth.forms import ResetPasswordForm
from app.auth.services import PASSWORD_MAX
from app.core.messages import KEYS


class ChangePasswordForm(ResetPasswordForm):
    current_password = PasswordField(
        _l("Current password"),
        validators=[InputRequired(KEYS["PASSWORD_REQUIRED"])],
        render_kw={"autocomplete": "current-password", "maxlength": PASSWORD_MAX},
    )
