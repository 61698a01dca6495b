"""The advert form: a vehicle, its bidding terms and its images."""

from datetime import UTC, date, timedelta

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import to_utc
from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    HiddenField,
    IntegerField,
    MultipleFileField,
    SelectField,
    StringField,
    TextAreaField,
    ValidationError,
)
from wtforms.validators import NumberRange, Optional
from wtforms.widgets import TextInput

from app.core.addresses import address_field
from app.core.forms import (
    CODE_INPUT,
    regno_field,
    required_input,
    text_field,
    too_long,
    when_field,
)
from app.core.localized import TextsField
from app.core.models import utcnow
from app.core.numbers import is_int
from app.market.models import MAX_AMOUNT
from app.preparation.items import (
    FUEL_TYPES,
    PERMISSIVE_REGNO,
    normalise_regno,
    normalise_vin,
    vin_error,
)

DESCRIPTION_MAX = 5000
LONGEST_BIDDING = timedelta(days=365)


class WholeNumberField(IntegerField):
    """A whole number typed the way dealers write it: "185 000" is 185000."""

    widget = TextInput()

    def process_formdata(self, valuelist):
        if valuelist:
            valuelist = [
                v.replace("\u00a0", "").replace("\u202f", "").replace(" ", "") for v in valuelist
            ]
        try:
            if valuelist and valuelist[0] and not is_int(valuelist[0], high=10**12):
                raise ValueError(valuelist[0])  # the strict rule; NumberRange checks the range
            super().process_formdata(valuelist)
        except ValueError:
            self.data = None
            raise ValueError(_("Enter a whole number, without decimals.")) from None


def _amount(label, required: bool, hint=None) -> WholeNumberField:
    return WholeNumberField(
        label,
        validators=[
            required_input() if required else Optional(),
            NumberRange(1, MAX_AMOUNT, _l("Enter an amount above zero.")),
        ],
        render_kw={"inputmode": "numeric", "autocomplete": "off"},
        description=hint or "",
    )


class AdvertForm(FlaskForm):
    item_id = HiddenField()
    regno = regno_field()
    # Its length and letters are vin_error's to judge (validate_vin).
    vin = StringField(_l("VIN"), validators=[Optional()], render_kw={"maxlength": 17, **CODE_INPUT})
    brand = text_field(_l("Brand"), 100, required=True)
    model = text_field(_l("Model"), 100, required=True)
    model_year = WholeNumberField(
        _l("Model year"), validators=[Optional()], render_kw={"inputmode": "numeric"}
    )
    mileage = WholeNumberField(
        _l("Mileage (km)"),
        validators=[
            Optional(),
            NumberRange(0, 9_999_999, _l("Enter a mileage from 0 to 9 999 999.")),
        ],
        render_kw={"inputmode": "numeric"},
    )
    fuel_type = SelectField(_l("Fuel"), validators=[Optional()])
    color = text_field(_l("Colour"), 50)
    description = TextAreaField(
        _l("Description"),
        validators=[Optional(), too_long(DESCRIPTION_MAX)],
        render_kw={"rows": 5, "maxlength": DESCRIPTION_MAX},
    )
    # Optional translations of the description (the seller company's language is the one above).
    description_texts = TextsField(
        _l("Description in other languages"),
        max_length=DESCRIPTION_MAX,
        multiline=True,
        description=_l(
            "Optional. Each bidder reads the description in their language; where it is empty, "
            "as written above."
        ),
    )
    start_price = _amount(_l("Start price"), True)
    bid_step = _amount(
        _l("Bid step"), True, _l("Every bid must beat the highest bid by at least this much.")
    )
    # The hidden reserve (app.market.reserve): empty takes the seller's default, 0 is none.
    reserve_price = WholeNumberField(
        _l("Reserve price"),
        validators=[Optional(), NumberRange(0, MAX_AMOUNT, _l("Enter 0 or an amount above zero."))],
        render_kw={"inputmode": "numeric", "autocomplete": "off"},
    )
    ends_at = when_field(_l("Bidding ends at"))
    proxy_bidding = BooleanField(
        _l("Proxy bids"),
        description=_l(
            "Bidders may set a hidden maximum; the system bids for them one step at a time. "
            "You never see a maximum."
        ),
    )
    soft_close_seconds = WholeNumberField(
        _l("Soft close (seconds)"),
        validators=[
            Optional(),
            NumberRange(0, 3600, _l("Enter a number of seconds from 0 to 3600.")),
        ],
        render_kw={"inputmode": "numeric", "autocomplete": "off"},
        description=_l(
            "A bid this close to the end moves the end this far after the bid; 0 turns it off."
        ),
    )
    buy_now_price = _amount(
        _l("Buy-now price"),
        False,
        _l("Optional. The first buyer to take it gets the vehicle at once and bidding ends."),
    )
    # Where the car stands (app/core/addresses.py): choices and the check are the view's, from
    # the vehicle's division or the divisions the seller sees.
    address_id = address_field(
        _l("Where the car stands"),
        _l("Bidders see this address. The list holds your divisions' addresses."),
    )
    images = MultipleFileField(
        _l("Add images"), render_kw={"accept": "image/jpeg,image/png,image/webp", "multiple": True}
    )

    def __init__(self, *args, currency: str = "", **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fuel_type.choices = [("", _("Not given"))] + [
            (k, str(v)) for k, v in FUEL_TYPES.items()
        ]
        if currency:
            for name in ("start_price", "bid_step", "buy_now_price", "reserve_price"):
                getattr(self, name).label.text = f"{getattr(self, name).label.text} ({currency})"

    def validate_regno(self, field) -> None:
        field.data = normalise_regno(field.data)
        if not PERMISSIVE_REGNO.match(field.data or ""):
            raise ValidationError(_("Use 2 to 20 letters, digits or hyphens."))

    def validate_vin(self, field) -> None:
        field.data = normalise_vin(field.data) or None
        if field.data and (message := vin_error(field.data)):
            raise ValidationError(message)

    def validate_buy_now_price(self, field) -> None:
        start = self.start_price.data
        if field.data is not None and start is not None and field.data <= start:
            raise ValidationError(_("The buy-now price must be above the start price."))

    def validate_model_year(self, field) -> None:
        NumberRange(1900, date.today().year + 2)(self, field)

    def validate_reserve_price(self, field) -> None:
        start = self.start_price.data
        if field.data and start and field.data < start:
            raise ValidationError(
                _("The reserve must be at least the start price, or 0 for no reserve.")
            )

    def validate_ends_at(self, field) -> None:
        moment = self.ends_at_utc()
        if moment is None:
            return
        now = utcnow()
        if moment <= now:
            raise ValidationError(_("Choose a time in the future."))
        if moment - now > LONGEST_BIDDING:
            raise ValidationError(_("Bidding can run for at most a year."))

    def ends_at_utc(self):
        """The end time the seller typed (in their time zone), in UTC."""
        if self.ends_at.data is None:
            return None
        return to_utc(self.ends_at.data).replace(tzinfo=UTC)

    def stripped(self, name: str) -> str | None:
        value = " ".join((getattr(self, name).data or "").split())
        return value or None
