"""The dashboard pages (My dashboard, each module's dashboard) and the goals admin screen."""

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from sqlalchemy import select
from wtforms import BooleanField, DecimalField, SelectField, StringField
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional

from app.auth.viewer import viewer
from app.core import roles as R
from app.core.models import Country
from app.core.modules import MODULE_NAMES
from app.dashboard import bp, values
from app.dashboard import services as svc
from app.dashboard.models import Goal
from app.extensions import db
from app.preparation.states import MODULES, STATES


def _me(allow_global: bool = False):
    """Global users have no My dashboard (DOMAIN.md); the module dashboards they do have."""
    v = viewer()
    if v.instance is None or (v.is_global and not allow_global):
        abort(404)
    return v


def _props(v, dashboard: str, widgets) -> dict:
    modules = [m for m in MODULES if m in v.modules and (dashboard == "my" or m == dashboard)]
    currency = db.session.scalar(select(Country.currency).order_by(Country.id).limit(1))
    return {
        "dashboard": dashboard,
        "canEdit": True,
        "fixedModule": dashboard if dashboard != "my" else None,
        "widgets": [svc.widget_meta(w, v) for w in widgets],
        "choices": {
            "modules": [{"value": m, "label": str(MODULE_NAMES[m])} for m in modules],
            "divisions": [
                {"value": c.value, "label": c.label, "level": c.level} for c in v.division_choices
            ],
            "metrics": [
                {"value": k, "label": str(t), "unit": u} for k, (t, u) in values.METRICS.items()
            ],
            "chartMetrics": [
                {"value": k, "label": str(values.METRICS[k][0])} for k in svc.CHART_METRICS
            ],
            "periods": [{"value": k, "label": str(t)} for k, t in svc.PERIODS.items()],
            "groups": [{"value": k, "label": str(t)} for k, t in svc.LIST_GROUPS.items()],
            "customLists": [{"value": c.id, "label": c.name} for c in v.custom_lists],
            "states": [{"value": str(s.id), "label": str(s.title)} for s in STATES],
        },
        "currency": currency,
    }


@bp.get("/my-dashboard")
def my_dashboard():
    """My dashboard: the signed-in user's own widgets."""
    v = _me()
    widgets = svc.widgets_of(v.user.id, "my")
    return render_template(
        "dashboard/page.html", title=_("My dashboard"), props=_props(v, "my", widgets)
    )


@bp.get("/<any(begcare, newcare):module>/dashboard")
def module_dashboard(module: str):
    """A module's dashboard: the module's own widgets (the defaults on the first visit)."""
    v = _me(allow_global=True)
    if module not in v.modules:
        abort(404)
    if not svc.widgets_of(v.user.id, module):
        svc.ensure_module_dashboard(v.user.id, module)
        db.session.commit()
    widgets = svc.widgets_of(v.user.id, module)
    return render_template(
        "dashboard/page.html",
        title=_("Dashboard"),
        module=module,
        props=_props(v, module, widgets),
    )


# --- goals (administrators) ------------------------------------------------------------------


def can_set_goals(v) -> bool:
    return v.has(R.ROLE_ADMIN) or v.has(R.ROLE_MANAGER_ADMIN)


class GoalForm(FlaskForm):
    name = SelectField(_l("Figure"), validators=[InputRequired()])
    goal_name = StringField(_l("Goal name"), validators=[DataRequired(), Length(max=100)])
    goal_value = DecimalField(
        _l("Goal value"), validators=[InputRequired(), NumberRange(min=0, max=1_000_000_000)]
    )
    acceptance = DecimalField(
        _l("Acceptable from"), validators=[Optional(), NumberRange(min=0, max=1_000_000_000)]
    )
    module = SelectField(_l("Module"), validators=[InputRequired()])
    site = SelectField(_l("Division, region or country"), validators=[InputRequired()])
    time_period = SelectField(_l("Time period"), validators=[InputRequired()])
    translate = BooleanField(_l("Translate the goal name"))


def _goal_form(v) -> GoalForm:
    form = GoalForm()
    form.name.choices = [(k, str(t)) for k, (t, _u) in values.METRICS.items()]
    form.module.choices = [(m, str(MODULE_NAMES[m])) for m in MODULES]
    form.site.choices = [(f"{k}-{i}", n) for k, i, n in svc.division_sites()]
    form.time_period.choices = [(k, str(t)) for k, t in svc.PERIODS.items()]
    return form


@bp.route("/admin/general/goals", methods=["GET", "POST"])
def goals():
    """Goals per division, region or country, module and time period (administrators)."""
    v = _me()
    if not can_set_goals(v):
        abort(403)
    form = _goal_form(v)
    status = 200
    if request.method == "POST":
        if form.validate_on_submit():
            kind, _sep, raw = form.site.data.partition("-")
            goal = Goal(
                name=form.name.data, goal_name=form.goal_name.data.strip(),
                goal_value=float(form.goal_value.data),
                acceptance=float(form.acceptance.data) if form.acceptance.data is not None else None,
                module=form.module.data, time_period=form.time_period.data,
                translate=form.translate.data,
                **{f"{kind}_id": int(raw)},
            )  # fmt: skip
            db.session.add(goal)
            db.session.commit()
            flash(_("The goal %(name)s is saved.", name=goal.goal_name), "success")
            return redirect(url_for("dashboard.goals"))
        status = 422
    rows = db.session.scalars(select(Goal).order_by(Goal.created_at.desc(), Goal.id.desc())).all()
    sites = {f"{k}-{i}": n for k, i, n in svc.division_sites()}
    return (
        render_template(
            "dashboard/goals.html", form=form, goals=rows, sites=sites, metrics=values.METRICS,
            periods=svc.PERIODS,
        ),
        status,
    )  # fmt: skip


@bp.post("/admin/general/goals/<int:goal_id>/delete")
def delete_goal(goal_id: int):
    v = _me()
    if not can_set_goals(v):
        abort(403)
    goal = db.session.get(Goal, goal_id)
    if goal is None or goal.instance_id != v.instance.id:
        abort(404)
    db.session.delete(goal)
    db.session.commit()
    flash(_("The goal is deleted."), "success")
    return redirect(url_for("dashboard.goals"))
