"""Admin screens: the analyses' dynamic fields and priorities, and the calculators.

Seeing a screen follows its admin menu entry (ROLE_ADMIN or ROLE_TENANT_PURCHASE_ANALYSIS_READ,
ROLE_TENANT_CALCULATOR_READ); a change needs ROLE_ADMIN. Each screen lists its rows with an
add form, an edit form (?edit=id) and a delete button."""

import re
from decimal import Decimal, InvalidOperation

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import select

from app.auth.viewer import viewer
from app.core import roles as R
from app.core.audit import record
from app.extensions import db
from app.purchase import bp
from app.purchase.models import FIELD_TYPES, Calculator, PurchaseDynamicField, PurchasePriority
from app.purchase.services import as_id

SCREENS = {
    "fields": {
        "path": "/admin/purchase-analysis/purchase-analyses-dynamic-fields",
        "model": PurchaseDynamicField,
        "role": R.tenant_read("PURCHASE_ANALYSIS"),
        "module": True,
        "title": _l("Dynamic fields"),
    },
    "priorities": {
        "path": "/admin/purchase-analysis/purchase-analyses-priorities",
        "model": PurchasePriority,
        "role": R.tenant_read("PURCHASE_ANALYSIS"),
        "module": True,
        "title": _l("Priorities"),
    },
    "calculators": {
        "path": "/admin/general/calculators",
        "model": Calculator,
        "role": R.tenant_read("CALCULATOR"),
        "module": False,
        "title": _l("Calculators"),
    },
}
TYPE_LABELS = {
    "text": _l("Text"), "textarea": _l("Text area"), "date": _l("Date"), "select": _l("Choice"),
    "link": _l("Link"), "number": _l("Number"), "mileage": _l("Mileage"),
    "currency": _l("Amount"), "checkbox": _l("Yes/no"), "image": _l("Image"),
}  # fmt: skip
CALCULATOR_ROWS = 8


def _screen(key: str) -> dict:
    v = viewer()
    screen = SCREENS[key]
    if screen["module"] and "purchaseAnalysis" not in v.modules:
        abort(404)
    if v.is_global or not (v.has(R.ROLE_ADMIN) or v.has(screen["role"])):
        abort(403)
    return screen


def _get(model, raw: str):
    """A row of the active instance by its id in a form or query value, else None."""
    row_id = as_id(raw)
    if row_id is None:
        return None
    return db.session.scalars(select(model).where(model.id == row_id)).first()


def _can_change() -> bool:
    return viewer().has(R.ROLE_ADMIN)


def _rows(model):
    order = (model.ordering, model.id) if hasattr(model, "ordering") else (model.title, model.id)
    return db.session.scalars(select(model).order_by(*order)).all()


def _text(form, name: str, limit: int, errors: dict, required: bool = True) -> str:
    value = " ".join((form.get(name) or "").split())
    if required and not value:
        errors[name] = _("Fill in this field.")
    elif len(value) > limit:
        errors[name] = _("At most %(max)s characters.", max=limit)
    return value


def _ordering(form, errors: dict) -> int:
    raw = (form.get("ordering") or "0").strip()
    if not re.fullmatch(r"-?[0-9]{1,6}", raw) or abs(int(raw)) > 10_000:
        errors["ordering"] = _("Enter a number from %(low)s to %(high)s.", low=-10000, high=10000)
        return 0
    return int(raw)


