"""Forms of the ranking's admin screens."""

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import DateTimeLocalField, IntegerField, StringField, ValidationError
from wtforms.validators import InputRequired, Length, NumberRange

from app.core.localized import TextsField
from app.core.messages import KEYS


class SeasonForm(FlaskForm):
    identifier = StringField(
        _l("Identifier"),
        validators=[
            InputRequired(KEYS["FIELD_REQUIRED"]),
            Length(max=50, message=KEYS["FIELD_TOO_LONG"]),
        ],
        render_kw={"maxlength": 50, "autocomplete": "off", "placeholder": "2026-Q4"},
    )
    start_at = DateTimeLocalField(
        _l("Starts"), format="%Y-%m-%dT%H:%M", validators=[InputRequired(KEYS["FIELD_REQUIRED"])]
    )
    end_at = DateTimeLocalField(
        _l("Ends"), format="%Y-%m-%dT%H:%M", validators=[InputRequired(KEYS["FIELD_REQUIRED"])]
    )

    def validate_end_at(self, field) -> None:
        if field.data and self.start_at.data and field.data <= self.start_at.data:
            raise ValidationError(_("The end must come after the start."))


class TierForm(FlaskForm):
    name = StringField(
        _l("Name"),
        validators=[
            InputRequired(KEYS["FIELD_REQUIRED"]),
            Length(max=50, message=KEYS["FIELD_TOO_LONG"]),
        ],
        render_kw={"maxlength": 50, "autocomplete": "off"},
    )
    name_texts = TextsField(
        _l("Name in each language"),
        max_length=50,
        description=_l(
            "Each user reads the name in their language; where that is empty, in their "
            "company's language, else as written above."
        ),
    )
    min_points = IntegerField(
        _l("Points from"),
        validators=[
            InputRequired(KEYS["FIELD_REQUIRED"]),
            NumberRange(0, 1_000_000, _l("Enter a whole number from %(min)s to %(max)s.")),
        ],
        render_kw={"min": 0, "max": 1_000_000, "inputmode": "numeric"},
        description=_l("A division is in this tier from these points up to the next tier's."),
    )
