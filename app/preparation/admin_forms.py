"""Forms of the module's admin screens. Choices are filled by the views from the module's data."""

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import (
    DecimalField,
    FieldList,
    SelectField,
    StringField,
    ValidationError,
)
from wtforms.validators import InputRequired, Length, NumberRange, Optional

from app.core.localized import TextsField, name_texts_field
from app.core.messages import KEYS
from app.core.numbers import coerce_id, coerce_int, whole_number
from app.preparation.states import STATES

NAME_MAX = 80


def _name(label) -> StringField:
    return StringField(
        label,
        validators=[
            InputRequired(KEYS["FIELD_REQUIRED"]),
            Length(max=NAME_MAX, message=KEYS["FIELD_TOO_LONG"]),
        ],
        render_kw={"maxlength": NAME_MAX, "autocomplete": "off"},
    )


def _amount(label, hint, required: bool = True) -> DecimalField:
    """An amount of money with at most two decimals, as the reader types it ("1 234,50")."""
    return LocaleDecimalField(
        label,
        places=2,
        validators=[
            InputRequired(KEYS["FIELD_REQUIRED"]) if required else Optional(),
            NumberRange(0, 99999999, _l("Enter an amount from %(min)s to %(max)s.")),
        ],
        render_kw={"inputmode": "decimal", "autocomplete": "off"},
        description=hint,
    )


class LocaleDecimalField(DecimalField):
    """A decimal typed with a comma or a dot and spaces between the thousands."""

    def process_formdata(self, valuelist):
        if valuelist:
            valuelist = [str(valuelist[0]).replace("\u00a0", "").replace(" ", "").replace(",", ".")]
        super().process_formdata(valuelist)


def _optional_id(value):
    """Coerce a select's value to an id, the empty choice to None (the strict rule)."""
    return coerce_id(value)


class OwnedForm(FlaskForm):
    """A setting that is one division's or the whole instance's (app.core.division_settings):
    the view offers only what the viewer may change."""

    division_id = SelectField(_l("Division"), coerce=_optional_id)

    def set_owners(self, choices) -> None:
        self.division_id.choices = choices


class StateButtonForm(OwnedForm):
    from_state = SelectField(_l("From state"), coerce=coerce_int)
    to_state = SelectField(_l("To state"), coerce=coerce_int)
    title = _name(_l("Button title"))
    title_texts = TextsField(
        _l("Button title in each language"),
        max_length=80,
        description=_l(
            "Each user reads the title in their language; where that is empty, in the "
            "company's language, else as written above."
        ),
    )
    ordering = whole_number(
        _l("Position"), 0, 9999, _l("Buttons of one state are shown in this order, lowest first.")
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        choices = [(s.id, f"{s.id} · {s.title}") for s in STATES]
        self.from_state.choices = choices
        self.to_state.choices = choices

    def validate_to_state(self, field) -> None:
        if field.data == self.from_state.data:
            raise ValidationError(_l("A state button must lead to another state."))


class StationGroupForm(OwnedForm):
    name = _name(_l("Name"))
    name_texts = name_texts_field(NAME_MAX)


class StationForm(OwnedForm):
    name = _name(_l("Name"))
    name_texts = name_texts_field(NAME_MAX)
    station_group_id = SelectField(_l("Station group"), coerce=_optional_id)
    target_minutes = whole_number(
        _l("Target time (minutes)"),
        1,
        10080,
        _l("A task that takes longer than this is shown as overdue."),
    )
    ordering = whole_number(
        _l("Position"), 0, 9999, _l("Stations are listed in this order, lowest first.")
    )
    hourly_rate = _amount(
        _l("Hourly rate"),
        _l(
            "What an hour of labour here costs, in the division's currency. Empty: no labour lines."
        ),
        required=False,
    )

    def set_groups(self, groups) -> None:
        self.station_group_id.choices = [(None, _l("No group"))] + [
            (g.id, g.shown_name) for g in groups
        ]


class ReconLimitForm(OwnedForm):
    amount = _amount(
        _l("Approval limit"),
        _l("A task whose estimate is above this needs a manager's approval before it starts."),
    )


class StationPackageForm(OwnedForm):
    name = _name(_l("Name"))
    name_texts = name_texts_field(NAME_MAX)
    steps = FieldList(SelectField(_l("Station"), coerce=_optional_id), min_entries=1)

    def set_stations(self, stations) -> None:
        """One step per station of the module, each offering every station or none."""
        choices = [(None, _l("— none —"))] + [(s.id, s.shown_name) for s in stations]
        while len(self.steps.entries) < max(len(stations), 1):
            self.steps.append_entry()
        for n, entry in enumerate(self.steps.entries, start=1):
            entry.choices = choices
            entry.label.text = _l("Step %(number)s", number=n)

    @property
    def station_ids(self) -> list[int]:
        """The chosen stations in step order, empty steps left out."""
        return [entry.data for entry in self.steps.entries if entry.data is not None]


class LocationForm(FlaskForm):
    name = _name(_l("Name"))
    name_texts = name_texts_field(NAME_MAX)
    division_id = SelectField(_l("Division"), coerce=_optional_id)

    def set_divisions(self, divisions) -> None:
        self.division_id.choices = [(d.id, d.name) for d in divisions]

    def validate_division_id(self, field) -> None:
        if field.data is None:
            raise ValidationError(KEYS["FIELD_REQUIRED"])
