"""My settings' calls: the signed-in user's options (on the auth API's blueprint, beside /me)."""

from flask_login import current_user

from app.auth.api import MeOut, OptionsBody, api_bp, me_out
from app.auth.viewer import viewer
from app.core.api import ApiError, api_call
from app.core.messages import message
from app.extensions import db
from app.shell.landing import landing_choices


@api_call(api_bp, "/me/options", "PATCH", body=OptionsBody, response=MeOut)
def update_options(body: OptionsBody):
    """Change the signed-in user's language, landing page and time zone."""
    if body.landing_page and body.landing_page not in {c.value for c in landing_choices(viewer())}:
        # Only the user's own menu destinations (custom lists included) are landing pages.
        raise ApiError(
            422,
            message("INVALID_VALUE"),
            errors={"landingPage": message("INVALID_VALUE")},
            keys={"landingPage": "INVALID_VALUE"},
        )
    options = dict(current_user.options or {})
    fields = (("language", "language"), ("landingPage", "landing_page"), ("timeZone", "time_zone"))
    for key, field in fields:
        if field in body.model_fields_set:
            if value := getattr(body, field):
                options[key] = value
            else:
                options.pop(key, None)
    current_user.options = options
    db.session.commit()
    return me_out(current_user)
