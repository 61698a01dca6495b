"""The goals' admin screen at /admin/general/goals: targets per division, region or country,
module and time period, which the dashboards' number and chart widgets show (app.dashboard).
Read and change: ROLE_ADMIN or ROLE_MANAGER_ADMIN (the menu's rule)."""

from flask_babel import format_decimal
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField, DecimalField, SelectField, StringField
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional

from app.admin.crud import Column, Screen
from app.core import roles as R
from app.core.modules import MODULE_NAMES
from app.dashboard import services as svc
from app.dashboard import values
from app.dashboard.models import Goal
from app.preparation.states import MODULES

SITE_KINDS = ("division", "region", "country")


class GoalForm(FlaskForm):
    name = SelectField(_l("Figure"), validators=[InputRequired()])
    goal_name = StringField(_l("Goal name"), validators=[DataRequired(), Length(max=100)])
    goal_value = DecimalField(
        _l("Goal value"), validators=[InputRequired(), NumberRange(min=0, max=1_000_000_000)]
    )
    acceptance = DecimalField(
        _l("Acceptable from"),
        validators=[Optional(), NumberRange(min=0, max=1_000_000_000)],
        description=_l(
            "Values from here up to the goal count as acceptable. Leave empty for none."
        ),
    )
    module = SelectField(_l("Module"), validators=[InputRequired()])
    site = SelectField(_l("Division, region or country"), validators=[InputRequired()])
    time_period = SelectField(_l("Time period"), validators=[InputRequired()])
    translate = BooleanField(_l("Translate the goal name"))


def _site(goal: Goal) -> str:
    return next(f"{k}-{getattr(goal, f'{k}_id')}" for k in SITE_KINDS if getattr(goal, f"{k}_id"))


def _prepare(form: GoalForm, v, row) -> None:
    form.name.choices = [(k, str(t)) for k, (t, _u) in values.METRICS.items()]
    form.module.choices = [(m, str(MODULE_NAMES[m])) for m in MODULES]
    form.site.choices = [(f"{k}-{i}", n) for k, i, n in svc.division_sites()]
    form.time_period.choices = [(k, str(t)) for k, t in svc.PERIODS.items()]


def _load(form: GoalForm, goal: Goal) -> None:
    for name in ("name", "goal_name", "goal_value", "acceptance", "module", "time_period"):
        getattr(form, name).data = getattr(goal, name)
    form.translate.data = goal.translate
    form.site.data = _site(goal)


def _save(goal: Goal, form: GoalForm, v) -> None:
    goal.name, goal.module = form.name.data, form.module.data
    goal.goal_name = form.goal_name.data.strip()
    goal.goal_value = float(form.goal_value.data)
    goal.acceptance = float(form.acceptance.data) if form.acceptance.data is not None else None
    goal.time_period, goal.translate = form.time_period.data, form.translate.data
    kind, _sep, raw = form.site.data.partition("-")
    for k in SITE_KINDS:
        setattr(goal, f"{k}_id", int(raw) if k == kind else None)


def _sites(rows, v) -> dict:
    return {"sites": {f"{k}-{i}": n for k, i, n in svc.division_sites()}}


GOALS = Screen(
    path="general/goals",
    noun=_l("goal"),
    model=Goal,
    form=GoalForm,
    columns=(
        Column(_l("Goal name"), "goal_name"),
        Column(
            _l("Figure"),
            lambda g: values.METRICS[g.name][0] if g.name in values.METRICS else g.name,
        ),
        Column(_l("Module"), lambda g: MODULE_NAMES.get(g.module, g.module)),
        Column(_l("Division, region or country"), lambda g, e: e["sites"].get(_site(g)), "", True),
        Column(_l("Time period"), lambda g: svc.PERIODS.get(g.time_period, g.time_period)),
        Column(_l("Goal value"), lambda g: format_decimal(g.goal_value, format="#,##0.#"), "num"),
    ),
    intro=_l(
        "A number or chart widget over exactly one division, region or country shows the most recently defined goal for its figure, module and site."
    ),
    search=("goal_name",),
    write=lambda v: v.has(R.ROLE_ADMIN) or v.has(R.ROLE_MANAGER_ADMIN),
    order_by=(Goal.created_at.desc(), Goal.id.desc()),
    label=lambda g: g.goal_name,
    prepare=_prepare,
    load=_load,
    save=_save,
    list_extra=_sites,
    empty=_l("No goals yet."),
)
