"""The product's modules and their names as users read them."""

from flask_babel import lazy_gettext as _l

MODULE_NAMES = {
    "begcare": _l("Used vehicles"),
    "newcare": _l("New vehicles"),
    "purchaseAnalysis": _l("Purchase analysis"),
    "quickTest": _l("Quick test"),
    "market": _l("Market"),
}
