"""The cheap formatters give Flask-Babel's output byte for byte, in every language."""

from decimal import Decimal

import pytest
from flask import render_template_string
from flask_babel import force_locale, format_decimal, get_translations, gettext, refresh

from app.core.formatting import DecimalFormat, decimal_format
from app.core.i18n import LOCALES, babel_name

VALUES = [0, 7, 999, 1000, 12345, 999999, 1234567, 10**12, -1, -12345, Decimal("1234.5"),
          Decimal("2.5"), Decimal("3.5"), Decimal("-9876.49"), 1234.56, Decimal("0.4"),
          Decimal("444860.00"), Decimal("0.00"), Decimal("-0.00"), Decimal("-0"), Decimal("1E+3"),
          Decimal("12345678.00"), Decimal("-5000.00"), 0.0, 1e6]  # fmt: skip


@pytest.mark.parametrize("tag", list(LOCALES))
@pytest.mark.parametrize("pattern", ["#,##0", None, "#,##0.00", "0"])
def test_decimal_format_matches_flask_babel(app, tag, pattern):
    with app.test_request_context(), force_locale(babel_name(tag)):
        fmt = decimal_format(pattern)
        assert isinstance(fmt, DecimalFormat)
        for value in VALUES:
            assert fmt(value) == format_decimal(value, format=pattern), (tag, pattern, value)


def test_translations_follow_force_locale_and_refresh(app):
    with app.test_request_context(headers={"Accept-Language": "sv-SE"}):
        swedish = gettext("Previous")
        assert swedish != "Previous"
        with force_locale("de_DE"):
            german = gettext("Previous")
            assert german not in ("Previous", swedish)
            assert render_template_string('{{ _("Previous") }}') == german
        assert gettext("Previous") == swedish
        assert render_template_string('{{ _("Previous") }}') == swedish
        refresh()
        assert gettext("Previous") == swedish
        assert get_translations() is get_translations()
