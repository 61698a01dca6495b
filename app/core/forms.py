"""Form fields several features declare alike (Flask-WTF): a text with its length and the
spec's messages (FIELD_REQUIRED, FIELD_TOO_LONG), a date and time typed in the browser's
date-time input, a vehicle's registration number."""

from flask_babel import lazy_gettext as _l
from wtforms import DateTimeLocalField, StringField
from wtforms.validators import InputRequired, Length, Optional

from app.core.messages import KEYS

# What the browser's <input type="datetime-local"> sends.
LOCAL_DATETIME = "%Y-%m-%dT%H:%M"
# A registration number as typed: in capitals, never filled in from another form.
CODE_INPUT = {"autocomplete": "off", "autocapitalize": "characters"}


def too_long(n: int) -> Length:
    """The length rule with the spec's message (FIELD_TOO_LONG)."""
    return Length(max=n, message=KEYS["FIELD_TOO_LONG"])


def required_input() -> InputRequired:
    """The required rule with the spec's message (FIELD_REQUIRED)."""
    return InputRequired(KEYS["FIELD_REQUIRED"])


def text_field(label, max_length: int, *, required: bool = False, **render) -> StringField:
    """A one-line text of at most `max_length` characters (the input says so too); `render`:
    further attributes of the input."""
    return StringField(
        label,
        validators=[required_input() if required else Optional(), too_long(max_length)],
        render_kw={"maxlength": max_length, **render},
    )


def when_field(label, *, required: bool = True, **kwargs) -> DateTimeLocalField:
    """A date and time as the browser's date-time input gives it."""
    return DateTimeLocalField(
        label,
        format=LOCAL_DATETIME,
        validators=[required_input() if required else Optional()],
        **kwargs,
    )


def regno_field() -> StringField:
    """A vehicle's registration number (required, up to 20 characters)."""
    return text_field(_l("Registration number"), 20, required=True, **CODE_INPUT)
