"""The vehicle page's specification and last service, and the vehicle's print view. The rules
are app/preparation/specification.py and app/preparation/service_due.py."""

from datetime import date

from flask import abort, flash, redirect, render_template, request
from flask_babel import gettext as _

from app.auth.viewer import viewer
from app.core import roles as R
from app.core.numbers import is_int
from app.extensions import db
from app.preparation import bp, manage, service_due, specification
from app.preparation.items import manage_path
from app.preparation.manage import item_or_404
from app.preparation.models import PreparationItem
from app.preparation.routes_manage import render_item
from app.preparation.states import BY_ID

VEHICLE_MODULES = "<any(begcare, newcare):module>"
PRINT_OPTIONS = {
    "margin": [12, 12, 12, 12],
    "image": {"type": "jpeg", "quality": 1},
    "html2canvas": {"scale": 2},
    "jsPDF": {"unit": "mm", "format": "a4", "orientation": "portrait"},
    "pagebreak": {"mode": ["css", "legacy"], "avoid": ["tr", ".print-avoid"]},
}


def _may_edit(item: PreparationItem) -> bool:
    """Who may edit the vehicle's details (its add-vehicle role) edits these too."""
    return viewer().has_prefix(R.add_vehicle(item.module))


@bp.post(f"/{VEHICLE_MODULES}/items/<int:item_id>/specification")
def item_specification(module: str, item_id: int):
    """Save the vehicle's specification values; a refused value keeps every input."""
    item = item_or_404(module, item_id)
    if not _may_edit(item):
        abort(403)
    submitted = {k: v for k, v in request.form.items() if k.startswith("prop-")}
    try:
        changed = specification.save(item, submitted, viewer().user)
    except specification.SpecificationRefused as exc:
        db.session.rollback()
        return render_item(item, spec={"values": submitted, "errors": exc.errors}, status=422)
    db.session.commit()
    if changed:
        flash(_("The specification of %(regno)s is saved.", regno=item.regno), "success")
    return redirect(manage_path(item) + "#specification")


def _date(raw: str) -> date | None:
    try:
        return date.fromisoformat(raw) if raw else None
    except ValueError:
        return None


@bp.post(f"/{VEHICLE_MODULES}/items/<int:item_id>/last-service")
def item_last_service(module: str, item_id: int):
    """Set the vehicle's last service (day and mileage); the vehicle is evaluated again."""
    item = item_or_404(module, item_id)
    if not _may_edit(item):
        abort(403)
    raw_day = request.form.get("last_service_on", "").strip()
    raw_km = request.form.get("last_service_mileage", "").replace(" ", "").replace("\u00a0", "")
    on, errors = _date(raw_day), {}
    if raw_day and (on is None or on > date.today()):
        errors["last_service_on"] = _("Enter a date that has passed, such as 2026-03-31.")
    if raw_km and (not is_int(raw_km) or not 0 <= int(raw_km) <= 9_999_999):
        errors["last_service_mileage"] = _(
            "Enter a whole number from %(min)s to %(max)s.", min=0, max=9_999_999
        )
    if errors:
        service = {
            "values": {"last_service_on": raw_day, "last_service_mileage": raw_km},
            "errors": errors,
        }
        return render_item(item, service=service, status=422)
    service_due.set_last_service(item, on, int(raw_km) if raw_km else None, viewer().user)
    db.session.commit()
    flash(_("The last service of %(regno)s is saved.", regno=item.regno), "success")
    return redirect(manage_path(item) + "#service")


@bp.get(f"/{VEHICLE_MODULES}/items/<int:item_id>/print")
def item_print(module: str, item_id: int):
    """The vehicle's data sheet: details and specification, printed or saved as PDF."""
    item = item_or_404(module, item_id)
    return render_template(
        "preparation/manage/print.html",
        item=item,
        state=BY_ID[item.state],
        details=manage.item_details(item),
        pdf_options=PRINT_OPTIONS,
        pdf_name=f"{item.regno}.pdf",
    )


@bp.app_template_global()
def item_specification_groups(item, submitted: dict | None = None, filled_only: bool = False):
    """The vehicle's specification by category; `submitted` (prop-<id> -> text) kept as typed;
    `filled_only`: only the fields with a value (print views)."""
    values = specification.values_of([item.id]).get(item.id, {})
    if submitted:
        values = {**values, **{int(k[5:]): v for k, v in submitted.items() if k[5:].isdigit()}}
    groups = specification.groups(values)
    if filled_only:
        for group in groups:
            group.fields = [(prop, value) for prop, value in group.fields if value]
        groups = [g for g in groups if g.fields]
    return groups


@bp.app_template_global()
def specification_value(prop, value) -> str:
    return specification.shown(prop, value)


@bp.app_template_global()
def may_edit_vehicle(item) -> bool:
    return _may_edit(item)
