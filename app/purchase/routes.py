"""The purchase-analysis module's pages: list, create, one analysis with its actions, approval
requests and statistics."""

from datetime import date

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from sqlalchemy import func, or_, select
from werkzeug.datastructures import MultiDict

from app.auth.viewer import viewer
from app.core import audit
from app.core import roles as R
from app.core.localized import for_reader
from app.core.models import Division, utcnow
from app.extensions import db
from app.preparation import files
from app.preparation.items import FUEL_TYPES, ItemError, normalise_regno
from app.providers import services as providers
from app.purchase import bp, expected_recon
from app.purchase import services as svc
from app.purchase.api import full_payload
from app.purchase.models import (
    STATUS_TITLES,
    Calculator,
    PurchaseAnalysis,
    PurchaseDynamicField,
    PurchasePriority,
    PurchaseValuation,
)
from app.purchase.print_view import Formatter
from app.purchase.print_view import date as format_date
from app.purchase.services import digits as svc_digits

PER_PAGE = 25
TEXT_MAX = {"brand": 60, "model": 80, "model_series": 80, "color": 40, "regno": 20}
INPUT_MAX = 2000


def _divisions() -> list[Division]:
    ids = svc.visible_division_ids()
    return db.session.scalars(
        select(Division).where(Division.id.in_(ids)).order_by(Division.name)
    ).all()


