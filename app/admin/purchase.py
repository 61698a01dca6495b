"""The purchase analyses' admin screens: their dynamic fields and priorities (under
/admin/purchase-analysis/, with the module), and the calculators (/admin/general/calculators).
Read: the menu's rule (ROLE_ADMIN, ROLE_TENANT_PURCHASE_ANALYSIS_READ or
ROLE_TENANT_CALCULATOR_READ); change: ROLE_ADMIN."""

from decimal import Decimal, InvalidOperation

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import (
    DecimalField,
    FieldList,
    Form,
    FormField,
    IntegerField,
    SelectChoice,
    SelectField,
    StringField,
    TextAreaField,
    ValidationError,
)
from wtforms.validators import NumberRange, Optional

from app.admin.crud import NAME, Column, FormRefused, Screen
from app.admin.fields import FIELD_TYPE_LABELS, choice, flag, text
from app.core.localized import EACH_LANGUAGE as EACH
from app.core.localized import (
    TextsField,
    check_option_texts,
    name_texts_field,
    option_labels,
    option_lines,
    search_names,
)
from app.purchase.models import FIELD_TYPES, Calculator, PurchaseDynamicField, PurchasePriority

MODULE = "purchaseAnalysis"
CALCULATOR_ROWS = 8


def _ordering():
    return IntegerField(
        _l("Order"),
        validators=[Optional(), NumberRange(-10_000, 10_000, _l("Enter a number from %(min)s to %(max)s."))],
        render_kw={"inputmode": "numeric"},
    )  # fmt: skip


# --- priorities and dynamic fields -------------------------------------------------------------


class PriorityForm(FlaskForm):
    name = text(_l("Name"), 80)
    name_texts = name_texts_field(80)
    ordering = _ordering()


class DynamicFieldForm(FlaskForm):
    title = text(_l("Title"))
    title_texts = TextsField(_l("Title in each language"), max_length=100, description=EACH)
    section = text(_l("Section"))
    section_texts = TextsField(_l("Section in each language"), max_length=100, description=EACH)
    field_type = choice(_l("Type"))
    choices = TextAreaField(  # no Optional(): an empty list is checked below
        _l("Options of a choice, one on each line"), render_kw={"rows": 3}
    )
    choices_texts = TextsField(
        _l("Options in each language"),
        max_length=5000,
        multiline=True,
        description=_l(
            "One option on each line, in the order above. An analysis stores the option as "
            "written above; each user reads it in their language."
        ),
    )
    ordering = _ordering()
    required = flag(_l("Required"))

    def validate_choices(self, field) -> None:
        options = option_lines(field.data)
        if self.field_type.data == "select" and not options:
            raise ValidationError(_("Write one option on each line."))
        if len(options) > 50 or any(len(o) > 100 for o in options):
            raise ValidationError(_("At most %(max)s characters.", max=100))

    def validate_choices_texts(self, field) -> None:
        if self.field_type.data == "select":
            check_option_texts(field, option_lines(self.choices.data))


def _prepare_field(form, v, row) -> None:
    form.field_type.choices = [(t, FIELD_TYPE_LABELS[t]) for t in FIELD_TYPES]


def _load_field(form, row: PurchaseDynamicField) -> None:
    for name in ("title", "title_texts", "section", "section_texts", "field_type", "required",
                 "ordering", "choices_texts"):  # fmt: skip
        getattr(form, name).data = getattr(row, name)
    form.choices.data = "\n".join(row.choices or [])


def _save_field(row: PurchaseDynamicField, form, v) -> None:
    row.title, row.section = form.title.data, form.section.data
    row.title_texts, row.section_texts = form.title_texts.data or {}, form.section_texts.data or {}
    row.field_type, row.required = form.field_type.data, form.required.data
    row.choices = option_lines(form.choices.data) if row.field_type == "select" else []
    row.choices_texts = (form.choices_texts.data or {}) if row.choices else {}
    row.ordering = form.ordering.data or 0


def _save_priority(row: PurchasePriority, form, v) -> None:
    row.name, row.ordering = " ".join(form.name.data.split()), form.ordering.data or 0
    row.name_texts = form.name_texts.data or {}


PRIORITIES = Screen(
    path="purchase-analysis/purchase-analyses-priorities",
    noun=_l("priority"),
    module=MODULE,
    model=PurchasePriority,
    form=PriorityForm,
    columns=(NAME, Column(_l("Order"), "ordering", "num")),
    search_with=search_names(PurchasePriority),
    order_by=(PurchasePriority.ordering, PurchasePriority.id),
    save=_save_priority,
)

FIELDS = Screen(
    path="purchase-analysis/purchase-analyses-dynamic-fields",
    noun=_l("dynamic field"),
    module=MODULE,
    model=PurchaseDynamicField,
    form=DynamicFieldForm,
    columns=(
        Column(_l("Title"), "title"),
        Column(_l("Section"), "section"),
        Column(_l("Type"), lambda f: FIELD_TYPE_LABELS.get(f.field_type, f.field_type)),
        Column(_l("Required"), "required"),
        Column(_l("Order"), "ordering", "num"),
    ),
    search=("title", "section"),
    order_by=(PurchaseDynamicField.ordering, PurchaseDynamicField.id),
    label=lambda f: f.title,
    prepare=_prepare_field,
    load=_load_field,
    save=_save_field,
)


