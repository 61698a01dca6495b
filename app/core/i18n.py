"""Languages: which of the seven locales a request gets, and the catalogues islands load."""

import json
import re
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import click
import pytz
from babel import Locale
from babel.messages.pofile import read_po
from flask import current_app, g, has_request_context, request
from flask_babel import _get_current_context
from flask_babel import lazy_gettext as _l
from flask_login import current_user
from sqlalchemy import select

from app.config import ROOT
from app.core.models import Country, Division, Region
from app.extensions import db

LOCALES: dict[str, str] = {
    "sv-SE": "Svenska",
    "nb-NO": "Norsk bokmål",
    "fi-FI": "Suomi",
    "da-DK": "Dansk",
    "en-GB": "English",
    "de-DE": "Deutsch",
    "nl-NL": "Nederlands",
}
DEFAULT_LOCALE = "en-GB"
# Short codes stored by older clients. Spec 01 section 9: nb maps to nn, and nn is served by the
# Norwegian (bokmål) catalogue; en maps to en-GB.
_ALIASES = {
    "sv": "sv-SE",
    "nb": "nb-NO",
    "nn": "nb-NO",
    "no": "nb-NO",
    "fi": "fi-FI",
    "da": "da-DK",
    "en": "en-GB",
    "de": "de-DE",
    "nl": "nl-NL",
}
_BY_LOWER = {tag.lower(): tag for tag in LOCALES}
_KEY = re.compile(r"^[A-Z][A-Z0-9]*([_.][A-Z0-9]+)+$")  # PASSWORD_PATTERN, ERROR.X (not VIN)
LANGUAGE_COOKIE = "language"


def to_locale(value: str | None) -> str | None:
    """Map a language tag or code ("de", "sv_SE", "nb-no") to one of LOCALES, or None."""
    if not value:
        return None
    tag = value.strip().replace("_", "-").lower()
    if tag in _BY_LOWER:
        return _BY_LOWER[tag]
    return _ALIASES.get(tag.split("-", 1)[0])


def babel_name(tag: str) -> str:
    """Return the catalogue directory name of a locale tag (sv-SE -> sv_SE)."""
    return tag.replace("-", "_")


def current_locale() -> str:
    """Return the locale of the current request: asked for, stored, cookie, browser, default."""
    if not has_request_context():
        return DEFAULT_LOCALE
    if "locale" in g:
        return g.locale
    candidates = [request.args.get("lang")]
    if current_user and current_user.is_authenticated:
        candidates.append((current_user.options or {}).get("language"))
    candidates.append(request.cookies.get(LANGUAGE_COOKIE))
    candidates += [value for value, _quality in request.accept_languages]
    g.locale = next((loc for c in candidates if (loc := to_locale(c))), DEFAULT_LOCALE)
    return g.locale


@lru_cache(maxsize=16)
def _babel_locale(tag: str) -> Locale:
    return Locale.parse(babel_name(tag))


def select_babel_locale() -> Locale:
    """Flask-Babel's locale selector: one Locale per language and process (Flask-Babel takes
    a Locale as it is; a string it parses again on every request)."""
    return _babel_locale(current_locale())


# --- time zones -------------------------------------------------------------------------------

# The zones a user may choose (IANA names, as pytz's maintained "common" list has them).
TIME_ZONES: tuple[str, ...] = tuple(pytz.common_timezones)
_TIME_ZONE_SET = frozenset(TIME_ZONES)
DEFAULT_TIME_ZONE = "UTC"


def country_time_zone(user) -> str | None:
    """The zone of the user's country: the country of their first division, else of their
    company's first country (the first zone pytz lists for it)."""
    # The users' divisions, by the table's name: app.auth (which maps it) sits above core.
    user_divisions = db.metadata.tables["user_division"]
    instance_id = user.active_instance_id or user.home_instance_id
    if instance_id is None:
        return None
    stmt = (
        select(Country.code)
        .join(Region, Region.country_id == Country.id)
        .join(Division, Division.region_id == Region.id)
        .outerjoin(
            user_divisions,
            (user_divisions.c.division_id == Division.id) & (user_divisions.c.user_id == user.id),
        )
        .where(Country.instance_id == instance_id)
        .order_by(user_divisions.c.user_id.is_(None), Division.id)
        .limit(1)
        .execution_options(all_instances=True)
    )
    code = db.session.scalar(stmt)
    zones = pytz.country_timezones.get((code or "").upper()) if code else None
    return zones[0] if zones else None


_COUNTRY_ZONES: dict[tuple, str | None] = {}  # per process: (user, its version, instance) -> zone


