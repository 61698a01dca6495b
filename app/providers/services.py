"""One provider interface, two kinds: vehicle data by registration number or VIN, and valuations.
Each provider is a generic HTTP JSON adapter an administrator sets up (admin/general/providers):
a URL template with URL-encoded placeholders, an auth header, a mapping of our fields to JSON
paths in the answer, a time-out and a cache lifetime.

Calls pass the one outbound guard (app.core.outbound); redirects are not followed. Whatever goes
wrong (refused address, no answer in time, an error status, an answer that is not JSON or lacks
the fields) is a ProviderError with a message in the reader's language, never an exception a
page would answer 500 with. Answers are cached per process (app.core.cache), keyed by the
instance, the provider and its settings, so another instance's answers are never reused.
"""

import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from urllib.parse import quote

import requests
from flask import current_app
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from app.core.cache import LRUCache
from app.core.outbound import Refused, check_url
from app.core.settings import SettingRow

ROW_KIND = "provider"  # SettingRow.kind of the providers' rows
KINDS = {"vehicle": _l("Vehicle data"), "valuation": _l("Valuation")}
FIELDS = {
    "vehicle": {
        "brand": _l("Brand"),
        "model": _l("Model"),
        "model_year": _l("Model year"),
        "fuel_type": _l("Fuel type"),
        "color": _l("Colour"),
    },
    "valuation": {
        "price_min": _l("Lowest price"),
        "price_max": _l("Highest price"),
        "price_avg": _l("Average price"),
    },
}
TEXT_LIMITS = {"brand": 60, "model": 80, "fuel_type": 30, "color": 40}
PLACEHOLDERS = ("regno", "vin", "brand", "model", "year", "mileage")
TIMEOUT_RANGE = (1, 30)  # seconds
CACHE_MINUTES_MAX = 1440
MAX_BYTES = 1_000_000  # a larger answer is refused, not read
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_PATH = re.compile(r"^[A-Za-z0-9_\-]+(\[\d+\])*(\.[A-Za-z0-9_\-]+(\[\d+\])*)*$")
_CACHE = LRUCache(size=512)  # (instance, provider, settings, url) -> (monotonic time, Answer)


class ProviderError(Exception):
    """A call that gave nothing usable; the message (translated) says what to do."""


