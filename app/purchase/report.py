"""The purchase analyses as a report (admin/general/reports, issue 31 item 5): one row per
analysis of the instance in the divisions given, in readable columns with translated headers;
amounts are numbers. app.admin.reports writes them as CSV or XLSX, in the request or a job."""

from decimal import Decimal

from flask_babel import lazy_gettext as _l
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from app.core.times import moment
from app.extensions import db
from app.purchase import expected_recon
from app.purchase.models import STATUS_TITLES, PurchaseAnalysis

HEADERS = (
    _l("Identifier"), _l("Created"), _l("Division"), _l("Brand"), _l("Model"), _l("Model year"),
    _l("Registration number"), _l("Mileage (km)"), _l("Status"), _l("Priority"), _l("Created by"),
    _l("Lowest valuation"), _l("Highest valuation"), _l("Average valuation"),
    _l("Predicted price"), _l("Valuation source"), _l("Latest price in"),
    _l("Latest price out"), _l("Price sources"), _l("Expected reconditioning"), _l("Decided"),
)  # fmt: skip


def _where(stmt, instance_id, division_ids, start, end):
    return stmt.where(
        PurchaseAnalysis.instance_id == instance_id,
        PurchaseAnalysis.division_id.in_(division_ids),
        PurchaseAnalysis.created_at >= start,
        PurchaseAnalysis.created_at < end,
    )


def count(instance_id, division_ids, start, end) -> int:
    return db.session.scalar(
        _where(select(func.count(PurchaseAnalysis.id)), instance_id, division_ids, start, end)
    )


def _amount(value):
    """A number for the spreadsheet (None: an empty cell)."""
    if value in (None, ""):
        return ""
    try:
        number = Decimal(str(value))
    except ArithmeticError:
        return ""
    return int(number) if number == number.to_integral_value() else float(number)


def rows(instance_id, division_ids, start, end, offset=0, limit=None) -> list[list]:
    """The analyses' rows, oldest first; headers: HEADERS (translated by the caller's locale)."""
    stmt = _where(select(PurchaseAnalysis), instance_id, division_ids, start, end)
    stmt = stmt.options(
        selectinload(PurchaseAnalysis.division),
        selectinload(PurchaseAnalysis.created_by),
        selectinload(PurchaseAnalysis.priority),
        selectinload(PurchaseAnalysis.valuations),
    )
    stmt = stmt.order_by(PurchaseAnalysis.id).offset(offset).limit(limit)
    statuses = {key: str(title) for key, title in STATUS_TITLES.items()}
    result = []
    for a in db.session.scalars(stmt):
        valuation = a.valuation or {}
        latest = a.valuations[-1] if a.valuations else None
        sources = dict.fromkeys(v.source for v in a.valuations if v.source)
        result.append([
            a.identifier, moment(a.created_at), a.division.name, a.brand, a.model,
            a.model_year if a.model_year is not None else "", a.regno,
            a.mileage if a.mileage is not None else "", statuses.get(a.status, a.status),
            a.priority.shown_name if a.priority else "",
            a.created_by.full_name if a.created_by else "",
            _amount(valuation.get("priceMin")), _amount(valuation.get("priceMax")),
            _amount(valuation.get("priceAvg")), _amount(valuation.get("pricePrediction")),
            valuation.get("source") or "",
            _amount(latest.price_in) if latest else "", _amount(latest.price_out) if latest else "",
            ", ".join(sources), _amount(expected_recon.expected(a)["value"]),
            moment(a.decided_at) if a.decided_at else "",
        ])  # fmt: skip
    return result
