"""Cheap per-cell formatting: Babel's number formats and gettext, built once, not per call.

Flask-Babel's `format_decimal` parses the Babel pattern and looks the locale up on every call,
and each `_()` (Python, lazy or Jinja) finds the request's translations through a chain of
context lookups. A table renders dozens of numbers and labels per page, so these helpers keep
the work that is the same for every cell: the parsed pattern and the group symbol per locale
(for the process), the translations per locale (for the request). The output is Flask-Babel's, byte for
byte (tests/test_formatting.py compares them in every locale).
"""

from decimal import Decimal
from functools import lru_cache

from babel import Locale
from babel.numbers import get_group_symbol, parse_pattern
from flask_babel import Domain, _get_current_context, get_locale


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


_babel_get_translations = Domain.get_translations


def _remembered_translations(self: Domain):
    """Flask-Babel's `Domain.get_translations()`, remembered for the request while its locale
    stays the same object: force_locale() and refresh() replace or drop the locale, so they
    still switch the language. Saves the locale's string form and the lookups on `g` that
    every `_()`, lazy string and Jinja `{% trans %}` otherwise repeats."""
    ctx = _get_current_context()
    if ctx is None:
        return _babel_get_translations(self)
    memo = ctx.__dict__.get("fast_translations")
    if memo is None:
        memo = ctx.fast_translations = {}
    locale = ctx.__dict__.get("babel_locale")
    hit = memo.get(self.domain[0])
    if hit is not None and locale is not None and hit[0] is locale:
        return hit[1]
    found = _babel_get_translations(self)
    memo[self.domain[0]] = (ctx.__dict__.get("babel_locale"), found)
    return found


def install() -> None:
    """Route every gettext of Flask-Babel (Python, lazy strings and Jinja) through the memo."""
    Domain.get_translations = _remembered_translations
