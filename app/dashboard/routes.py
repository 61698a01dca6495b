"""The dashboard pages (My dashboard, each module's dashboard). The goals' admin screen is
app/admin/goals.py."""

from flask import abort, render_template
from flask_babel import gettext as _
from sqlalchemy import select

from app.auth.viewer import viewer
from app.core.models import Country
from app.core.modules import MODULE_NAMES
from app.dashboard import bp, values
from app.dashboard import services as svc
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
