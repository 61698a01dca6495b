"""admin/general/reports: CSV or XLSX exports of the instance's vehicles, adverts and purchase
analyses (of the divisions the viewer may see; app.purchase.report writes their rows) for a
period. CSV streams row by row, so even a large export starts at once and holds little memory;
XLSX is written in openpyxl's write-only mode. Every cell goes through app.core.spreadsheet,
which writes text a spreadsheet program would take for a formula as text."""

import io
from datetime import UTC, datetime, time, timedelta

from flask import Response, abort, current_app, jsonify, redirect, request
from flask_babel import force_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user
from flask_wtf import FlaskForm
from sqlalchemy import func, select
from wtforms import DateField, SelectField, ValidationError
from wtforms.validators import InputRequired

from app.admin.crud import guard, render_page
from app.admin.import_routes import _run_in_thread
from app.admin.imports import failing_run, run_to_work_on
from app.admin.models import ExportRun
from app.auth.models import User
from app.auth.viewer import build_snapshot
from app.core import audit, jobs
from app.core.i18n import babel_name, current_locale
from app.core.messages import KEYS
from app.core.models import Instance, utcnow
from app.core.spreadsheet import csv_chunks, xlsx_row
from app.core.times import moment
from app.extensions import db
from app.market.models import Advert
from app.preparation import specification
from app.preparation.models import PreparationItem
from app.preparation.states import BY_ID
from app.purchase import report as analyses
from app.purchase.models import PurchaseAnalysis

PATH = "general/reports"
JOB_THRESHOLD = 20_000  # more rows than this: a job writes the file, the page shows progress
EXPORT_CHUNK = 5_000
URL = f"/admin/{PATH}"
XLSX_MAX = 200_000

REPORTS = {
    "vehicles": (
        _l("Vehicles added in the period"),
        PreparationItem,
        ("id", "module", "regno", "vin", "brand", "model", "model_year", "mileage", "state",
         "division_id", "purchase_price", "sales_price", "created_at"),
    ),
    "adverts": (
        _l("Adverts created in the period"),
        Advert,
        ("id", "regno", "brand", "model", "model_year", "mileage", "currency", "start_price",
         "highest_bid", "bid_count", "status", "created_at", "ends_at"),
    ),
    "analyses": (_l("Purchase analyses created in the period"), PurchaseAnalysis, analyses.HEADERS),
}  # fmt: skip


class ReportForm(FlaskForm):
    report = SelectField(_l("Report"))
    start = DateField(_l("From"), validators=[InputRequired(KEYS["FIELD_REQUIRED"])])
    end = DateField(_l("To"), validators=[InputRequired(KEYS["FIELD_REQUIRED"])])
    format = SelectField(_l("Format"))

    def validate_end(self, field) -> None:
        if self.start.data and field.data and field.data < self.start.data:
            raise ValidationError(_("The end date must not be before the start date."))


def _rows(
    model, columns, start, end, instance_id, state_titles, offset=0, limit=None, divisions=()
) -> list[list]:
    """The report's rows, read in the request (the CSV is written out after it) with a Core
    statement, so the instance filter is explicit; analyses only of `divisions`."""
    if model is PurchaseAnalysis:
        return analyses.rows(instance_id, divisions, start, end, offset, limit)
    table = model.__table__
    stmt = (
        select(*(table.c[name] for name in columns))
        .where(
            table.c.instance_id == instance_id,
            table.c.created_at >= start,
            table.c.created_at < end,
        )
        .order_by(table.c.id)
        .offset(offset)
        .limit(limit)
    )
    state_index = columns.index("state") if model is PreparationItem else None
    rows = []
    for row in db.session.execute(stmt):
        values = ["" if v is None else v for v in row]
        for i, value in enumerate(values):
            if isinstance(value, datetime):
                values[i] = moment(value)
        if state_index is not None:
            values[state_index] = state_titles.get(values[state_index], values[state_index])
        rows.append(values)
    if model is PreparationItem:  # then each active specification field, in the header's order
        properties = specification.active_properties()
        values = specification.export_values(properties, [row[0] for row in rows])
        for row in rows:
            row += values[row[0]]
    return rows


def _headers(model, columns) -> tuple:
    """The report's header row: its columns, for vehicles then the specification fields."""
    if model is PurchaseAnalysis:
        return tuple(str(title) for title in columns)
    if model is PreparationItem:
        return (*columns, *specification.export_columns(specification.active_properties()))
    return tuple(columns)


def _csv_bytes(columns, rows) -> bytes:
    return "".join(csv_chunks(columns, rows)).encode("utf-8")


def _xlsx_bytes(name, columns, rows) -> bytes:
    # lazy: openpyxl takes ~0.1 s to load; only an XLSX export needs it
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    sheet = book.create_sheet(name)
    sheet.append(xlsx_row(sheet, columns))
    for count, values in enumerate(rows):
        if count >= XLSX_MAX:
            break
        sheet.append(xlsx_row(sheet, values))
    data = io.BytesIO()
    book.save(data)
    return data.getvalue()


def _period(start_day, end_day):
    start = datetime.combine(start_day, time.min, UTC)
    return start, datetime.combine(end_day, time.min, UTC) + timedelta(days=1)


def _count(model, instance_id, start, end, divisions=()) -> int:
    if model is PurchaseAnalysis:
        return analyses.count(instance_id, divisions, start, end)
    table = model.__table__
    return db.session.scalar(
        select(func.count()).where(
            table.c.instance_id == instance_id,
            table.c.created_at >= start,
            table.c.created_at < end,
        )
    )


