"""The booking form: the kind, a free slot, the place and the customer."""

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import EmailField, RadioField, SelectChoice, SelectField, StringField
from wtforms.validators import Email, InputRequired, Optional

from app.bookings.calendars import location_name
from app.bookings.models import KINDS
from app.core.addresses import address_field
from app.core.forms import too_long
from app.core.i18n import LOCALES

KIND_LABELS = {"test_drive": _l("Test drive"), "delivery": _l("Delivery")}


class BookingForm(FlaskForm):
    kind = RadioField(
        _l("What is booked"),
        choices=[SelectChoice(k, KIND_LABELS[k]) for k in KINDS],
        validators=[InputRequired(_l("Choose a test drive or a delivery."))],
    )
    # The slot's UTC start (ISO); whether it is still free is the service's to say.
    slot = RadioField(
        _l("Time"), validators=[InputRequired(_l("Choose a time."))], validate_choice=False
    )
    location = SelectField(_l("Place"), validators=[Optional()], validate_choice=False)
    # A delivery's address (app/core/addresses.py): the division's; checked by the service.
    address = address_field(
        _l("Delivery address"), _l("Where the customer takes delivery. Only for a delivery.")
    )
    customer_name = StringField(
        _l("Customer's name"),
        validators=[
            InputRequired(_l("Enter the customer's name.")),
            too_long(120),
        ],
        render_kw={"maxlength": 120, "autocomplete": "off"},
    )
    customer_email = EmailField(
        _l("Customer's e-mail"),
        validators=[
            InputRequired(_l("Enter the customer's e-mail address.")),
            Email(_l("Enter an e-mail address such as name@example.com.")),
            too_long(254),
        ],
        render_kw={"maxlength": 254, "autocomplete": "off"},
    )
    customer_phone = StringField(
        _l("Customer's phone number"),
        validators=[Optional(), too_long(40)],
        render_kw={"maxlength": 40, "inputmode": "tel", "autocomplete": "off"},
    )
    customer_language = SelectField(_l("Customer's language"), validators=[Optional()])

    def setup(self, locations, division_language: str, address_choices=()) -> None:
        self.location.choices = [SelectChoice(str(row.id), location_name(row)) for row in locations]
        self.address.choices = [SelectChoice(value, label) for value, label in address_choices]
        default = _l("As the division writes (%(language)s)", language=LOCALES.get(division_language, division_language))  # fmt: skip
        self.customer_language.choices = [
            SelectChoice("", default),
            *(SelectChoice(k, v) for k, v in LOCALES.items()),
        ]


class MoveForm(FlaskForm):
    slot = RadioField(
        _l("New time"), validators=[InputRequired(_l("Choose a time."))], validate_choice=False
    )
    location = SelectField(_l("Place"), validators=[Optional()], validate_choice=False)

    def setup(self, locations) -> None:
        self.location.choices = [SelectChoice(str(row.id), location_name(row)) for row in locations]


class CancelForm(FlaskForm):
    """Only the CSRF token."""
