"""{module}/add-wizards: the steps of the add-vehicle form, edited as rows (no typing of
structures), with a preview of the form they make (app/preparation/wizards.py reads them)."""

from flask import render_template
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from markupsafe import Markup
from wtforms import BooleanField, FieldList, Form, FormField, HiddenField, SelectField, StringField
from wtforms.validators import Length, Optional

from app.admin.crud import Column, FormRefused, Screen, admin_or_division_admin
from app.admin.fields import flag, long_text, text
from app.admin.settings import division_name, kind_screen, load_named, offer_owners, save_named
from app.auth.viewer import viewer
from app.core.i18n import LOCALES, babel_name, current_locale
from app.core.messages import KEYS
from app.core.numbers import coerce_id
from app.core.settings import SettingRow
from app.preparation import locations, wizards
from app.preparation.routes_items import ItemForm

MAX_STEPS = 8
NOT_SHOWN = 0


def _title_fields() -> dict:
    return {
        f"title_{babel_name(tag)}": StringField(
            name,
            validators=[Optional(), Length(max=80, message=KEYS["FIELD_TOO_LONG"])],
            render_kw={"maxlength": 80, "lang": tag},
        )  # fmt: skip
        for tag, name in LOCALES.items()
    }


StepForm = type("StepForm", (Form,), _title_fields())


class FieldRowForm(Form):
    key = HiddenField()
    step = SelectField(_l("Step"), coerce=int, default=NOT_SHOWN)
    order = StringField(_l("Order"), render_kw={"inputmode": "numeric", "size": 3})
    required = BooleanField(_l("Required"))
    default = StringField(_l("Default value"), render_kw={"maxlength": 80})


class WizardForm(FlaskForm):
    name = text(_l("Name"), 120)
    description = long_text(_l("Description"))
    division_id = SelectField(_l("Division"), coerce=coerce_id)
    steps = FieldList(FormField(StepForm), _l("Steps"), min_entries=1, max_entries=MAX_STEPS)
    fields = FieldList(
        FormField(FieldRowForm), _l("Fields"), min_entries=len(wizards.CATALOGUE),
        max_entries=len(wizards.CATALOGUE),
    )  # fmt: skip
    active = flag(_l("Active"))


def _locale_keys():
    return [(tag, f"title_{babel_name(tag)}") for tag in LOCALES]


def _fill(form: WizardForm, wizard: wizards.Wizard) -> None:
    """Show a wizard's steps (and one empty step to add) and where each field is."""
    steps = [s for s in wizard.steps if any(f.key in wizards.BY_KEY for f in s.fields)]
    while len(form.steps.entries) < min(len(steps) + 1, MAX_STEPS):
        form.steps.append_entry()
    placed: dict[str, tuple[int, int, wizards.WizardField]] = {}
    for number, (step, entry) in enumerate(zip(steps, form.steps.entries, strict=False), 1):
        for tag, name in _locale_keys():
            entry[name].data = step.titles.get(tag) or (
                str(step.titles[""]) if "" in step.titles and tag == current_locale() else ""
            )
        for order, f in enumerate(step.fields, 1):
            placed[f.key] = (number, order, f)
    for entry, choice in zip(form.fields.entries, wizards.CATALOGUE, strict=True):
        number, order, f = placed.get(choice.key, (NOT_SHOWN, 0, None))
        entry["key"].data, entry["step"].data = choice.key, number
        entry["order"].data = str(order) if order else ""
        entry["required"].data = bool(f and f.required) or choice.key in wizards.ALWAYS
        entry["default"].data = f.default if f else ""
    _offer_steps(form)  # the step rows just added


def _prepare(form: WizardForm, v, row) -> None:
    form.catalogue, form.always = wizards.CATALOGUE, wizards.ALWAYS  # for the template
    offer_owners(form, v)
    if not form.is_submitted():
        form.active.data = True
        if row is None:
            _fill(form, wizards.DEFAULT)  # a new wizard starts as the fixed form
    _offer_steps(form)


