"""admin/general/reports: CSV or XLSX exports of the instance's vehicles and adverts for a
period. CSV streams row by row, so even a large export starts at once and holds little memory;
XLSX is written in openpyxl's write-only mode."""

import csv
import io
from datetime import UTC, datetime, time, timedelta

from flask import Response, render_template, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from sqlalchemy import select
from wtforms import DateField, SelectField
from wtforms.validators import InputRequired

from app.admin.crud import guard, page_title
from app.core import audit
from app.core.messages import KEYS
from app.extensions import db
from app.market.models import Advert
from app.preparation.models import PreparationItem
from app.preparation.states import BY_ID

PATH = "general/reports"
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
}  # fmt: skip


class ReportForm(FlaskForm):
    report = SelectField(_l("Report"))
    start = DateField(_l("From"), validators=[InputRequired(KEYS["FIELD_REQUIRED"])])
    end = DateField(_l("To"), validators=[InputRequired(KEYS["FIELD_REQUIRED"])])
    format = SelectField(_l("Format"))

    def validate_end(self, field) -> None:
        from wtforms import ValidationError

        if self.start.data and field.data and field.data < self.start.data:
            raise ValidationError(_("The end date must not be before the start date."))


def _rows(model, columns, start, end, instance_id, state_titles) -> list[list]:
    """The report's rows, read in the request (the CSV is written out after it) with a Core
    statement, so the instance filter is explicit."""
    table = model.__table__
    stmt = (
        select(*(table.c[name] for name in columns))
        .where(
            table.c.instance_id == instance_id,
            table.c.created_at >= start,
            table.c.created_at < end,
        )
        .order_by(table.c.id)
    )
    state_index = columns.index("state") if model is PreparationItem else None
    rows = []
    for row in db.session.execute(stmt):
        values = ["" if v is None else v for v in row]
        for i, value in enumerate(values):
            if isinstance(value, datetime):
                values[i] = value.strftime("%Y-%m-%d %H:%M")
        if state_index is not None:
            values[state_index] = state_titles.get(values[state_index], values[state_index])
        rows.append(values)
    return rows


def view():
    v = guard(PATH)
    form = ReportForm(request.args, meta={"csrf": False})
    form.report.choices = [(key, str(title)) for key, (title, *_rest) in REPORTS.items()]
    form.format.choices = [("csv", "CSV"), ("xlsx", "XLSX")]
    if not request.args:
        return render_template(
            "admin/reports.html", screen_title=page_title(PATH), form=form, list_url=URL
        )
    if not form.validate():
        return render_template(
            "admin/reports.html", screen_title=page_title(PATH), form=form, list_url=URL
        ), 422
    _title, model, columns = REPORTS[form.report.data]
    start = datetime.combine(form.start.data, time.min, UTC)
    end = datetime.combine(form.end.data, time.min, UTC) + timedelta(days=1)
    audit.record(
        f"admin:{PATH}:0:export",
        report=form.report.data,
        start=str(form.start.data),
        end=str(form.end.data),
    )
    db.session.commit()
    name = f"{form.report.data}-{form.start.data}-{form.end.data}"
    titles = {state_id: str(state.title) for state_id, state in BY_ID.items()}
    rows = _rows(model, columns, start, end, v.instance.id, titles)
    if form.format.data == "xlsx":
        from openpyxl import Workbook

        book = Workbook(write_only=True)
        sheet = book.create_sheet(form.report.data)
        sheet.append(list(columns))
        for count, values in enumerate(rows):
            if count >= XLSX_MAX:
                break
            sheet.append([str(v) if not isinstance(v, int | float | str) else v for v in values])
        data = io.BytesIO()
        book.save(data)
        return Response(
            data.getvalue(),
            mimetype="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            headers={"Content-Disposition": f'attachment; filename="{name}.xlsx"'},
        )

    def generate():
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter=";")
        writer.writerow(columns)
        for values in rows:
            writer.writerow(values)
            if buffer.tell() > 64_000:
                yield buffer.getvalue()
                buffer.seek(0)
                buffer.truncate()
        yield buffer.getvalue()

    return Response(
        generate(),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{name}.csv"'},
    )
