"""admin/general/import: upload, preview with per-row errors, the import job and its report."""

import threading

from flask import abort, current_app, flash, jsonify, redirect, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from sqlalchemy import select
from wtforms import SelectField

from app.admin.crud import admin_only, guard, render_page
from app.admin.imports import FileRefused, check_rows, progress, read_rows
from app.admin.models import ImportRun
from app.core import jobs
from app.core.i18n import current_locale
from app.core.messages import KEYS
from app.core.modules import MODULE_NAMES
from app.extensions import db

PATH = "general/import"
URL = "/admin/general/import"
PREVIEW_ERRORS = 100


class UploadForm(FlaskForm):
    file = FileField(
        _l("File"),
        validators=[FileRequired(KEYS["FIELD_REQUIRED"])],
        description=_l(
            "CSV or XLSX with a header row: regno, vin, brand, model, model_series, model_year, fuel_type, color, mileage, state, division, purchase_price, sales_price."
        ),
        render_kw={"accept": ".csv,.xlsx"},
    )
    module = SelectField(_l("Module"))


def register(bp) -> None:
    bp.add_url_rule(URL, "import_upload", upload, methods=["GET", "POST"])
    bp.add_url_rule(f"{URL}/<int:run_id>", "import_run", show_run)
    bp.add_url_rule(f"{URL}/<int:run_id>/start", "import_start", start, methods=["POST"])
    bp.add_url_rule(f"{URL}/<int:run_id>/progress", "import_progress", progress_json)


def upload():
    v = guard(PATH)
    form = UploadForm()
    form.module.choices = [(m, str(MODULE_NAMES[m])) for m in ("begcare", "newcare")]
    refusal = None
    if request.method == "POST":
        if not admin_only(v):
            abort(403)
        if form.validate_on_submit():
            upload = form.file.data
            content = upload.read()
            filename = (upload.filename or "import.csv")[-200:]
            try:
                checked = check_rows(read_rows(filename, content), form.module.data)
            except FileRefused as exc:
                refusal = str(exc)
            else:
                run = ImportRun(
                    user_id=current_user.id, filename=filename, module=form.module.data,
                    content=content, language=current_locale(), status="previewed",
                    total=checked.total, unchanged=checked.unchanged, failed=checked.failed,
                    errors=checked.errors[:PREVIEW_ERRORS],
                )  # fmt: skip
                db.session.add(run)
                db.session.commit()
                return redirect(f"{URL}/{run.id}")
        return render_page(
            PATH, "import.html", 422, form=form, refusal=refusal, runs=_recent(), can_change=True
        )
    return render_page(PATH, "import.html", form=form, runs=_recent(), can_change=admin_only(v))


def _recent() -> list[ImportRun]:
    return list(db.session.scalars(select(ImportRun).order_by(ImportRun.id.desc()).limit(10)))


def _run(run_id: int) -> ImportRun:
    return db.first_or_404(select(ImportRun).where(ImportRun.id == run_id))


def show_run(run_id: int):
    v = guard(PATH)
    run = _run(run_id)
    return render_page(
        PATH,
        "import_run.html",
        run=run,
        state=progress(run),
        new=run.total - run.unchanged - run.failed,
        can_change=admin_only(v),
        subpage=run.filename,
    )


def start(run_id: int):
    guard(PATH, admin_only)
    run = _run(run_id)
    if run.status != "previewed":
        flash(_("This file is already imported."), "info")
        return redirect(f"{URL}/{run.id}")
    run.status, run.processed, run.created = "queued", 0, 0
    if current_app.config["REDIS_URL"] or current_app.testing:
        jobs.enqueue("app.admin.imports:run_import", run.id)
        db.session.commit()
    else:
        db.session.commit()
        _run_in_thread(current_app._get_current_object(), run.id)
    return redirect(f"{URL}/{run.id}")


def _run_in_thread(app, run_id: int, func: str = "app.admin.imports:run_import") -> None:
    """Without Redis (a development server), the import still runs beside the request, so the
    page shows its progress; with REDIS_URL it is an RQ job like every other."""

    def work():
        with app.app_context():
            try:
                jobs.call(func, run_id)
            except Exception:  # the run is marked failed; the log has the cause
                app.logger.exception("%s %s failed", func, run_id)
            finally:
                db.session.remove()

    threading.Thread(target=work, name=f"job-{run_id}", daemon=True).start()


def progress_json(run_id: int):
    guard(PATH)
    response = jsonify(progress(_run(run_id)))
    response.headers["Cache-Control"] = "no-store"
    return response
