"""The purchase analysis print view `pdf-preview/purchase-analysis/{id}` (spec 02 section 2):
print-ready A4 HTML whose script draws the model-analysis chart and makes the PDF in the
browser. Every query parameter is read here; a malformed one falls back to its default."""

import base64
import re
import secrets
from dataclasses import dataclass
from decimal import Decimal

from babel import Locale, UnknownLocaleError
from babel.numbers import format_currency, format_decimal
from flask import current_app, g, make_response, render_template, request
from flask_babel import refresh
from sqlalchemy import select

from app.core.i18n import babel_name, current_locale, to_locale
from app.core.security import content_security_policy
from app.core.times import moment
from app.extensions import db
from app.market.models import ExchangeRate
from app.preparation.models import FileObject
from app.purchase import bp, comparison, expected_recon
from app.purchase import services as svc
from app.purchase.api import full_payload
from app.purchase.comparison import _aware
from app.purchase.models import PurchaseAnalysis, PurchaseInputImage
from app.purchase.rules import axis_suggestions, interval_bar
from app.purchase.services import digits as svc_digits

Y_AXES = ("salesPrice", "averagePAM", "averageGrossMargin")
CONTENTS = ("analysis", "calculation")
UNITS = ("km", "mi")
ITEMS_PER_PAGE, ITEMS_PER_PAGE_MAX = 10, 100
PDF = {"margin": [30, 10, 15, 10], "imageQuality": 0.8, "scale": 1.8}  # mm; spec 02 section 2
_CURRENCY = re.compile(r"^[A-Z]{3}$")


@dataclass
class PrintParams:
    content: str
    divisions: list[int]
    y_axis: str
    language: str
    currency: str
    locale: str  # babel name, e.g. sv_SE
    milage_unit: str
    items_per_page: int


def parse_params(args, analysis: PurchaseAnalysis, visible: list[int]) -> PrintParams:
    """Every query parameter of the print page; malformed ones take their default."""
    country = analysis.division.region.country
    content = args.get("content") if args.get("content") in CONTENTS else "analysis"
    divisions = []
    for part in (args.get("divisions") or "").split(","):
        part = part.strip()
        found = svc.as_id(part)
        if found in visible and found not in divisions:
            divisions.append(found)
    y_axis = args.get("yAxis") if args.get("yAxis") in Y_AXES else "salesPrice"
    language = to_locale(args.get("language")) or current_locale()
    currency = (args.get("currency") or "").strip().upper()
    if not _CURRENCY.match(currency) or not _convertible(country.currency, currency):
        currency = country.currency
    locale = _babel_locale(args.get("locale")) or babel_name(country.locale or language)
    unit = args.get("milageUnit") if args.get("milageUnit") in UNITS else None
    raw = args.get("itemsPerPage") or ""
    per_page = int(raw) if svc_digits(raw) and 1 <= int(raw) <= ITEMS_PER_PAGE_MAX else None
    return PrintParams(
        content=content, divisions=divisions or visible, y_axis=y_axis, language=language,
        currency=currency, locale=locale, milage_unit=unit or country.milage_unit or "km",
        items_per_page=per_page or ITEMS_PER_PAGE,
    )  # fmt: skip


def _babel_locale(value: str | None) -> str | None:
    if not value or not re.fullmatch(r"[A-Za-z]{2,3}([-_][A-Za-z]{2})?", value):
        return None
    try:
        return str(Locale.parse(value.replace("-", "_")))
    except (UnknownLocaleError, ValueError):
        return None


def _rate(source: str, target: str) -> Decimal | None:
    if source == target:
        return Decimal(1)
    direct = db.session.scalar(
        select(ExchangeRate.rate).where(
            ExchangeRate.currency == source, ExchangeRate.to_currency == target
        )
    )
    if direct:
        return Decimal(direct)
    reverse = db.session.scalar(
        select(ExchangeRate.rate).where(
            ExchangeRate.currency == target, ExchangeRate.to_currency == source
        )
    )
    return (Decimal(1) / Decimal(reverse)) if reverse else None


def _convertible(source: str, target: str) -> bool:
    return _rate(source, target) is not None


class Formatter:
    """Numbers, money and dates in the requested locale and currency (amounts are stored in
    the division's currency and converted with the instance's exchange rates)."""

    def __init__(self, locale: str, currency: str, source_currency: str) -> None:
        self.locale, self.currency = locale, currency
        self.rate = _rate(source_currency, currency) or Decimal(1)
        pattern = Locale.parse(locale).currency_formats["standard"].pattern
        self.pattern = pattern.split(";")[0].replace("0.00", "0")

    def convert(self, value) -> Decimal | None:
        if value is None or value == "":
            return None
        try:
            return Decimal(str(value)) * self.rate
        except ArithmeticError:
            return None

    def money(self, value) -> str:
        amount = self.convert(value)
        if amount is None:
            return "–"
        return format_currency(
            amount.quantize(Decimal(1)), self.currency, format=self.pattern, locale=self.locale,
            currency_digits=False,
        )  # fmt: skip

    def number(self, value, digits: int = 0) -> str:
        if value is None or value == "":
            return "–"
        quantum = Decimal(1).scaleb(-digits)
        return format_decimal(
            Decimal(str(value)).quantize(quantum), locale=self.locale,
            format="#,##0" + ("." + "0" * digits if digits else ""),
        )  # fmt: skip