def _offer_steps(form: WizardForm) -> None:
    """Each field's choice of step: one per step row (not shown: except the ALWAYS fields)."""
    steps = [(n, _("Step %(n)s", n=n)) for n in range(1, len(form.steps.entries) + 1)]
    for entry, choice in zip(form.fields.entries, wizards.CATALOGUE, strict=False):
        always = choice.key in wizards.ALWAYS
        entry["step"].choices = steps if always else [(NOT_SHOWN, _("Not shown")), *steps]
        entry["key"].data = choice.key  # the row's field is its position, never what was sent


def _load(form: WizardForm, row: SettingRow) -> None:
    load_named(form, row)
    _fill(form, wizards.from_data(row.name, row.data))


def _steps_of(form: WizardForm) -> list[dict]:
    """The steps the form describes, in order, without the empty ones; each refusal is put on
    its field and raised as a whole."""
    refused = False
    by_step: dict[int, list[tuple[int, int, dict]]] = {}
    for index, (entry, choice) in enumerate(
        zip(form.fields.entries, wizards.CATALOGUE, strict=False)
    ):
        default = " ".join((entry["default"].data or "").split())
        if message := wizards.default_error(choice.key, default):
            entry["default"].errors, refused = [message], True
        order = (entry["order"].data or "").strip()
        if order and not order.isdigit():
            entry["order"].errors, refused = [_("Enter a whole number.")], True
        if entry["step"].data != NOT_SHOWN:
            required = bool(entry["required"].data) or choice.key in wizards.ALWAYS
            by_step.setdefault(entry["step"].data, []).append(
                (int(order) if order.isdigit() else 999, index,
                 {"key": choice.key, "required": required, "default": default})
            )  # fmt: skip
    steps = []
    for number, entry in enumerate(form.steps.entries, 1):
        titles = {tag: " ".join((entry[n].data or "").split()) for tag, n in _locale_keys()}
        titles = {tag: t for tag, t in titles.items() if t}
        fields = [f for _o, _i, f in sorted(by_step.get(number, []), key=lambda x: x[:2])]
        first = entry[_locale_keys()[0][1]]
        if fields and not titles:
            first.errors, refused = [_("Give the step a title in at least one language.")], True
        elif titles and not fields:
            first.errors, refused = [_("Choose at least one field for this step.")], True
        if fields:
            steps.append({"title": titles, "fields": fields})
    if refused:
        raise FormRefused(_("Please correct the marked fields."))
    return steps


def _save(row: SettingRow, form: WizardForm, v) -> None:
    steps = _steps_of(form)
    save_named(row, form)
    row.data = {**(row.data or {}), "steps": steps}


def _preview(module: str):
    def preview(row: SettingRow) -> Markup:
        """The add-vehicle form the wizard makes, as a user sees it, with its fields disabled."""
        form = ItemForm(formdata=None)
        form.setup(module, new=True)
        locations.prepare_form(form, module, {d.id: d.name for d in viewer().visible_divisions})
        wizard = wizards.from_data(row.name, row.data)
        wizards.apply(wizard, form, fill=True)
        return Markup(render_template("admin/wizard_preview.html", form=form, wizard=wizard))  # noqa: S704 (a template)

    return preview


def _summary(row: SettingRow) -> str:
    wizard = wizards.from_data(row.name, row.data)
    return " → ".join(step.title for step in wizard.steps)


def wizard_screen(module: str) -> Screen:
    return kind_screen(
        f"{module}/add-wizards", f"{module}.wizard", _l("add wizard"),
        _l("An add wizard decides the steps of the add-vehicle form: which fields each step shows, which are required and what they start with. A division's active wizard comes first, then the instance's; without one the form is the fixed form."),
        WizardForm,
        (Column(_l("Name"), "name"), Column(_l("Steps"), _summary),
         Column(_l("Division"), division_name), Column(_l("Active"), "active")),
        divisional=True, write=admin_or_division_admin,
        prepare=_prepare, load=_load, save=_save, preview=_preview(module),
        form_template="admin/wizard_form.html",
    )  # fmt: skip


WIZARD_SCREENS = tuple(wizard_screen(m) for m in ("begcare", "newcare"))
