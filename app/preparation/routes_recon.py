"""Reconditioning cost pages: cost lines on a task (from the phone's task card or the vehicle
page), the managers' decision on an estimate, and the managers' queue of waiting estimates."""

from decimal import Decimal

from flask import abort, flash, redirect, render_template, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import SelectChoice, SelectField, StringField, TextAreaField

from app.auth.session import safe_next
from app.auth.viewer import viewer
from app.core.formatting import decimal_format
from app.extensions import db
from app.preparation import bp, manage, recon
from app.preparation.items import manage_path
from app.preparation.recon_models import KINDS, LABOUR, PARTS, SUBLET
from app.preparation.routes_manage import (
    VEHICLE_MODULES,
    _worker,
    item_or_404,
    render_item,
    render_station,
)

KIND_LABELS = {PARTS: _l("Parts"), LABOUR: _l("Labour (hours)"), SUBLET: _l("Sublet")}


class CostForm(FlaskForm):
    kind = SelectField(_l("Kind"), choices=[SelectChoice(k, KIND_LABELS[k]) for k in KINDS])
    description = StringField(
        _l("What"), render_kw={"maxlength": recon.DESCRIPTION_MAX, "autocomplete": "off"}
    )
    quantity = StringField(
        _l("Amount, or hours for labour"),
        render_kw={"inputmode": "decimal", "autocomplete": "off", "required": True},
    )


class DecisionForm(FlaskForm):
    comment = TextAreaField(_l("Comment"), render_kw={"maxlength": recon.COMMENT_MAX, "rows": 2})


@bp.app_template_filter("recon_money")
def recon_money(value, whole: bool = False) -> str:
    """An amount as the reader's language writes it: whole units, or with its two decimals."""
    return recon.money(value, whole)


@bp.app_template_filter("recon_days")
def recon_days(value) -> str:
    """Days to a tenth, as the reader's language writes them."""
    return decimal_format("#,##0.0")(Decimal(str(value or 0)))


@bp.app_context_processor
def _recon_helpers() -> dict:
    return {"recon_kind_label": lambda kind: KIND_LABELS.get(kind, kind), "CostForm": CostForm}


def _back(item) -> str:
    return safe_next(request.form.get("next")) or manage_path(item)


def _answer_refused(item, task_id: int, form, status: int = 422):
    """The page the form came from again, with the refusal beside the field and the input kept."""
    refused = {"task_id": task_id, "form": form}
    if (safe_next(request.form.get("next")) or "").startswith("/begcare/station/"):
        return render_station(cost=refused, status=status)
    return render_item(item, cost=refused, status=status)


@bp.post(f"/{VEHICLE_MODULES}/items/<int:item_id>/tasks/<int:task_id>/costs")
def add_cost(module: str, item_id: int, task_id: int):
    """Add an estimated (waiting task) or actual (started task) cost line to a task."""
    item = item_or_404(module, item_id)
    task = manage.find_task(item.id, task_id)
    if task is None:
        abort(404)
    form = CostForm(prefix=f"t{task.id}")
    if not form.validate():
        return _answer_refused(item, task.id, form)
    worker = _worker()
    if not worker.may_work(task):
        flash(_("This task belongs to a station you do not work at."), "danger")
        return redirect(_back(item))
    try:
        recon.add_line(
            item, task, worker.user, form.kind.data, form.description.data, form.quantity.data
        )
    except recon.ReconError as exc:
        db.session.rollback()
        getattr(form, exc.field or "quantity").errors = [str(exc)]
        return _answer_refused(item, task.id, form)
    db.session.commit()
    flash(_("The cost is added to %(station)s.", station=task.station.name), "success")
    return redirect(_back(item))


@bp.post(f"/{VEHICLE_MODULES}/items/<int:item_id>/tasks/<int:task_id>/costs/<int:line_id>/remove")
def remove_cost(module: str, item_id: int, task_id: int, line_id: int):
    """Take back a mistyped cost line of the task's current phase."""
    item = item_or_404(module, item_id)
    task = manage.find_task(item.id, task_id)
    line = recon.find_line(item.id, line_id)
    if task is None or line is None:
        abort(404)
    worker = _worker()
    if not worker.may_work(task):
        abort(403)
    try:
        recon.remove_line(item, task, line, worker.user)
    except recon.ReconError as exc:
        db.session.rollback()
        flash(str(exc), "danger")
        return redirect(_back(item))
    db.session.commit()
    flash(_("The cost line is removed."), "success")
    return redirect(_back(item))


@bp.post(
    f"/{VEHICLE_MODULES}/items/<int:item_id>/approvals/<int:approval_id>/<any(approve, reject):decision>"
)
def decide_approval(module: str, item_id: int, approval_id: int, decision: str):
    """A manager approves or rejects a task's estimate."""
    item = item_or_404(module, item_id)
    approval = recon.find_approval(item.id, approval_id)
    if approval is None:
        abort(404)
    v = viewer()
    if not recon.may_approve(v, item):
        abort(403)
    form = DecisionForm()
    form.validate()
    try:
        recon.decide(item, approval, v.user, decision == "approve", form.comment.data)
    except recon.ReconError as exc:
        db.session.rollback()
        flash(str(exc), "danger")
        return redirect(_back(item))
    db.session.commit()
    done = (
        _("The estimate for %(regno)s is approved.")
        if decision == "approve"
        else _("The estimate for %(regno)s is rejected.")
    )
    flash(done % {"regno": item.regno}, "success")
    return redirect(_back(item))


@bp.get(f"/{VEHICLE_MODULES}/recon/approvals")
def recon_approvals(module: str):
    """The estimates waiting for a manager in the selected divisions."""
    v = viewer()
    if module not in v.modules:
        abort(404)
    if not v.has(recon.APPROVER_ROLE):
        abort(403)
    return render_template(
        "preparation/recon/approvals.html",
        module=module,
        rows=recon.waiting(module, v.selected_division_ids),
        decision=DecisionForm(formdata=None),
        days_waited=recon.days_waited,
        manage_path=manage_path,
    )
