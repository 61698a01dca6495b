"""Cheap per-cell number formatting: Babel's number formats built once, not per call.

Flask-Babel's `format_decimal` parses the Babel pattern and looks the locale up on every call.
A table renders dozens of numbers per page, so `decimal_format` keeps the work that is the same
for every cell: the parsed pattern and the group symbol per locale (for the process). Only
public API (Babel's `parse_pattern`, Flask-Babel's `get_locale`). The output is Flask-Babel's,
byte for byte (tests/core/test_formatting.py compares them in every locale).

Translations are Flask-Babel's own: a process-wide patch of its `Domain.get_translations` that
read Flask's and Flask-Babel's private context was removed (issue 29, docs/performance.md).
"""

from decimal import Decimal
from functools import lru_cache

from babel import Locale
from babel.numbers import get_group_symbol, parse_pattern
from flask_babel import get_locale


class DecimalFormat:
    """`flask_babel.format_decimal(value, format)` for one locale, the pattern parsed once."""

    def __init__(self, locale: Locale, format: str | None = None) -> None:
        self.locale = locale
        self.pattern = parse_pattern(format or locale.decimal_formats[None])
        p = self.pattern
        # Whole, non-negative numbers under a plain "#,##0" pattern need no Decimal arithmetic:
        # Python's own grouping with the locale's group symbol gives Babel's string.
        self.plain = (
            p.grouping == (3, 3) and p.int_prec[0] == 1 and p.frac_prec == (0, 0)
            and not p.scale and not p.exp_prec and p.prefix == ("", "-") and p.suffix == ("", "")
        )  # fmt: skip
        self.group = get_group_symbol(locale, numbering_system="latn")

    def __call__(self, value) -> str:
        if self.plain:
            kind = type(value)
            if kind is int and value >= 0:
                return f"{value:,}".replace(",", self.group)
            if (  # a whole Decimal such as a price of 444860.00: nothing to round
                kind is Decimal and value.is_finite() and not value.is_signed()
                and value == value.to_integral_value()
            ):  # fmt: skip
                return f"{int(value):,}".replace(",", self.group)
        return self.pattern.apply(value, self.locale, numbering_system="latn")


@lru_cache(maxsize=128)
def _decimal_format(locale: str, format: str | None) -> DecimalFormat:
    return DecimalFormat(Locale.parse(locale), format)


def decimal_format(format: str | None = None) -> DecimalFormat:
    """The request locale's formatter for `format`, built once per locale and pattern."""
    return _decimal_format(str(get_locale()), format)
