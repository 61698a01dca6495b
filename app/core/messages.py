"""The spec's message keys and the field messages shared by forms and JSON calls.

Message keys are msgids of their own (spec 01 section 8, spec 02 section 8) and are translated in
every catalogue, en-GB included, so a missing translation shows the key.
"""

from flask_babel import LazyString, gettext


class KeyedStr(str):
    """A translated message that still knows its key."""

    key: str


class KeyedText(LazyString):
    """A spec message key that translates lazily and remembers its key (for data-message-key)."""

    def __init__(self, key: str) -> None:
        super().__init__(gettext, key)
        self.key = key

    def __mod__(self, params) -> KeyedStr:
        text = KeyedStr(str(self) % params)
        text.key = self.key
        return text


_k = KeyedText  # extracted by pybabel as a gettext keyword (see babel.cfg)

KEYS = {
    "PASSWORD_PATTERN": _k("PASSWORD_PATTERN"),
    "PASSWORD_REQUIRED": _k("PASSWORD_REQUIRED"),
    "VERIFY_PASSWORD_REQUIRED": _k("VERIFY_PASSWORD_REQUIRED"),
    "PASSWORDS_DOESNT_MATCH": _k("PASSWORDS_DOESNT_MATCH"),
    "PASSWORD_CHANGED": _k("PASSWORD_CHANGED"),
    "FORGOT_PASSWORD_EMAIL_SENT": _k("FORGOT_PASSWORD_EMAIL_SENT"),
    "INVALID_PHONE_NUMBER_CHARACTERS": _k("INVALID_PHONE_NUMBER_CHARACTERS"),
    "INVALID_URL": _k("INVALID_URL"),
    "FIELD_REQUIRED": _k("FIELD_REQUIRED"),
    "FIELD_TOO_LONG": _k("FIELD_TOO_LONG"),
    "INVALID_EMAIL": _k("INVALID_EMAIL"),
    "INVALID_VALUE": _k("INVALID_VALUE"),
    "INVALID_CREDENTIALS": _k("INVALID_CREDENTIALS"),
    "INVALID_RESET_TOKEN": _k("INVALID_RESET_TOKEN"),
    "TOO_MANY_ATTEMPTS": _k("TOO_MANY_ATTEMPTS"),
    # The market's alerts (spec 02 section 8).
    "MODULES.CCMARKET.ALERTS.INVALID_INVITATION": _k("MODULES.CCMARKET.ALERTS.INVALID_INVITATION"),
    "LOG_IN_TO_ACCEPT_INVITATION": _k("LOG_IN_TO_ACCEPT_INVITATION"),
    "INVITE_ACCEPTED": _k("INVITE_ACCEPTED"),
    "INVITE_DECLINED": _k("INVITE_DECLINED"),
    "BID_SENT": _k("BID_SENT"),
}


def message(key: str, **params) -> str:
    """Translate a message key now, with %(name)s parameters."""
    return gettext(key, **params) if params else gettext(key)


_PYDANTIC_KEYS = {
    "missing": "FIELD_REQUIRED",
    "string_too_short": "FIELD_REQUIRED",
    "string_too_long": "FIELD_TOO_LONG",
    "value_error": "INVALID_VALUE",
}


def field_message(err: dict) -> tuple[str, str]:
    """Map one pydantic error to (message key, translated text)."""
    kind = err["type"]
    if kind in KEYS:  # a PydanticCustomError raised with a spec key
        return kind, message(kind)
    key = _PYDANTIC_KEYS.get(kind, "INVALID_VALUE")
    if key == "FIELD_TOO_LONG":
        return key, message(key, max=err.get("ctx", {}).get("max_length", ""))
    return key, message(key)
