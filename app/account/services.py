"""My settings: the password change (the landing pages: app.shell.landing)."""

import secrets

from flask_babel import gettext as _

from app.auth import services as auth_services
from app.auth.session import revoke_all_sessions
from app.core import audit


class PasswordRefused(ValueError):
    pass


def change_password(user, current: str, new: str) -> None:
    """Set a new password after checking the current one; every other session of the user
    ends (the caller starts a fresh one for this browser)."""
    if not auth_services.verify_password(user, current):
        raise PasswordRefused(_("The current password is not correct."))
    user.password_hash = auth_services.hash_password(new)
    user.session_nonce = secrets.token_hex(8)
    revoke_all_sessions(user.id)  # on the server too, with what ends with them
    audit.record("password_changed", user=user, by="self")
