"""Entered words in every language (issue 37): content that administrators type and users read
(a system message, ...) keeps one text per language as {locale tag: text} in a JSON column.
A reader gets the text of their language, else the text of their company's language, else the
text as first entered. `TextsField` is the one form field that edits the seven texts; the admin
form (templates/admin/form.html) draws it as a compact list of the languages."""

from flask import g, has_request_context
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from sqlalchemy import JSON, select
from sqlalchemy.orm import Mapped, mapped_column
from wtforms import Field, ValidationError
from wtforms.utils import unset_value

from app.core.i18n import DEFAULT_LOCALE, LOCALES, current_locale
from app.core.models import Country
from app.core.tenancy import active_instance_id
from app.extensions import db

# The hint under an entered text's languages on the admin forms.
EACH_LANGUAGE = _l(
    "Each user reads it in their language; where that is empty, in their company's language, "
    "else as written above."
)


def localized(
    texts: dict | None, locale: str | None, fallback: str | None, default: str = ""
) -> str:
    """The text for `locale`, else for `fallback` (the instance's language), else `default`."""
    texts = texts or {}
    for tag in (locale, fallback):
        if tag and (text := texts.get(tag)):
            return text
    return default


def instance_locale(instance_id: int | None = None) -> str:
    """An instance's language (the active one's unless named): its (first) country's, the
    default without one. Looked up once per request and instance."""
    if instance_id is None:
        instance_id = active_instance_id()
    known = g.setdefault("instance_locales", {}) if has_request_context() else {}
    if instance_id in known:
        return known[instance_id]
    tag = None
    if instance_id is not None:
        tag = db.session.scalar(  # named: a public page may read another instance's words
            select(Country.locale)
            .where(Country.instance_id == instance_id)
            .order_by(Country.id)
            .execution_options(all_instances=True)
        )
    known[instance_id] = found = LOCALES.get(tag) and tag or DEFAULT_LOCALE
    return found


def for_reader(texts: dict | None, default: str = "") -> str:
    """The text the current reader sees: their language, their company's, else `default` (the
    company's language is only looked up when the reader's is missing)."""
    texts = texts or {}
    if text := texts.get(current_locale()):
        return text
    return localized(texts, None, instance_locale() if texts else None, default)


class Named:
    """A row with a `name` as written and `name_texts`, its name per language (a station, a
    tag, a location): `shown_name` is the one the current reader sees."""

    name_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")

    @property
    def shown_name(self) -> str:
        return for_reader(self.name_texts, self.name)


def name_matches(name: str | None, texts: dict | None, phrase: str) -> bool:
    """True when the phrase is part of the name as written or of its text in any language."""
    wanted = phrase.casefold()
    return any(wanted in (text or "").casefold() for text in (name, *(texts or {}).values()))


def search_names(model):
    """An admin screen's search (crud.Screen.search_with) over a `Named` model's names in every
    language. These are short lists of settings: their names are matched here, not in SQL (the
    JSON column's text escapes what is not ASCII)."""

    def search(stmt, phrase: str):
        rows = db.session.execute(select(model.id, model.name, model.name_texts))
        ids = [row_id for row_id, name, texts in rows if name_matches(name, texts, phrase)]
        return stmt.where(model.id.in_(ids))

    return search


NAME_TEXTS_HINT = _l(
    "Each user reads the name in their language; where that is empty, in the company's "
    "language, else as written above."
)


def name_texts_field(max_length: int = 80) -> "TextsField":
    """The admin form's names in each language of a `Named` row."""
    return TextsField(
        _l("Name in each language"), max_length=max_length, description=NAME_TEXTS_HINT
    )


class TextsField(Field):
    """One text per language, {tag: text} with the empty ones left out. The inputs are named
        `{name}-{tag}`; each text is trimmed and holds at most `max_length` characters. A `multiline`
    field (an HTML description) is drawn as text areas and keeps its line breaks."""

    type = "TextsField"

    def __init__(
        self, label=None, validators=None, max_length: int = 300, multiline=False, **kwargs
    ) -> None:
        super().__init__(label, validators, **kwargs)
        self.max_length = max_length
        self.multiline = multiline

    def process(self, formdata, data=unset_value, extra_filters=None) -> None:
        self.process_errors = []
        if data is unset_value:
            data = self.default() if callable(self.default) else self.default
        self.object_data = data
        self.raw_data = []
        names = {tag: f"{self.name}-{tag}" for tag in LOCALES}
        if formdata is not None and any(name in formdata for name in names.values()):
            typed = {tag: self._trim(formdata.get(name, "")) for tag, name in names.items()}
            self.data = {tag: text for tag, text in typed.items() if text}
        else:
            self.data = dict(data or {})

    def _trim(self, text: str) -> str:
        return text.strip() if self.multiline else " ".join(text.split())

    def pre_validate(self, form) -> None:
        long = [LOCALES[tag] for tag, text in self.data.items() if len(text) > self.max_length]
        if long:
            raise ValidationError(
                _(
                    "At most %(max)s characters: %(languages)s.",
                    max=self.max_length,
                    languages=", ".join(long),
                )
            )

    def languages(self) -> list[tuple[str, str, str]]:
        """(tag, language name, text) for each language, in the menu's order."""
        return [(tag, name, (self.data or {}).get(tag, "")) for tag, name in LOCALES.items()]


def option_lines(text: str | None) -> list[str]:
    """The options of an admin-defined choice written one on each line, blank lines left out."""
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def option_labels(options: list[str] | None, texts: dict | None) -> dict[str, str]:
    """{stored value: what the current reader reads} for the options of a choice. The stored
    value is the option as first written and never changes; `texts` holds each language's
    options, one on each line in the same order. An option reads in the reader's language, else
    the company's, else as written."""
    options, texts = list(options or []), texts or {}
    if not texts:
        return {option: option for option in options}
    own = option_lines(texts.get(current_locale()))
    company = None
    labels = {}
    for n, option in enumerate(options):
        if n < len(own):
            labels[option] = own[n]
            continue
        if company is None:
            company = option_lines(texts.get(instance_locale()))
        labels[option] = company[n] if n < len(company) else option
    return labels


def check_option_texts(field: TextsField, options: list[str]) -> None:
    """The form's check of a choice's options per language: each language that is filled in
    names as many options as the choice has (one on each line, in the same order)."""
    wrong = [
        LOCALES[tag]
        for tag, text in (field.data or {}).items()
        if len(option_lines(text)) != len(options)
    ]
    if wrong:
        raise ValidationError(
            ngettext(
                "Write %(num)s option, on one line: %(languages)s.",
                "Write %(num)s options, one on each line in the order above: %(languages)s.",
                len(options),
                languages=", ".join(wrong),
            )
        )
