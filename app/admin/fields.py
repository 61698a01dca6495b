"""Form fields the admin screens share, with the spec's message keys."""

from flask_babel import lazy_gettext as _l
from wtforms import (
    BooleanField,
    SelectField,
    SelectMultipleField,
    StringField,
    TextAreaField,
)
from wtforms.validators import InputRequired, Length, Optional
from wtforms.widgets import CheckboxInput, ListWidget

from app.core.messages import KEYS


def text(label, max_length: int = 100, required: bool = True, hint=None) -> StringField:
    validators = [Length(max=max_length, message=KEYS["FIELD_TOO_LONG"])]
    validators.insert(0, InputRequired(KEYS["FIELD_REQUIRED"]) if required else Optional())
    return StringField(
        label,
        validators=validators,
        render_kw={"maxlength": max_length, "autocomplete": "off"},
        description=hint or "",
        filters=[lambda v: v.strip() if isinstance(v, str) else v],
    )


def long_text(label, hint=None) -> TextAreaField:
    return TextAreaField(
        label,
        validators=[Optional(), Length(max=5000, message=KEYS["FIELD_TOO_LONG"])],
        description=hint or "",
        render_kw={"rows": 4},
    )


def flag(label, hint=None) -> BooleanField:
    return BooleanField(label, description=hint or "")


def optional_int(value):
    return int(value) if value not in (None, "", "None") else None


def choice(label, coerce=str, required: bool = True) -> SelectField:
    validators = [InputRequired(KEYS["FIELD_REQUIRED"])] if required else [Optional()]
    return SelectField(label, coerce=coerce, validators=validators)


class MultiCheckboxField(SelectMultipleField):
    """A list of checkboxes (roles, modules, divisions): readable and easy to tap."""

    widget = ListWidget(prefix_label=False)
    option_widget = CheckboxInput()


def many(label, coerce=str, hint=None) -> MultiCheckboxField:
    return MultiCheckboxField(label, coerce=coerce, description=hint or "", validate_choice=True)


NAME_LABEL = _l("Name")