def _list(title: str, where=(), template="purchase/list.html", **extra):
    svc.require_module()
    query = (request.args.get("q") or "").strip()[:60]
    stmt = select(PurchaseAnalysis).where(
        PurchaseAnalysis.division_id.in_(svc.visible_division_ids()), *where
    )
    if query:
        like = f"%{query.lower()}%"
        stmt = stmt.where(
            or_(
                func.lower(PurchaseAnalysis.regno).like(like),
                func.lower(PurchaseAnalysis.brand).like(like),
                func.lower(PurchaseAnalysis.model).like(like),
                func.lower(PurchaseAnalysis.identifier).like(like),
            )
        )
    raw = request.args.get("page", "1")
    page = int(raw) if svc_digits(raw) and 0 < int(raw) < 10_000 else 1
    total = db.session.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    rows = db.session.scalars(
        stmt.order_by(PurchaseAnalysis.created_at.desc(), PurchaseAnalysis.id.desc())
        .limit(PER_PAGE)
        .offset((page - 1) * PER_PAGE)
    ).all()
    return render_template(
        template, title=title, analyses=rows, query=query, page=page, total=total,
        pages=max(1, -(-total // PER_PAGE)), **extra,
    )  # fmt: skip


@bp.get("/purchase-analysis/list")
def analysis_list():
    return _list(_("Analyses"))


@bp.get("/purchase-analysis/approval-requests")
def approval_requests():
    if not viewer().module_option(svc.MODULE, "showApprovalRequestsList"):
        abort(404)
    return _list(_("Approval requests"), (PurchaseAnalysis.status == "requested",))


@bp.get("/purchase-analysis/statistics")
def statistics():
    svc.require_module()
    v = viewer()
    if not (v.has(R.ROLE_STATISTICS) or v.has(R.ROLE_USER_PA_STATISTICS)):
        abort(403)
    ids = svc.visible_division_ids()
    by_status = dict(
        db.session.execute(
            select(PurchaseAnalysis.status, func.count())
            .where(PurchaseAnalysis.division_id.in_(ids))
            .group_by(PurchaseAnalysis.status)
        ).all()
    )
    per_division = db.session.execute(
        select(
            Division.name,
            func.count(func.distinct(PurchaseAnalysis.id)),
            func.avg(PurchaseValuation.price_in),
            func.avg(PurchaseValuation.price_out),
        )
        .join(PurchaseAnalysis, PurchaseAnalysis.division_id == Division.id)
        .outerjoin(PurchaseValuation, PurchaseValuation.analysis_id == PurchaseAnalysis.id)
        .where(Division.id.in_(ids))
        .group_by(Division.name)
        .order_by(Division.name)
    ).all()
    bought = db.session.scalar(
        select(func.count())
        .select_from(PurchaseAnalysis)
        .where(PurchaseAnalysis.division_id.in_(ids), PurchaseAnalysis.item_id.is_not(None))
    )
    return render_template(
        "purchase/statistics.html", by_status=by_status, per_division=per_division,
        total=sum(by_status.values()), bought=bought or 0,
    )  # fmt: skip


# --- create ---------------------------------------------------------------------------------


def _fields() -> list[PurchaseDynamicField]:
    return db.session.scalars(
        select(PurchaseDynamicField).order_by(
            PurchaseDynamicField.ordering, PurchaseDynamicField.id
        )
    ).all()


def _read_inputs(fields, form, errors: dict, uploads=None, images=None, existing=None) -> dict:
    """The dynamic fields' values; an image field's upload is checked by content here and kept
    in `images` ({field id: (data, name)}) to be stored once the whole form is valid."""
    inputs = {}
    for f in fields:
        name = f"field_{f.id}"
        raw = (form.get(name) or "").strip()
        if f.field_type == "image":
            upload = uploads.get(name) if uploads is not None else None
            if upload is None or not upload.filename:
                if (existing or {}).get(str(f.id)):
                    inputs[str(f.id)] = existing[str(f.id)]  # an edit keeps the image it had
                elif f.required:
                    errors[name] = _("Fill in this field.")
                continue
            data = upload.read()
            try:
                kind, _name = files.check_upload(data, upload.filename)
                if not kind.pillow_format:
                    raise files.UploadError(_("Only an image can be uploaded here."))
            except files.UploadError as exc:
                errors[name] = str(exc)
                continue
            if images is not None:
                images[str(f.id)] = (data, upload.filename)
            continue
        if f.field_type == "checkbox":
            inputs[str(f.id)] = bool(form.get(name))
            continue
        if not raw:
            if f.required:
                errors[name] = _("Fill in this field.")
            continue
        if len(raw) > INPUT_MAX:
            errors[name] = _("At most %(max)s characters.", max=INPUT_MAX)
            continue
        if f.field_type in ("number", "mileage", "currency"):
            clean = raw.replace(" ", "").replace("\u00a0", "").replace(",", ".")
            try:
                number = float(clean)
                if number != number or abs(number) > 1e10:
                    raise ValueError
            except ValueError:
                errors[name] = _("Enter a number.")
                continue
            inputs[str(f.id)] = int(number) if number.is_integer() else number
        elif f.field_type == "select" and raw not in (f.choices or []):
            errors[name] = _("Choose one of the options.")
        elif f.field_type == "link" and not raw.startswith(("https://", "http://")):
            errors[name] = _("Enter a web address starting with https://.")
        elif f.field_type == "date":
            try:
                inputs[str(f.id)] = date.fromisoformat(raw).isoformat()
            except ValueError:
                errors[name] = _("Enter a date as yyyy-mm-dd.")
        else:
            inputs[str(f.id)] = raw
    return inputs


@bp.route("/purchase-analysis/create", methods=["GET", "POST"])
def create():
    svc.require_module()
    return _form_screen(None)


@bp.route("/purchase-analysis/<int:analysis_id>/edit", methods=["GET", "POST"])
def edit(analysis_id: int):
    analysis = svc.analysis_or_404(analysis_id)
    if analysis.item_id is not None:
        abort(404)  # bought in: the vehicle lives on in begcare
    return _form_screen(analysis)


def _prefill(analysis: PurchaseAnalysis, fields) -> MultiDict:
    values = {k: getattr(analysis, k) or "" for k in TEXT_MAX}
    values.update(
        division_id=analysis.division_id, model_year=analysis.model_year or "",
        mileage=analysis.mileage if analysis.mileage is not None else "",
        fuel_type=analysis.fuel_type or "", priority_id=analysis.priority_id or "",
    )  # fmt: skip
    for f in fields:
        value = (analysis.inputs or {}).get(str(f.id))
        if f.field_type == "checkbox":
            value = "1" if value else ""
        elif isinstance(value, dict):
            continue
        values[f"field_{f.id}"] = "" if value is None else value
    return MultiDict({k: str(v) for k, v in values.items()})


def _form_screen(analysis: PurchaseAnalysis | None):
    fields = _fields()
    divisions = _divisions()
    priorities = db.session.scalars(
        select(PurchasePriority).order_by(PurchasePriority.ordering)
    ).all()
    errors: dict[str, str] = {}
    form = (
        request.form if request.method == "POST" or analysis is None else _prefill(analysis, fields)
    )
    if request.method == "POST":
        values = {k: " ".join((form.get(k) or "").split()) or None for k in TEXT_MAX}
        values["regno"] = normalise_regno(values["regno"]) or None
        for name, limit in TEXT_MAX.items():
            if values[name] and len(values[name]) > limit:
                errors[name] = _("At most %(max)s characters.", max=limit)
        for name, text in (("regno", _("Enter the registration number.")),
                           ("brand", _("Enter the brand.")), ("model", _("Enter the model."))):  # fmt: skip
            if not values[name]:
                errors[name] = text
        division = str(svc.as_id(form.get("division_id")) or "")
        if not division or int(division) not in {d.id for d in divisions}:
            errors["division_id"] = _("Choose one of your divisions.")
        numbers = {}
        for name, low, high in (("model_year", 1900, 2100), ("mileage", 0, 5_000_000)):
            raw = (form.get(name) or "").replace(" ", "")
            if raw:
                if svc_digits(raw) and low <= int(raw) <= high:
                    numbers[name] = int(raw)
                else:
                    errors[name] = _("Enter a number from %(low)s to %(high)s.", low=low, high=high)
        fuel = form.get("fuel_type") or None
        if fuel and fuel not in FUEL_TYPES:
            errors["fuel_type"] = _("Choose one of the options.")
        priority = form.get("priority_id") or ""
        if priority and svc.as_id(priority) not in {p.id for p in priorities}:
            errors["priority_id"] = _("Choose one of the options.")
        images: dict = {}
        existing = analysis.inputs if analysis is not None else None
        inputs = _read_inputs(fields, form, errors, request.files, images, existing)
        if not errors:
            if analysis is not None:
                changed = {**values, **numbers, "division_id": int(division), "fuel_type": fuel,
                           "priority_id": int(priority) if priority else None, "inputs": inputs}  # fmt: skip
                for name in ("model_year", "mileage"):
                    changed.setdefault(name, None)
                for name, value in changed.items():
                    setattr(analysis, name, value)
                _store_images(analysis, images)
                analysis.modified_at = utcnow()
                audit.record("purchase.edited", user=viewer().user, analysis_id=analysis.id)
                db.session.commit()
                flash(_("The analysis was saved."), "success")
                return redirect(url_for("purchase.show", analysis_id=analysis.id))
            now = utcnow()
            analysis = PurchaseAnalysis(
                identifier="", division_id=int(division),
                created_by_id=viewer().user.id, status="draft",
                priority_id=int(priority) if priority else None, fuel_type=fuel,
                inputs=inputs, valuation={}, price_predictions=[], basic={},
                **values, **numbers,
            )  # fmt: skip
            db.session.add(analysis)
            db.session.flush()
            analysis.identifier = svc.identifier_for(analysis.id, now)
            _store_images(analysis, images)
            db.session.commit()
            flash(_("The analysis was created."), "success")
            return redirect(url_for("purchase.show", analysis_id=analysis.id))
    sections: dict[str, list] = {}
    for f in fields:  # in the admin's order, each section where its first field is
        sections.setdefault(for_reader(f.section_texts, f.section), []).append(f)
    return render_template(
        "purchase/create.html", analysis=analysis, sections=sections, divisions=divisions, priorities=priorities,
        errors=errors, form=form, fuel_types=FUEL_TYPES,
    ), (422 if errors else 200)  # fmt: skip


# --- one analysis -----------------------------------------------------------------------------


def _store_images(analysis: PurchaseAnalysis, images: dict) -> None:
    """Store the image fields' uploads (checked by _read_inputs) as the analysis' own."""
    for field_id, (data, name) in images.items():
        svc.set_input_image(analysis, field_id, files.store_file(data, name, viewer().user.id))


def _can_decide() -> bool:
    v = viewer()
    return v.has(R.ROLE_ADMIN) or v.is_division_admin


def _show(analysis: PurchaseAnalysis, errors=None, status=200, form=None, notice=None):
    country = analysis.division.region.country
    fmt = Formatter(country.locale.replace("-", "_"), country.currency, country.currency)
    calculators = db.session.scalars(select(Calculator).order_by(Calculator.title)).all()
    recon = expected_recon.expected(analysis)
    return render_template(
        "purchase/show.html", analysis=analysis, full=full_payload(analysis), fmt=fmt, date=format_date,
        calculators=calculators, errors=errors or {}, form=request.form if form is None else form,
        notice=notice, can_value=providers.active("valuation") is not None,
        recon=recon, recon_basis=expected_recon.basis_text(recon),
        can_decide=_can_decide(), may_approve=svc.may_approve(analysis, viewer().user), can_buy=viewer().has(R.add_vehicle("begcare"))
        and "begcare" in viewer().modules,
    ), status  # fmt: skip


@bp.get("/purchase-analysis/<int:analysis_id>")
def show(analysis_id: int):
    return _show(svc.analysis_or_404(analysis_id))


@bp.post("/purchase-analysis/<int:analysis_id>/get-valuation")
def get_valuation(analysis_id: int):
    """Fill the valuation form from the valuation provider, the source named; nothing is saved
    until "Save valuation", and what was typed stays when the provider fails."""
    analysis = svc.analysis_or_404(analysis_id)
    form = request.form.to_dict()
    sample = {
        "regno": analysis.regno, "vin": "", "brand": analysis.brand,
        "model": analysis.model, "year": analysis.model_year, "mileage": analysis.mileage,
    }  # fmt: skip
    try:
        answer = providers.look_up("valuation", sample)
    except providers.ProviderError as exc:
        return _show(analysis, status=422, form=form, notice=("danger", str(exc)))
    for name, key in (
        ("price_min", "priceMin"),
        ("price_max", "priceMax"),
        ("price_avg", "priceAvg"),
    ):
        if name in answer.values:
            form[key] = f"{answer.values[name]:.0f}"
    form["source"] = answer.provider
    text = _("Filled from %(provider)s; save the valuation to keep it.", provider=answer.provider)
    if answer.problems:
        text += " " + _("Not in its answer: %(fields)s.", fields=", ".join(answer.problems))
    return _show(analysis, form=form, notice=("warning" if answer.problems else "success", text))


@bp.post(
    "/purchase-analysis/<int:analysis_id>/<any(valuation, market, prediction, comment, calculation, recon, status, buy):action>"
)
def act(analysis_id: int, action: str):
    analysis = svc.analysis_or_404(analysis_id)
    user = viewer().user
    try:
        if action == "valuation":
            svc.add_valuation(analysis, request.form, user)
            done = _("The valuation was added.")
        elif action == "market":
            svc.set_market_valuation(analysis, request.form, user)
            done = _("The market prices were saved.")
        elif action == "prediction":
            svc.add_prediction(analysis, request.form, user)
            done = _("The price forecast was added.")
        elif action == "comment":
            uploads = [
                (f.read(), f.filename) for f in request.files.getlist("images") if f and f.filename
            ]
            svc.add_comment(analysis, request.form.get("content", ""), uploads, user)
            done = _("The comment was added.")
        elif action == "calculation":
            svc.run_calculation(
                analysis, svc.as_id(request.form.get("calculator_id")),
                request.form.get("input_value"), user,
            )  # fmt: skip
            done = _("The calculation was saved.")
        elif action == "recon":
            expected_recon.set_override(analysis, request.form.get("expected_recon"), user)
            done = _("The expected reconditioning was saved.")
        elif action == "status":
            status = request.form.get("status", "")
            if status in ("approved", "rejected") and not _can_decide():
                abort(403)
            svc.set_status(analysis, status, user)
            done = _("The status was changed.")
        else:
            if not (viewer().has(R.add_vehicle("begcare")) and "begcare" in viewer().modules):
                abort(403)
            item = svc.to_incoming(analysis, user)
            db.session.commit()
            flash(_("The vehicle was added to the incoming list."), "success")
            return redirect(url_for("purchase.show", analysis_id=analysis.id, item=item.id))
    except svc.PurchaseError as exc:
        db.session.rollback()
        return _show(svc.analysis_or_404(analysis_id), exc.errors, 422)
    except ItemError as exc:
        db.session.rollback()
        return _show(
            svc.analysis_or_404(analysis_id), {"status": " ".join(exc.errors.values())}, 422
        )
    db.session.commit()
    flash(done, "success")
    return redirect(url_for("purchase.show", analysis_id=analysis.id))


@bp.app_template_global("purchase_status")
def purchase_status(status: str) -> str:
    """An analysis's status in the reader's language (templates/purchase/_status.html)."""
    return str(STATUS_TITLES.get(status, status))
