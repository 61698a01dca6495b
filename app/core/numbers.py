"""One strict rule for every integer read from a form, a query or a path: ASCII digits only
(no sign, space, underscore or other script's digits, all of which Python's int() would take)
and within the range of the column it is compared with or stored in. Anything else is a
`BadInteger` naming its field, which app/core/errors.py answers with a 422."""

from flask import request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import IntegerField
from wtforms.validators import NumberRange

from app.core.forms import required_input

INT32_MAX = 2**31 - 1  # an Integer column (ids, states, years, counts)
INT64_MAX = 2**63 - 1  # a BigInteger column


class BadInteger(ValueError):
    """A value that is not a whole number in range; `field` names it as the request did."""

    def __init__(self, field: str, low: int = 0, high: int = INT32_MAX) -> None:
        super().__init__(field)
        self.field, self.low, self.high = field, low, high

    @property
    def message(self) -> str:
        return _(
            "%(field)s: enter a whole number from %(min)s to %(max)s.",
            field=self.field,
            min=self.low,
            max=self.high,
        )


def is_int(raw, *, low: int = 0, high: int = INT32_MAX) -> bool:
    """Whether `raw` passes the strict rule."""
    if not isinstance(raw, str) or not raw or len(raw) > len(str(high)) + 1:
        return False
    digits = raw[1:] if raw.startswith("-") and low < 0 else raw
    if not (digits.isascii() and digits.isdigit()):
        return False
    return low <= int(raw) <= high


def parse_int(raw, field: str, *, low: int = 0, high: int = INT32_MAX) -> int:
    """`raw` as an int by the strict rule, or BadInteger(field)."""
    if not is_int(raw, low=low, high=high):
        raise BadInteger(field, low, high)
    return int(raw)


def request_int(
    name: str, default: int | None = None, *, low: int = 0, high: int = INT32_MAX, form=False
) -> int | None:
    """A query (or with form=True a form) value by the strict rule; `default` when absent or
    empty, BadInteger when present and not a whole number in range."""
    raw = (request.form if form else request.args).get(name)
    if raw is None or raw == "":
        return default
    return parse_int(raw, name, low=low, high=high)


def coerce_id(value):
    """A WTForms `coerce` for a select of ids: the empty choice is None, anything not an id is
    refused as an invalid choice (ValueError) instead of reaching the database."""
    if value in (None, "", "None"):
        return None
    if isinstance(value, int):
        return value
    return parse_int(value, "id", low=1)


def coerce_int(value):
    """A WTForms `coerce` for a select of whole numbers (a required choice)."""
    if isinstance(value, int):
        return value
    return parse_int(value, "value", low=0)


class StrictIntegerField(IntegerField):
    """WTForms' IntegerField by the strict rule (int() would also take " 12", "+12", "1_2" and
    other scripts' digits); the field's NumberRange validator checks the range."""

    def process_formdata(self, valuelist):
        if valuelist and valuelist[0] and not is_int(valuelist[0].strip(), high=10**12):
            self.data = None
            raise ValueError(_("Enter a whole number."))
        super().process_formdata(valuelist)


def whole_number(label, low: int, high: int, hint=None) -> StrictIntegerField:
    """A required whole number from `low` to `high` on a form."""
    return StrictIntegerField(
        label,
        validators=[
            required_input(),
            NumberRange(low, high, _l("Enter a whole number from %(min)s to %(max)s.")),
        ],
        render_kw={"inputmode": "numeric", "min": low, "max": high},
        description=hint or "",
    )
