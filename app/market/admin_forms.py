"""Forms of the market's own pages: settings, invites and vehicle requests."""

from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    EmailField,
    Field,
    SelectChoice,
    SelectField,
    StringField,
    TextAreaField,
    ValidationError,
)
from wtforms.validators import Email, Optional
from wtforms.widgets import TextInput

from app.core.forms import required_input, too_long
from app.core.messages import KEYS
from app.core.numbers import coerce_id, is_int
from app.market.invites import INVITE_LANGUAGES
from app.market.models import CURRENCIES, MAX_AMOUNT

RATE_DECIMALS = 6
RATE_MAX = Decimal("99999999")  # Numeric(14, 6): eight digits before the decimal point
TERMS_MAX = 5000
NOTES_MAX = 1000
MILEAGE_MAX = 9_999_999
SOFT_CLOSE_MAX = 3600  # an hour
# The market settings that are defaults of new adverts (issue 16), and the rate warning's age.
ADVERT_DEFAULTS = ("proxy_bidding", "soft_close_seconds", "rate_max_age_days")
OLDEST_MODEL_YEAR = 1900
LANGUAGE_NAMES = {"sv-SE": "Svenska", "en-GB": "English"}


def _strip(value):
    return value.strip() if isinstance(value, str) else value


def _grouped(n: int, high: int) -> str:
    """12 500 for amounts; a year stays 2027."""
    return f"{n:,}".replace(",", " ") if high >= 10_000 else str(n)


class _TypedField(Field):
    """A number typed in a text box: shown again as typed when refused, None when left empty.
    `parse` turns the text without its spaces into the value, or raises ValueError with the
    message for the user."""

    widget = TextInput()

    def __init__(self, label=None, validators=None, render_kw=None, **kw):
        super().__init__(label, validators, render_kw=render_kw, **kw)
        self.raw: str | None = None

    def parse(self, text: str):
        raise NotImplementedError

    def show(self, value) -> str:
        return str(value)

    def process_formdata(self, valuelist) -> None:
        if not valuelist:
            return
        self.raw = valuelist[0]
        text = "".join(self.raw.split()).replace("\u202f", "")
        self.data = None
        if text:
            self.data = self.parse(text)

    def _value(self) -> str:
        if self.raw is not None:
            return self.raw
        return "" if self.data is None else self.show(self.data)


class WholeNumberField(_TypedField):
    """A whole number typed as people type them ("12 500" too), or None when left empty;
    anything else is refused with a translated message and shown again as typed."""

    def __init__(self, label=None, validators=None, low: int = 0, high: int = MAX_AMOUNT, **kw):
        render_kw = {"inputmode": "numeric", "autocomplete": "off", **kw.pop("render_kw", {})}
        super().__init__(label, validators, render_kw=render_kw, **kw)
        self.low, self.high = low, high

    def parse(self, text: str) -> int:
        if not is_int(text, low=-(10**12), high=10**12):  # the strict rule; range: below
            raise ValueError(_l("Enter a whole number."))
        return int(text)

    def pre_validate(self, form) -> None:
        if self.data is not None and not self.low <= self.data <= self.high:
            raise ValidationError(
                _l(
                    "Enter a whole number from %(min)s to %(max)s.",
                    min=_grouped(self.low, self.high),
                    max=_grouped(self.high, self.high),
                )
            )


class RateField(_TypedField):
    """An exchange rate: a positive decimal with at most six decimals ("1,024" too), or None
    when emptied (which removes the rate)."""

    def __init__(self, label=None, validators=None, **kw):
        render_kw = {"inputmode": "decimal", "autocomplete": "off", "maxlength": 20}
        super().__init__(label, validators, render_kw=render_kw, **kw)

    def parse(self, text: str) -> Decimal:
        text = text.replace(",", ".")
        message = _l("Enter a number above zero with at most six decimals, such as 1.024.")
        try:
            value = Decimal(text)
        except InvalidOperation:
            raise ValueError(message) from None
        if not value.is_finite() or value <= 0 or value >= RATE_MAX:
            raise ValueError(message)
        if -value.as_tuple().exponent > RATE_DECIMALS and value != value.quantize(
            Decimal(1).scaleb(-RATE_DECIMALS)
        ):
            raise ValueError(message)
        return value.quantize(Decimal(1).scaleb(-RATE_DECIMALS)).normalize()

    def show(self, value) -> str:
        return format(Decimal(value).normalize(), "f")


def _optional_number(label, low: int, high: int, hint) -> WholeNumberField:
    """A whole number from `low` to `high` that may be left empty (the setting's default)."""
    return WholeNumberField(label, validators=[Optional()], low=low, high=high, description=hint)


