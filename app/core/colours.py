"""A vehicle's colour as its reader reads it (issue 37): the common colours are the catalogue's
words, so a colour typed or imported as "Silver" or "Svart" reads "Hopea" or "Musta" in Finnish.
Any other colour ("Mineral grey metallic") shows as it was typed."""

from functools import lru_cache

from flask_babel import force_locale
from flask_babel import lazy_gettext as _l

from app.core.i18n import LOCALES, babel_name

COLOURS = {
    "black": _l("Black"),
    "white": _l("White"),
    "silver": _l("Silver"),
    "grey": _l("Grey"),
    "blue": _l("Blue"),
    "red": _l("Red"),
    "green": _l("Green"),
    "brown": _l("Brown"),
    "beige": _l("Beige"),
    "yellow": _l("Yellow"),
}


@lru_cache(maxsize=1)
def _known() -> dict[str, str]:
    """Each common colour's word in every language (lower case) -> its key."""
    known = {"gray": "grey"}
    for locale in LOCALES:
        with force_locale(babel_name(locale)):
            known |= {str(word).casefold(): key for key, word in COLOURS.items()}
    return known


def colour_name(value: str | None) -> str:
    """The colour in the reader's language when it is a common one, else as written."""
    if not value:
        return value or ""
    key = _known().get(value.strip().casefold())
    return str(COLOURS[key]) if key else value