@dataclass(frozen=True)
class Provider:
    """One provider's settings, read from its row."""

    id: int
    instance_id: int
    name: str
    kind: str
    url: str
    auth_header: str = ""
    auth_value: str = ""
    mapping: dict = field(default_factory=dict)  # our field -> JSON path
    timeout: int = 5
    cache_minutes: int = 0

    @classmethod
    def of(cls, row: SettingRow) -> "Provider":
        data = row.data or {}
        return cls(
            id=row.id,
            instance_id=row.instance_id,
            name=row.name,
            kind=data.get("kind") if data.get("kind") in KINDS else "vehicle",
            url=data.get("url") or "",
            auth_header=data.get("auth_header") or "",
            auth_value=data.get("auth_value") or "",
            mapping={k: v for k, v in (data.get("mapping") or {}).items() if v},
            timeout=_bounded(data.get("timeout"), *TIMEOUT_RANGE, default=5),
            cache_minutes=_bounded(data.get("cache_minutes"), 0, CACHE_MINUTES_MAX, default=0),
        )

    def fingerprint(self) -> str:
        settings = json.dumps([self.url, self.auth_header, self.auth_value, self.mapping])
        return hashlib.sha256(settings.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Answer:
    """What a provider said, mapped: our fields' values, and the labels of the fields it left
    out or gave in a form we cannot use."""

    provider: str
    values: dict
    problems: tuple[str, ...] = ()


def _bounded(value, low: int, high: int, default: int) -> int:
    return min(max(value, low), high) if isinstance(value, int) else default


def mask(secret: str) -> str:
    """A secret as the screens show it: never whole; the last four characters of a long one."""
    if not secret:
        return ""
    return "••••" + (secret[-4:] if len(secret) >= 12 else "")


def template_error(url: str | None) -> str | None:
    """Why a URL template cannot be used, translated, or None."""
    url = url or ""
    unknown = [name for name in _PLACEHOLDER.findall(url) if name not in PLACEHOLDERS]
    if unknown:
        return _(
            "Unknown placeholder %(name)s; use %(placeholders)s.",
            name="{" + unknown[0] + "}",
            placeholders=", ".join(f"{{{p}}}" for p in PLACEHOLDERS),
        )
    if not re.match(r"^https?://[^/{}\s]+", url):
        return _("Start with http:// or https:// and the site's name.")
    return None


def path_error(path: str | None) -> str | None:
    """Why a JSON path cannot be used, translated, or None (empty: the field is not mapped)."""
    if path and not _PATH.match(path):
        return _("Write the path with dots and indexes, such as vehicle.make or prices[0].value.")
    return None


def fill_url(template: str, sample: dict) -> str:
    """The template with every placeholder replaced by its URL-encoded value (empty if absent)."""
    return _PLACEHOLDER.sub(
        lambda m: quote(str(sample.get(m.group(1)) or "").strip(), safe=""), template
    )


def active(kind: str) -> Provider | None:
    """The active instance's active provider of a kind (the first by name), or None."""
    for row in SettingRow.of_kind(ROW_KIND):
        if (row.data or {}).get("kind", "vehicle") == kind:
            return Provider.of(row)
    return None


def look_up(kind: str, sample: dict) -> Answer:
    """Ask the instance's provider of `kind` about `sample` (regno, vin, brand, model, year,
    mileage); ProviderError when there is none or its answer is of no use."""
    provider = active(kind)
    if provider is None:
        raise ProviderError(
            _("No vehicle data provider is set up.")
            if kind == "vehicle"
            else _("No valuation provider is set up.")
        )
    if kind == "vehicle" and not (sample.get("regno") or sample.get("vin")):
        raise ProviderError(_("Enter a registration number or VIN first."))
    return call(provider, sample)


def call(provider: Provider, sample: dict, fresh: bool = False) -> Answer:
    """One call of a provider (from the cache unless `fresh`), its answer mapped."""
    url = fill_url(provider.url, sample)
    key = (provider.instance_id, provider.id, provider.fingerprint(), url)
    cached = None if fresh else _CACHE.get(key)
    if cached is not None and time.monotonic() - cached[0] < provider.cache_minutes * 60:
        return cached[1]
    answer = _map(provider, _fetch(provider, url))
    if provider.cache_minutes:
        _CACHE.put(key, (time.monotonic(), answer))
    return answer


def _fetch(provider: Provider, url: str):
    try:
        check_url(url)
    except Refused:
        raise ProviderError(
            _(
                "The provider's address is not allowed: only http(s) to public addresses, or to networks the configuration allows."
            )
        ) from None
    headers = {
        "Accept": "application/json",
        "User-Agent": f"{current_app.config['APP_TITLE']}-Providers",
    }
    if provider.auth_header and provider.auth_value:
        headers[provider.auth_header] = provider.auth_value
    late = ProviderError(
        _("The provider did not answer within %(seconds)s seconds.", seconds=provider.timeout)
    )
    try:
        with requests.get(
            url, headers=headers, timeout=provider.timeout, allow_redirects=False, stream=True
        ) as answer:
            status = answer.status_code
            body = b""
            for chunk in answer.iter_content(65536):
                body += chunk
                if len(body) > MAX_BYTES:
                    raise ProviderError(_("The provider's answer is too large."))
    except requests.Timeout:
        raise late from None
    except requests.RequestException as exc:
        if "timed out" in str(exc).lower():  # a stalled body is a ConnectionError in requests
            raise late from None
        raise ProviderError(_("The provider could not be reached.")) from None
    if status == 404:
        raise ProviderError(_("The provider does not know this vehicle (HTTP 404)."))
    if status != 200:
        raise ProviderError(
            _("The provider answered with an error (HTTP %(status)s).", status=status)
        )
    try:
        return json.loads(body)
    except ValueError:
        raise ProviderError(_("The provider's answer is not JSON.")) from None


_MISSING = object()


def _dig(document, path: str):
    for part in re.findall(r"[^.\[\]]+", path):
        if isinstance(document, dict) and part in document:
            document = document[part]
        elif isinstance(document, list) and part.isdigit() and int(part) < len(document):
            document = document[int(part)]
        else:
            return _MISSING
    return document


def _coerce(name: str, value):
    """Our field's value from the answer's, or _MISSING when it is of the wrong kind."""
    if value is None or isinstance(value, bool | dict | list):
        return _MISSING
    if name in TEXT_LIMITS:
        text = " ".join(str(value).split())
        return text if 0 < len(text) <= TEXT_LIMITS[name] else _MISSING
    try:
        number = float(str(value).replace(" ", "").replace(",", "."))
    except ValueError:
        return _MISSING
    if name == "model_year":
        return int(number) if number.is_integer() and 1900 <= number <= 2100 else _MISSING
    return number if 0 <= number < 1e10 else _MISSING


def _map(provider: Provider, document) -> Answer:
    values, problems = {}, []
    for name, label in FIELDS[provider.kind].items():
        path = provider.mapping.get(name)
        if not path:
            continue
        raw = _dig(document, path)
        value = _MISSING if raw is _MISSING else _coerce(name, raw)
        if value is _MISSING:
            problems.append(str(label))
        else:
            values[name] = value
    if not values:
        raise ProviderError(
            _(
                "The provider's answer lacks the expected fields: %(fields)s.",
                fields=", ".join(problems),
            )
            if problems
            else _("No fields are mapped for this provider.")
        )
    return Answer(provider=provider.name, values=values, problems=tuple(problems))