def _read(key: str, form, errors: dict) -> dict:
    if key == "priorities":
        return {"name": _text(form, "name", 80, errors), "ordering": _ordering(form, errors)}
    if key == "fields":
        kind = form.get("field_type")
        if kind not in FIELD_TYPES:
            errors["field_type"] = _("Choose one of the options.")
        choices = [c.strip() for c in (form.get("choices") or "").splitlines() if c.strip()]
        if kind == "select" and not choices:
            errors["choices"] = _("Write one option on each line.")
        if any(len(c) > 100 for c in choices) or len(choices) > 50:
            errors["choices"] = _("At most %(max)s characters.", max=100)
        return {
            "title": _text(form, "title", 100, errors),
            "section": _text(form, "section", 100, errors),
            "field_type": kind,
            "choices": choices if kind == "select" else [],
            "required": bool(form.get("required")),
            "ordering": _ordering(form, errors),
        }
    rows = []
    for n in range(CALCULATOR_ROWS):
        title = " ".join((form.get(f"row_title_{n}") or "").split())
        raw = (form.get(f"row_value_{n}") or "").strip().replace(",", ".").replace(" ", "")
        if not title and not raw:
            continue
        operator, unit = form.get(f"row_operator_{n}"), form.get(f"row_unit_{n}")
        try:
            value = Decimal(raw)
            if not value.is_finite() or value < 0 or value >= Decimal("1e9"):
                raise InvalidOperation
        except (InvalidOperation, ValueError):
            errors[f"row_value_{n}"] = _("Enter a number.")
            continue
        if not title or len(title) > 100:
            errors[f"row_title_{n}"] = _("Fill in this field.")
        if operator not in ("+", "-") or unit not in ("currency", "percent"):
            errors[f"row_value_{n}"] = _("Choose one of the options.")
        rows.append({"title": title, "operator": operator, "value": float(value), "unit": unit})
    if not rows and not errors:
        errors["row_title_0"] = _("Add at least one row.")
    raw = (form.get("preset_percent") or "0").strip().replace(",", ".")
    try:
        percent = Decimal(raw)
        if not percent.is_finite() or not 0 <= percent <= 100:
            raise InvalidOperation
    except (InvalidOperation, ValueError):
        errors["preset_percent"] = _("Enter a number from %(low)s to %(high)s.", low=0, high=100)
        percent = Decimal(0)
    return {
        "title": _text(form, "title", 100, errors),
        "rows": rows,
        "preset_description": _text(form, "preset_description", 200, errors, required=False),
        "preset_percent": percent,
    }


def _view(key: str):
    screen = _screen(key)
    model = screen["model"]
    editing = _get(model, request.args.get("edit", ""))
    errors: dict[str, str] = {}
    if request.method == "POST":
        if not _can_change():
            abort(403)
        form = request.form
        if "delete" in form:
            row = _get(model, form["delete"])
            if row is None:
                abort(404)
            db.session.delete(row)
            record(f"purchase.admin.{key}.deleted", user=viewer().user, id=row.id)
            db.session.commit()
            flash(_("Deleted."), "success")
            return redirect(screen["path"])
        target = None
        if "id" in form:
            target = _get(model, form["id"])
            if target is None:
                abort(404)
        values = _read(key, form, errors)
        if not errors:
            target = target or model()
            for name, value in values.items():
                setattr(target, name, value)
            db.session.add(target)
            db.session.flush()
            record(f"purchase.admin.{key}.saved", user=viewer().user, id=target.id)
            db.session.commit()
            flash(_("Saved."), "success")
            return redirect(screen["path"])
        editing = target
    return render_template(
        "purchase/admin.html", key=key, screen=screen, rows=_rows(model), editing=editing,
        errors=errors, form=request.form if request.method == "POST" else None,
        can_change=_can_change(), type_labels=TYPE_LABELS, calculator_rows=CALCULATOR_ROWS,
    ), (422 if errors else 200)  # fmt: skip


@bp.route(SCREENS["fields"]["path"], methods=["GET", "POST"])
def admin_fields():
    return _view("fields")


@bp.route(SCREENS["priorities"]["path"], methods=["GET", "POST"])
def admin_priorities():
    return _view("priorities")


@bp.route(SCREENS["calculators"]["path"], methods=["GET", "POST"])
def admin_calculators():
    return _view("calculators")


def admin_url(key: str) -> str:
    return url_for(f"purchase.admin_{key}")