# --- calculators -------------------------------------------------------------------------------


class CalculatorRowForm(Form):
    """One row of a calculator: empty rows are left out."""

    title = StringField(_l("Title"), render_kw={"maxlength": 100})
    operator = SelectField(
        _l("Operator"), choices=[SelectChoice("-", "-"), SelectChoice("+", "+")], default="-"
    )
    value = StringField(_l("Value"), render_kw={"inputmode": "decimal"})
    unit = SelectField(
        _l("Unit"),
        choices=[SelectChoice("currency", _l("Amount")), SelectChoice("percent", _l("Percent"))],
        default="currency",
    )

    def validate_value(self, field) -> None:
        if not (self.title.data or "").strip() and not (field.data or "").strip():
            return
        try:
            number = Decimal((field.data or "").strip().replace(",", ".").replace(" ", ""))
        except InvalidOperation:
            number = Decimal("NaN")
        if not number.is_finite() or not 0 <= number < Decimal("1e9"):
            raise ValidationError(_("Enter a number."))
        field.number = number

    def validate_title(self, field) -> None:
        title = " ".join((field.data or "").split())
        if (self.value.data or "").strip() and not title or len(title) > 100:
            raise ValidationError(_("Fill in this field."))


class CalculatorForm(FlaskForm):
    title = text(_l("Title"))
    title_texts = TextsField(_l("Title in each language"), max_length=100, description=EACH)
    preset_description = text(_l("Preset description"), 200, required=False)
    preset_percent = DecimalField(
        _l("Default value in percent"),
        default=Decimal(0),
        validators=[Optional(), NumberRange(0, 100, _l("Enter a number from %(min)s to %(max)s."))],
        render_kw={"inputmode": "decimal"},
    )
    rows = FieldList(
        FormField(CalculatorRowForm), _l("Rows"), min_entries=CALCULATOR_ROWS,
        max_entries=CALCULATOR_ROWS,
    )  # fmt: skip
    row_titles_texts = TextsField(
        _l("Row titles in each language"), max_length=5000, multiline=True,
        description=_l("One row's title on each line, in the rows' order above. Each user reads them in their language."),
    )  # fmt: skip

    def row_titles(self) -> list[str]:
        return [" ".join(e["title"].data.split()) for e in self.rows.entries if (e["title"].data or "").strip()]  # fmt: skip

    def validate_row_titles_texts(self, field) -> None:
        check_option_texts(field, self.row_titles())


def _load_calculator(form: CalculatorForm, row: Calculator) -> None:
    form.title.data, form.preset_description.data = row.title, row.preset_description
    form.title_texts.data = dict(row.title_texts or {})
    form.row_titles_texts.data = dict(row.row_titles_texts or {})
    form.preset_percent.data = row.preset_percent
    for entry, saved in zip(form.rows.entries, row.rows or [], strict=False):
        for name in ("title", "operator", "unit"):
            entry[name].data = saved.get(name)
        entry["value"].data = str(saved.get("value", ""))


def _save_calculator(row: Calculator, form: CalculatorForm, v) -> None:
    rows = [
        {
            "title": " ".join(entry["title"].data.split()),
            "operator": entry["operator"].data,
            "value": float(entry["value"].number),
            "unit": entry["unit"].data,
        }
        for entry in form.rows.entries
        if (entry["title"].data or "").strip()
    ]
    if not rows:
        raise FormRefused(_("Add at least one row."))
    row.title, row.rows = form.title.data, rows
    row.title_texts = form.title_texts.data or {}
    row.row_titles_texts = form.row_titles_texts.data or {}
    row.preset_description = form.preset_description.data or ""
    row.preset_percent = form.preset_percent.data or Decimal(0)


def _calculation(calculator: Calculator) -> str:
    titles = option_labels([r["title"] for r in calculator.rows], calculator.row_titles_texts)
    return ", ".join(
        f"{r['operator']} {titles[r['title']]} ({r['value']}{' %' if r['unit'] == 'percent' else ''})"
        for r in calculator.rows
    )


CALCULATORS = Screen(
    path="general/calculators",
    noun=_l("calculator"),
    model=Calculator,
    form=CalculatorForm,
    columns=(
        Column(_l("Title"), lambda c: c.shown_title),
        Column(_l("Rows"), _calculation),
        Column(_l("Preset"), lambda c: f"{c.preset_description} {c.preset_percent} %".strip()),
    ),
    search=("title",),
    order_by=(Calculator.title, Calculator.id),
    label=lambda c: c.title,
    load=_load_calculator,
    save=_save_calculator,
)

PURCHASE_SCREENS = (FIELDS, PRIORITIES, CALCULATORS)