class SettingsForm(FlaskForm):
    """Exchange rates from the group's currency, the default bid step and the terms."""

    rate_SEK = RateField()
    rate_NOK = RateField()
    rate_DKK = RateField()
    rate_EUR = RateField()
    bid_step = WholeNumberField(
        _l("Default bid step"),
        validators=[required_input()],
        low=1,
        description=_l("New adverts start with this step between bids. Each advert can change it."),
    )
    # The reserve's defaults (app.market.reserve).
    reserve_percent = _optional_number(
        _l("Default reserve, percent above the start price"),
        1,
        500,
        _l(
            "New adverts get a hidden reserve this much above their start price unless the "
            "advert says otherwise. Empty: no reserve by default."
        ),
    )
    decision_hours = _optional_number(
        _l("Hours to answer a provisional sale"),
        1,
        336,
        _l(
            "When bidding ends under the reserve you have this long to accept, decline or "
            "counter; the bidder then has as long to answer a counteroffer. Unanswered, the "
            "advert ends unsold. Empty: 48 hours."
        ),
    )
    invite_terms = TextAreaField(
        _l("Terms for invited companies"),
        filters=[_strip],
        validators=[Optional(), too_long(TERMS_MAX)],
        render_kw={"rows": 8, "maxlength": TERMS_MAX},
        description=_l("An invited company reads and accepts these terms when it registers."),
    )
    proxy_bidding = BooleanField(
        _l("Proxy bids"),
        description=_l(
            "Bidders may set a hidden maximum; the system bids for them one step at a time. "
            "You never see a maximum. Each advert can change it."
        ),
    )
    soft_close_seconds = _optional_number(
        _l("Soft close (seconds)"),
        0,
        SOFT_CLOSE_MAX,
        _l(
            "A bid this close to the end moves the end this far after the bid; 0 turns it off. "
            "Each advert can change it."
        ),
    )
    rate_max_age_days = _optional_number(
        _l("Warn about exchange rates older than (days)"),
        1,
        365,
        _l("The advert form warns you before publishing with an older rate."),
    )

    def __init__(self, currency: str, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.currency = currency
        self.bid_step.label.text = _l("Default bid step (%(currency)s)", currency=currency)
        for other in CURRENCIES:
            rate = self[f"rate_{other}"]
            if other == currency:
                del self[f"rate_{other}"]
                continue
            rate.label.text = _l("1 %(from)s in %(to)s", **{"from": currency, "to": other})

    @property
    def rate_fields(self) -> list:
        return [self[f"rate_{c}"] for c in CURRENCIES if c != self.currency]

    @property
    def rates(self) -> dict[str, Decimal | None]:
        return {f.name.removeprefix("rate_"): f.data for f in self.rate_fields}


class InviteForm(FlaskForm):
    company_name = StringField(
        _l("Company name"),
        filters=[_strip],
        validators=[too_long(200)],
        render_kw={"maxlength": 200, "autocomplete": "organization"},
    )
    company_id = StringField(
        _l("Company registration number"),
        filters=[_strip],
        validators=[Optional(), too_long(50)],
        render_kw={"maxlength": 50, "autocomplete": "off"},
    )
    email = EmailField(
        _l("E-mail"),
        filters=[_strip],
        validators=[
            required_input(),
            too_long(254),
            Email(KEYS["INVALID_EMAIL"]),
        ],
        render_kw={"maxlength": 254, "autocomplete": "email"},
        description=_l("The invitation with its registration link is sent here."),
    )
    language = SelectField(
        _l("Language of the invitation"),
        choices=[SelectChoice(tag, LANGUAGE_NAMES[tag]) for tag in INVITE_LANGUAGES],
        default="sv-SE",
        invalid_choice_message=_l("Choose a language from the list."),
    )
    existing_group = SelectField(
        _l("A company already on the platform"),
        coerce=coerce_id,
        invalid_value_message=_l("Choose a company from the list."),
        invalid_choice_message=_l("Choose a company from the list."),
        description=_l(
            "Choose one when the company already buys on the market; it then only has to accept."
        ),
    )

    def set_companies(self, companies: list[tuple[int, str]]) -> None:
        self.existing_group.choices = [SelectChoice("", _l("No, a new company"))] + [
            SelectChoice(str(group_id), name) for group_id, name in companies
        ]

    def validate_company_name(self, field) -> None:
        if not field.data and self.existing_group.data is None:
            raise ValidationError(KEYS["FIELD_REQUIRED"])


class VehicleRequestForm(FlaskForm):
    brand = StringField(
        _l("Brand"),
        filters=[_strip],
        validators=[required_input(), too_long(100)],
        render_kw={"maxlength": 100, "autocomplete": "off", "list": "brand-suggestions"},
    )
    model = StringField(
        _l("Model"),
        filters=[_strip],
        validators=[Optional(), too_long(100)],
        render_kw={"maxlength": 100, "autocomplete": "off"},
    )
    model_year_from = WholeNumberField(_l("Model year from"), low=OLDEST_MODEL_YEAR)
    model_year_to = WholeNumberField(_l("Model year to"), low=OLDEST_MODEL_YEAR)
    max_mileage = WholeNumberField(_l("Highest mileage (km)"), low=0, high=MILEAGE_MAX)
    max_price = WholeNumberField(_l("Highest price"), low=1)
    notes = TextAreaField(
        _l("Notes"),
        filters=[_strip],
        validators=[Optional(), too_long(NOTES_MAX)],
        render_kw={"rows": 4, "maxlength": NOTES_MAX},
        description=_l("Equipment, colour, fuel or anything else the sellers should know."),
    )

    def __init__(self, currency: str, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        latest = date.today().year + 1
        self.model_year_from.high = self.model_year_to.high = latest
        self.max_price.label.text = _l("Highest price (%(currency)s)", currency=currency)

    def validate_model_year_to(self, field) -> None:
        low = self.model_year_from.data
        if field.data is not None and low is not None and field.data < low:
            raise ValidationError(_l("The last model year cannot come before the first."))

    @property
    def values(self) -> dict:
        return {
            name: self[name].data
            for name in (
                "brand",
                "model",
                "model_year_from",
                "model_year_to",
                "max_mileage",
                "max_price",
                "notes",
            )
        }
