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
from flask.globals import _cv_app
from flask_babel import Domain, _get_current_context, get_locale, get_translations
from jinja2 import pass_eval_context
from markupsafe import Markup


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


def _translations():
    """The request's translations, from the memo `_remembered_translations` keeps, without
    Flask-Babel's chain of lookups (get_domain, the context namespace, get_locale) per string."""
    try:
        ctx = _cv_app.get().g.__dict__["_flask_babel"].__dict__
        hit = ctx["fast_translations"][ctx["babel_domain"].domain[0]]
        if hit[0] is ctx["babel_locale"]:
            return hit[1]
    except (LookupError, AttributeError):  # outside a request, or not looked up yet
        pass
    return get_translations()


def _jinja_gettext(eval_ctx, __string: str, **variables):
    """Jinja's new-style `_()`/`gettext()` (jinja2.ext._make_new_gettext) over `_translations`:
    one call per string instead of the i18n extension's three context calls and lookups."""
    rv = _translations().ugettext(__string)
    if eval_ctx.autoescape:
        rv = Markup(rv)  # noqa: S704 - our catalogue's text, as in Jinja's i18n extension
    # Always a format string, as Jinja's: "%%" means "%" whether or not there are variables.
    return rv % variables


def _jinja_ngettext(eval_ctx, __singular: str, __plural: str, __num: int, **variables):
    """Jinja's new-style `ngettext()` over `_translations`."""
    variables.setdefault("num", __num)
    rv = _translations().ungettext(__singular, __plural, __num)
    if eval_ctx.autoescape:
        rv = Markup(rv)  # noqa: S704 - our catalogue's text, as in Jinja's i18n extension
    return rv % variables


def install(app=None) -> None:
    """Route every gettext of Flask-Babel (Python, lazy strings and Jinja) through the memo,
    and give `app`'s templates the short way to it (the same output as Flask-Babel's
    callables under Jinja's new-style gettext)."""
    Domain.get_translations = _remembered_translations
    if app is not None:
        gettext, ngettext = pass_eval_context(_jinja_gettext), pass_eval_context(_jinja_ngettext)
        app.jinja_env.install_gettext_callables(
            gettext=lambda s: _translations().ugettext(s),
            ngettext=lambda s, p, n: _translations().ungettext(s, p, n),
            newstyle=True,
            pgettext=lambda c, s: _translations().upgettext(c, s),
            npgettext=lambda c, s, p, n: _translations().unpgettext(c, s, p, n),
        )
        # `_` is the i18n extension's alias that looks `gettext` up in each render's context
        # (no template passes its own); `{% trans %}` calls gettext/ngettext.
        app.jinja_env.globals.update(_=gettext, gettext=gettext, ngettext=ngettext)
