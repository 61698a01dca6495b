"""Form fields the admin screens share, with the spec's message keys."""

from dataclasses import dataclass

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

from app.admin.role_catalogue import by_area
from app.core.messages import KEYS

# The kinds of field a quick test's information or a purchase analysis' dynamic field has.
FIELD_TYPE_LABELS = {
    "text": _l("Text"),
    "textarea": _l("Long text"),
    "date": _l("Date"),
    "select": _l("Choice"),
    "link": _l("Link"),
    "number": _l("Number"),
    "mileage": _l("Mileage"),
    "currency": _l("Amount"),
    "checkbox": _l("Yes/no"),
    "image": _l("Image"),
}


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


@dataclass(frozen=True)
class Described:
    """One checkbox of a DescribedChoices: its name, what it means, and a code for support."""

    value: object
    label: str
    hint: str = ""
    code: str = ""


class DescribedChoices(MultiCheckboxField):
    """Checkboxes in titled sections, each with its name, one line on what it means and (for
    support, shown on request) its code: roles by area, groups with their roles. Rendered by
    the described_choices macro of templates/macros/forms.html."""

    sections: tuple = ()

    def offer(self, sections) -> None:
        """Set the sections [(title, [Described, ...]), ...] and the choices they make."""
        self.sections = tuple((title, tuple(items)) for title, items in sections if items)
        self.choices = [(d.value, d.label) for _title, items in self.sections for d in items]

    def options(self):
        """[(title, [(Described, id, checked), ...]), ...] for the template."""
        chosen, n, out = set(self.data or []), 0, []
        for title, items in self.sections:
            rows = []
            for d in items:
                rows.append((d, f"{self.id}-{n}", d.value in chosen))
                n += 1
            out.append((title, rows))
        return out

    @property
    def has_codes(self) -> bool:
        return any(d.code for _title, items in self.sections for d in items)


def role_sections(codes) -> list:
    """Roles as sections by area, each by its name, what it allows and its code."""
    return [
        (title, [Described(i.code, i.name, i.description, i.code) for i in infos])
        for _key, title, infos in by_area(codes)
    ]


def described(label, coerce=str, hint=None) -> DescribedChoices:
    return DescribedChoices(label, coerce=coerce, description=hint or "", validate_choice=True)


class PresetField(SelectField):
    """ "Start from a preset": a choice that fills other fields, applied by its own submit button
    (no save) or, with JavaScript, at once (islands/lib/role-form.js). `values` holds what each
    preset fills, by key."""

    values: dict = {}
