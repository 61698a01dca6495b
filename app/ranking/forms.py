"""Forms of the ranking's admin screens."""

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import IntegerField, ValidationError
from wtforms.validators import NumberRange

from app.core.forms import required_input, text_field, when_field
from app.core.localized import TextsField


class SeasonForm(FlaskForm):
    identifier = text_field(
        _l("Identifier"), 50, required=True, autocomplete="off", placeholder="2026-Q4"
    )
    start_at = when_field(_l("Starts"))
    end_at = when_field(_l("Ends"))

    def validate_end_at(self, field) -> None:
        if field.data and self.start_at.data and field.data <= self.start_at.data:
            raise ValidationError(_("The end must come after the start."))


class TierForm(FlaskForm):
    name = text_field(_l("Name"), 50, required=True, autocomplete="off")
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
            required_input(),
            NumberRange(0, 1_000_000, _l("Enter a whole number from %(min)s to %(max)s.")),
        ],
        render_kw={"min": 0, "max": 1_000_000, "inputmode": "numeric"},
        description=_l("A division is in this tier from these points up to the next tier's."),
    )