def date(value, with_time: bool = False) -> str:
    """Spec 02 section 9: y-MM-dd, with HH:mm for times."""
    return moment(_aware(value or None), "datetime" if with_time else "date")


def _images(analysis: PurchaseAnalysis) -> list[dict]:
    """Every comment image as a data URL (the PDF is made in the browser from this page)."""
    out = []
    for comment in analysis.comments:
        for image in comment.images:
            data = image.file.small or image.file.data
            kind = "image/jpeg" if image.file.small else image.file.content_type
            out.append(
                {
                    "comment_id": comment.id,
                    "name": image.file.name,
                    "src": f"data:{kind};base64,{base64.b64encode(data).decode()}",
                }
            )
    return out


def _input_images(analysis: PurchaseAnalysis) -> dict[str, str]:
    """Images of image fields by file uuid, as data URLs."""
    found = db.session.scalars(
        select(FileObject)
        .join(PurchaseInputImage, PurchaseInputImage.file_object_id == FileObject.id)
        .where(PurchaseInputImage.analysis_id == analysis.id)
    ).all()  # its own (owner rows), whatever uuid the inputs' text names
    return {
        f.uuid: f"data:image/jpeg;base64,{base64.b64encode(f.small).decode()}"
        for f in found
        if f.small
    }


@bp.get("/pdf-preview/purchase-analysis/<int:analysis_id>")
def pdf_purchase_analysis(analysis_id: int):
    """The print view: login needed, an analysis of another instance or division is a 404."""
    analysis = svc.analysis_or_404(analysis_id)
    params = parse_params(request.args, analysis, svc.visible_division_ids())
    g.locale = params.language
    refresh()
    country = analysis.division.region.country
    fmt = Formatter(params.locale, params.currency, country.currency)
    full = full_payload(analysis, params.milage_unit)
    valuation = full["data"]["completeRequest"]["valuation"]
    bar = interval_bar(
        {
            k: fmt.convert(valuation.get(k))
            for k in ("priceMin", "priceMax", "priceAvg", "pricePrediction")
        }
    )
    model = comparison.model_analysis(
        comparison.parse_model_id(analysis.model_id), params.divisions, params.milage_unit
    )
    series = []
    for vehicle in model["vehicles"]:
        at_sale = vehicle["data"]["atSale"]
        value = at_sale[params.y_axis]
        if params.y_axis != "averagePAM":
            value = fmt.convert(value)
        series.append(
            {"label": date(at_sale["soldAt"]), "value": float(value) if value is not None else None}
        )
    axis = axis_suggestions([p["value"] for p in series])
    inventory, inventory_total = comparison.current_inventory(
        comparison.parse_model_id(analysis.model_id), params.divisions, 1, params.items_per_page,
        params.milage_unit,
    )  # fmt: skip
    y_labels = {
        "salesPrice": "sales_price", "averagePAM": "pam", "averageGrossMargin": "gross_margin",
    }  # fmt: skip
    chart = {
        "labels": [p["label"] for p in series],
        "values": [p["value"] for p in series],
        "axis": axis,
        "yAxis": params.y_axis,
        "locale": params.locale.replace("_", "-"),
        "currency": params.currency if params.y_axis != "averagePAM" else None,
    }
    recon = expected_recon.expected(analysis)
    nonce = secrets.token_urlsafe(16)
    response = make_response(render_template(
        "purchase/print.html", style_nonce=nonce,
        analysis=analysis, full=full, params=params, fmt=fmt, date=date, bar=bar, model=model,
        chart=chart, y_label=y_labels[params.y_axis], inventory=inventory,
        inventory_total=inventory_total, images=_images(analysis),
        input_images=_input_images(analysis), pdf=PDF,
        calculation=svc.latest_calculation(analysis), valuation=valuation,
        basic=analysis.basic or {}, page_script="purchase-print.js",
        recon=recon, recon_basis=expected_recon.basis_text(recon),
    ))  # fmt: skip
    # The page's own stylesheet is inline (self-contained print view): allowed by its nonce.
    csp = content_security_policy(current_app)
    response.headers["Content-Security-Policy"] = csp.replace(
        "style-src 'self'", f"style-src 'self' 'nonce-{nonce}'"
    )
    return response