def run_export(run_id: int) -> str:
    """Job: write a large report into its ExportRun row, with progress on the way.

    Idempotent: a run found "running" was cut off (its worker died); it is written again from
    the start, since nothing of it is kept before the end."""
    run = run_to_work_on(ExportRun, run_id)
    if run is None:
        return "skipped"
    run.status = "running"
    db.session.commit()
    with failing_run(ExportRun, run_id):
        _title, model, columns = REPORTS[run.report]
        start, end = _period(run.start, run.end)
        user = db.session.get(User, run.user_id) if run.user_id else None
        divisions = [d.id for d in _snapshot(user, run.instance_id).divisions] if user else []
        with force_locale(babel_name(run.language)):
            titles = {state_id: str(state.title) for state_id, state in BY_ID.items()}
            headers = _headers(model, columns)
        run.total = _count(model, run.instance_id, start, end, divisions)
        db.session.commit()
        rows = []
        for chunk_start in range(0, max(run.total, 1), EXPORT_CHUNK):
            with force_locale(babel_name(run.language)):
                chunk = _rows(
                    model, columns, start, end, run.instance_id, titles, chunk_start,
                    EXPORT_CHUNK, divisions,
                )  # fmt: skip
            rows += chunk
            run.processed = min(run.total, len(rows))
            db.session.commit()
        name = f"{run.report}-{run.start}-{run.end}"
        run.content = (
            _xlsx_bytes(run.report, headers, rows)
            if run.format == "xlsx"
            else _csv_bytes(headers, rows)
        )
        run.status, run.finished_at = "done", utcnow()
        db.session.commit()
        return name


def _snapshot(user, instance_id):
    """What the run's user may see in its instance, as a request's viewer would (a job has none)."""
    instance = db.session.get(Instance, instance_id)
    return build_snapshot(user, instance, frozenset(user.all_roles()))


def _queue(v, form) -> ExportRun:
    run = ExportRun(
        user_id=current_user.id, report=form.report.data, start=form.start.data, end=form.end.data,
        format=form.format.data, language=current_locale(), status="queued",
    )  # fmt: skip
    db.session.add(run)
    db.session.flush()
    if current_app.config["REDIS_URL"] or current_app.testing:
        jobs.enqueue("app.admin.reports:run_export", run.id)
        db.session.commit()
    else:
        db.session.commit()

        _run_in_thread(current_app._get_current_object(), run.id, "app.admin.reports:run_export")
    return run


def _export(run_id: int) -> ExportRun:
    run = db.session.scalars(select(ExportRun).where(ExportRun.id == run_id)).first()
    if run is None or run.user_id != current_user.id:
        abort(404)
    return run


def show_export(run_id: int):
    guard(PATH)
    run = _export(run_id)
    state = {"status": run.status, "total": run.total, "processed": run.processed,
             "percent": 100 if run.status == "done" else int(run.processed * 100 / run.total) if run.total else 0}  # fmt: skip
    if request.args.get("progress"):
        response = jsonify(state)
        response.headers["Cache-Control"] = "no-store"
        return response
    return render_page(
        PATH, "export_run.html", run=run, state=state, subpage=str(REPORTS[run.report][0])
    )


def download_export(run_id: int):
    guard(PATH)
    run = _export(run_id)
    if run.status != "done" or run.content is None:
        abort(404)
    name = f"{run.report}-{run.start}-{run.end}.{run.format}"
    mimetype = (
        "text/csv" if run.format == "csv"
        else "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    )  # fmt: skip
    return Response(
        run.content,
        mimetype=mimetype,
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


def view():
    v = guard(PATH)
    form = ReportForm(request.args, meta={"csrf": False})
    form.report.choices = [(key, str(title)) for key, (title, *_rest) in REPORTS.items()]
    form.format.choices = [("csv", "CSV"), ("xlsx", "XLSX")]
    if not any(name in request.args for name in ("report", "start", "end", "format")):
        # Opened from the menu (perhaps with ?lang=): the empty form, no errors yet.
        return render_page(PATH, "reports.html", form=form)
    if not form.validate():
        return render_page(PATH, "reports.html", 422, form=form)
    _title, model, columns = REPORTS[form.report.data]
    start, end = _period(form.start.data, form.end.data)
    audit.record(
        f"admin:{PATH}:0:export",
        report=form.report.data,
        start=str(form.start.data),
        end=str(form.end.data),
    )
    divisions = [d.id for d in v.visible_divisions]
    if _count(model, v.instance.id, start, end, divisions) > JOB_THRESHOLD:
        run = _queue(v, form)
        return redirect(f"{URL}/exports/{run.id}")
    db.session.commit()
    name = f"{form.report.data}-{form.start.data}-{form.end.data}"
    titles = {state_id: str(state.title) for state_id, state in BY_ID.items()}
    rows = _rows(model, columns, start, end, v.instance.id, titles, divisions=divisions)
    if form.format.data == "xlsx":
        return Response(
            _xlsx_bytes(form.report.data, _headers(model, columns), rows),
            mimetype="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            headers={"Content-Disposition": f'attachment; filename="{name}.xlsx"'},
        )
    return Response(
        csv_chunks(_headers(model, columns), rows),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{name}.csv"'},
    )
