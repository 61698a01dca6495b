"""Forms of the quick tests' admin screens (app/admin/quicktest.py)."""

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    IntegerField,
    SelectChoice,
    SelectField,
    SelectMultipleField,
    StringField,
    TextAreaField,
    ValidationError,
    widgets,
)
from wtforms.validators import InputRequired, Length, NumberRange, Optional

from app.admin.fields import FIELD_TYPE_LABELS, text
from app.core.localized import EACH_LANGUAGE as EACH
from app.core.localized import TextsField, check_option_texts
from app.core.messages import KEYS
from app.quicktest.models import TYPES

TITLE_MAX = 100


def _texts(label):
    return TextsField(label, max_length=TITLE_MAX, description=EACH)


def _ordering():
    return IntegerField(
        _l("Position"),
        default=0,
        validators=[
            InputRequired(KEYS["FIELD_REQUIRED"]),
            NumberRange(0, 9999, _l("Enter a whole number from %(min)s to %(max)s.")),
        ],
        render_kw={"min": 0, "max": 9999, "inputmode": "numeric"},
        description=_l("Shown in this order, lowest first."),
    )


def _optional_id(value):
    return int(value) if value not in (None, "", "None") else None


class StorageForm(FlaskForm):
    title = text(_l("Title"), TITLE_MAX)
    title_texts = _texts(_l("Title in each language"))
    group = StringField(
        _l("Kind of test"),
        validators=[Optional(), Length(max=TITLE_MAX, message=KEYS["FIELD_TOO_LONG"])],
        render_kw={"maxlength": TITLE_MAX},
        description=_l("Shown with the title, e.g. trade-in or delivery check."),
    )
    group_texts = _texts(_l("Kind of test in each language"))


class GroupForm(FlaskForm):
    title = text(_l("Title"), TITLE_MAX)
    title_texts = _texts(_l("Title in each language"))
    parent = SelectField(_l("Inside group"), coerce=_optional_id)
    ordering = _ordering()
    show_title = BooleanField(_l("Show the title"), default=True)
    image_support = BooleanField(_l("Takes photos"))
    informations = SelectMultipleField(
        _l("Informations"),
        coerce=int,
        widget=widgets.ListWidget(prefix_label=False),
        option_widget=widgets.CheckboxInput(),
    )


class InformationGroupForm(FlaskForm):
    title = text(_l("Title"), TITLE_MAX)
    ordering = _ordering()


class InformationForm(FlaskForm):
    title = text(_l("Title"), TITLE_MAX)
    title_texts = _texts(_l("Title in each language"))
    type = SelectField(_l("Type"), choices=[SelectChoice(t, FIELD_TYPE_LABELS[t]) for t in TYPES])
    choices = TextAreaField(
        _l("Options"),
        validators=[Length(max=5000, message=KEYS["FIELD_TOO_LONG"])],
        description=_l("For a choice: one option per line."),
        render_kw={"rows": 4},
    )
    choices_texts = TextsField(
        _l("Options in each language"),
        max_length=5000,
        multiline=True,
        description=_l(
            "One option on each line, in the order above. A quick test stores the option as "
            "written above; each user reads it in their language."
        ),
    )
    information_group = SelectField(_l("Information group"), coerce=_optional_id)
    ordering = _ordering()

    def validate_choices(self, field) -> None:
        if self.type.data == "select" and not lines(field.data):
            raise ValidationError(_("A choice needs at least one option."))

    def validate_choices_texts(self, field) -> None:
        if self.type.data == "select":
            check_option_texts(field, lines(self.choices.data))


def lines(text: str | None) -> list[str]:
    seen = []
    for line in (text or "").splitlines():
        line = line.strip()[:TITLE_MAX]
        if line and line not in seen:
            seen.append(line)
    return seen