def remembered_country_time_zone(user) -> str | None:
    """`country_time_zone(user)`, kept per process until the user or their company's menus
    change (the instance's menu_version moves with every country or division change)."""
    instance = user.active_instance
    key = (user.id, user.modified_at, instance.id if instance else None,
           instance.menu_version if instance else None)  # fmt: skip
    if key in _COUNTRY_ZONES:
        return _COUNTRY_ZONES[key]
    if len(_COUNTRY_ZONES) > 4096:
        _COUNTRY_ZONES.clear()
    zone = _COUNTRY_ZONES[key] = country_time_zone(user)
    return zone


def user_time_zone(user) -> str:
    """The zone a user reads times in: chosen in My settings, else their country's, else UTC."""
    chosen = (user.options or {}).get("timeZone")
    if chosen in _TIME_ZONE_SET:
        return chosen
    return remembered_country_time_zone(user) or DEFAULT_TIME_ZONE


def current_time_zone() -> str:
    """The signed-in user's zone for this request (UTC for visitors)."""
    if not has_request_context() or not (current_user and current_user.is_authenticated):
        return DEFAULT_TIME_ZONE
    if "time_zone" not in g:
        g.time_zone = user_time_zone(current_user)
    return g.time_zone


def select_babel_timezone() -> str:
    """Flask-Babel's time zone selector: every format_datetime and date filter follows it."""
    return current_time_zone()


@contextmanager
def force_time_zone(zone: str | None):
    """Render in another zone for a while (an e-mail in its recipient's zone). Flask-Babel 4.0
    has no public way to force a zone, so this sets its private request context's tzinfo:
    pyproject.toml pins flask-babel <4.1, and tests/account/test_settings.py::
    test_mails_are_written_in_the_recipients_time_zone breaks if that context changes."""
    ctx = _get_current_context()
    if ctx is None or not zone:
        yield
        return
    before = getattr(ctx, "babel_tzinfo", None)
    ctx.babel_tzinfo = pytz.timezone(zone)
    try:
        yield
    finally:
        if before is None:
            del ctx.babel_tzinfo
        else:
            ctx.babel_tzinfo = before


def is_message_key(msgid: str) -> bool:
    """Tell whether a msgid is one of the spec's message keys (PASSWORD_PATTERN, ERROR.X)."""
    return bool(_KEY.match(msgid))


def catalogue_path(tag: str) -> Path:
    return ROOT / "translations" / babel_name(tag) / "LC_MESSAGES" / "messages.po"


def island_catalogue(tag: str) -> dict[str, str]:
    """Return the messages islands need for one locale: theirs and every message key."""
    with catalogue_path(tag).open("rb") as fh:
        catalog = read_po(fh)
    result = {}
    for message in catalog:
        if not message.id or not message.string or message.fuzzy:
            continue
        msgid = message.id if isinstance(message.id, str) else message.id[0]
        msgstr = message.string if isinstance(message.string, str) else message.string[0]
        used_by_island = any(path.startswith("islands/") for path, _line in message.locations)
        if used_by_island or is_message_key(msgid):
            result[msgid] = msgstr
    return result


def write_island_catalogues(out_dir: Path) -> list[Path]:
    """Write static/dist/i18n/{locale}.json for every locale."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for tag in LOCALES:
        path = out_dir / f"{tag}.json"
        path.write_text(json.dumps(island_catalogue(tag), ensure_ascii=False, sort_keys=True))
        written.append(path)
    return written


def remember_choice(response):
    """Keep a language asked for in the link (?lang=) in a cookie, so that it sticks."""
    asked = to_locale(request.args.get("lang"))
    if asked and request.cookies.get(LANGUAGE_COOKIE) != asked:
        response.set_cookie(
            LANGUAGE_COOKIE,
            asked,
            max_age=365 * 24 * 3600,
            secure=request.is_secure,
            httponly=True,
            samesite="Lax",
        )
    return response


def init_app(app) -> None:
    app.after_request(remember_choice)
    register_cli(app)


def register_cli(app) -> None:
    @app.cli.command("i18n-json")
    def i18n_json() -> None:
        """Generate the islands' JSON catalogues from the .po files."""
        out = Path(current_app.static_folder) / "dist" / "i18n"
        for path in write_island_catalogues(out):
            click.echo(f"wrote {path.relative_to(ROOT)}")


# Spec message keys are msgids of their own, translated in every catalogue (en-GB included).
# Listing them here lets the extractor find keys that are only ever looked up by name.
ERROR_KEYS = {
    "NOT_FOUND": _l("ERROR.NOT_FOUND"),
    "FORBIDDEN": _l("ERROR.FORBIDDEN"),
    "INVALID_URL": _l("ERROR.INVALID_URL"),
    "SESSION_EXPIRED": _l("ERROR.SESSION_EXPIRED"),
    "SERVER_ERROR": _l("ERROR.SERVER_ERROR"),
}
