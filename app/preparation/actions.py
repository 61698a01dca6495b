"""Actions (admin/general/actions): buttons on the vehicle page that open a web address built
from the vehicle's fields, such as a valuation or a transport order at a partner.

The address is a template checked on save: http or https with a host written out, and
placeholders only from PLACEHOLDERS, only after the host (a vehicle's value never chooses the
site). Each value is URL-encoded on its own, so a registration number with a space or a slash
stays one value. docs/decisions.md, "Actions".
"""

import re
import string
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from flask_babel import gettext as _

from app.core.localized import for_reader
from app.core.settings import SettingRow

KIND = "action"
PLACEHOLDERS = ("id", "regno", "vin", "brand", "model", "model_year", "mileage", "module")
_FIELDS = string.Formatter()
_HOST = re.compile(r"^https?://[^/?#{}]+([/?#].*)?$", re.IGNORECASE)


def template_error(template: str | None) -> str | None:
    """Why `template` cannot be an action's address, or None."""
    template = (template or "").strip()
    if not template:
        return None  # the field's own rule says it is required
    if not template.lower().startswith(("http://", "https://")):
        return _("The address must start with http:// or https://.")
    try:
        names = [name for _text, name, _spec, _conv in _FIELDS.parse(template) if name is not None]
    except ValueError:
        return _("A { or } is not closed; write placeholders as {regno}.")
    unknown = [name for name in names if name not in PLACEHOLDERS]
    if unknown:
        return _(
            "Unknown placeholder {%(name)s}. Use: %(known)s.",
            name=unknown[0],
            known=", ".join(f"{{{p}}}" for p in PLACEHOLDERS),
        )
    if not _HOST.match(template) or not urlsplit(template.split("{", 1)[0]).hostname:
        return _("Write the site's name out; placeholders may follow it, as in %(example)s.",
                 example="https://example.com/car?regno={regno}")  # fmt: skip
    return None


def render(template: str, item) -> str:
    """The address for one vehicle: each placeholder its value, URL-encoded."""
    values = {
        "id": item.id, "regno": item.regno, "vin": item.vin, "brand": item.brand,
        "model": item.model, "model_year": item.model_year, "mileage": item.mileage,
        "module": item.module,
    }  # fmt: skip
    parts = []
    for text, name, _spec, _conv in _FIELDS.parse(template):
        parts.append(text)
        if name is not None:
            value = values.get(name)
            parts.append(quote("" if value is None else str(value), safe=""))
    return "".join(parts)


@dataclass(frozen=True)
class Action:
    label: str
    url: str


def vehicle_actions(item) -> list[Action]:
    """The instance's active actions for a vehicle (the rows are the active instance's)."""
    found = []
    for row in SettingRow.of_kind(KIND):
        template = (row.data or {}).get("url") or ""
        if template_error(template) is None and template:  # rows stored before the check
            data = row.data or {}
            label = for_reader(data.get("label_texts"), data.get("label") or row.name)
            found.append(Action(label, render(template, item)))
    return found
