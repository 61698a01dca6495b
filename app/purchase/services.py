"""Purchase-analysis rules on the database: finding an analysis the viewer may see, comments,
valuations, the calculation, approval and the step into begcare's incoming list. What an
analysis compares with (the model's sales, the inventory) is app.purchase.comparison.

Services only flush; the views commit."""

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from flask import abort
from flask_babel import gettext as _
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app.auth.viewer import viewer
from app.core import audit, file_access
from app.core.localized import for_reader
from app.core.messages import KeyedText as _k
from app.core.models import Instance, utcnow
from app.extensions import db
from app.preparation import files
from app.preparation.items import ItemData, create_item
from app.preparation.models import FileObject, PreparationItem
from app.purchase.comparison import VEHICLE_MODULE
from app.purchase.models import (
    Calculator,
    PurchaseAnalysis,
    PurchaseComment,
    PurchaseCommentImage,
    PurchaseInputImage,
    PurchaseValuation,
)
from app.purchase.rules import CalculationError, calculate
from app.quicktest.services import finished_tests_of_regno

# The spec's message keys of these screens (spec 02 section 8), translated in every catalogue.
KEYS = {
    "NO_MODEL_ANALYSIS_DATA": _k("NO_MODEL_ANALYSIS_DATA"),
    "NO_MATCHING_VEHICLES_COULD_BE_FOUND": _k("NO_MATCHING_VEHICLES_COULD_BE_FOUND"),
}
MODULE = "purchaseAnalysis"
# The instance's module option that lets one approve one's own analysis (off by default).
OWN_APPROVAL = "allowOwnApproval"
CONTENT_MAX = 5000
SOURCE_MAX = 100


MAX_ID = 2**31 - 1  # the id columns are 32-bit integers


def digits(text: str) -> bool:
    """Only the digits 0-9 (str.isdigit also takes '²', which int() refuses)."""
    return text.isascii() and text.isdigit()


def as_id(raw) -> int | None:
    """A form or query value as a row id, or None when it cannot be one."""
    text = str(raw if raw is not None else "").strip()
    return int(text) if digits(text) and 0 < int(text) <= MAX_ID else None


def visible_division_ids() -> list[int]:
    return [d.id for d in viewer().visible_divisions]


def require_module() -> None:
    if MODULE not in viewer().modules:
        abort(404)


def analysis_or_404(analysis_id: int) -> PurchaseAnalysis:
    """An analysis of the active instance in a division the viewer may see; else 404."""
    require_module()
    if as_id(analysis_id) is None:
        abort(404)
    found = db.session.scalars(
        select(PurchaseAnalysis)
        .where(
            PurchaseAnalysis.id == analysis_id,
            PurchaseAnalysis.division_id.in_(visible_division_ids()),
        )
        .options(
            selectinload(PurchaseAnalysis.valuations),
            selectinload(PurchaseAnalysis.comments)
            .selectinload(PurchaseComment.images)
            .selectinload(PurchaseCommentImage.file),
        )
    ).first()
    if found is None:
        abort(404)
    return found


# --- the analysis and its parts ------------------------------------------------------------


def previous_analyses(analysis: PurchaseAnalysis) -> list[PurchaseAnalysis]:
    """Earlier analyses of the same vehicle (regno) in divisions the viewer may see."""
    return db.session.scalars(
        select(PurchaseAnalysis)
        .where(
            PurchaseAnalysis.regno == analysis.regno,
            PurchaseAnalysis.id != analysis.id,
            PurchaseAnalysis.created_at <= analysis.created_at,
            PurchaseAnalysis.division_id.in_(visible_division_ids()),
        )
        .order_by(PurchaseAnalysis.created_at.desc())
    ).all()


def previous_tests(analysis: PurchaseAnalysis) -> list[dict]:
    """The finished quick tests of the same vehicle in the viewer's divisions, newest first."""
    return [
        {
            "id": test.id,
            "createdAt": test.reported_at.isoformat(),
            "division": test.division.name,
            "source": for_reader(test.storage.title_texts, test.storage.title),
            "sourceAttributes": {
                "identifier": test.identifier,
                "group": for_reader(test.storage.group_texts, test.storage.group),
            },
        }
        for test in finished_tests_of_regno(analysis.regno, visible_division_ids())
    ]


class PurchaseError(ValueError):
    """A refused value: a translated message per field."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(errors.values()))
        self.errors = errors


def _money(raw, field: str, errors: dict) -> Decimal | None:
    raw = (raw or "").strip().replace(" ", "").replace("\u00a0", "").replace(",", ".")
    if not raw:
        return None
    try:
        value = Decimal(raw)
    except ArithmeticError:
        errors[field] = _("Enter an amount.")
        return None
    if not value.is_finite() or value < 0 or value >= Decimal("1e10"):
        errors[field] = _("Enter an amount.")
        return None
    return value.quantize(Decimal("0.01"))


def add_valuation(analysis: PurchaseAnalysis, form: dict, user) -> PurchaseValuation:
    errors: dict[str, str] = {}
    price_in = _money(form.get("price_in"), "price_in", errors)
    price_out = _money(form.get("price_out"), "price_out", errors)
    source = " ".join((form.get("valuation_source") or "").split())
    if price_in is None and price_out is None and not errors:
        errors["price_in"] = _("Enter the price in or the price out.")
    if len(source) > SOURCE_MAX:
        errors["valuation_source"] = _("At most %(max)s characters.", max=SOURCE_MAX)
    if errors:
        raise PurchaseError(errors)
    valuation = PurchaseValuation(
        analysis_id=analysis.id, price_in=price_in, price_out=price_out, source=source,
        user_id=user.id, division_id=analysis.division_id, data={"inputs": dict(analysis.inputs)},
    )  # fmt: skip
    db.session.add(valuation)
    db.session.flush()
    audit.record("purchase.valuation.added", user=user, analysis_id=analysis.id)
    return valuation


PRICE_FIELDS = ("priceMin", "priceMax", "priceAvg", "pricePrediction")
BASIC_TEXT = {"chassis": 60, "segment": 60}


def set_market_valuation(analysis: PurchaseAnalysis, form, user) -> None:
    """The analysis' valuation (lowest, highest and average price, prediction, source) and its
    basic knowledge (annual tax and malus, chassis, segment, equipment, trim packages)."""
    errors: dict[str, str] = {}
    valuation = {}
    for name in PRICE_FIELDS:
        value = _money(form.get(name), name, errors)
        if value is not None:
            valuation[name] = float(value)
    if (
        "priceMin" in valuation
        and "priceMax" in valuation
        and valuation["priceMin"] > valuation["priceMax"]
    ):
        errors["priceMax"] = _("The highest price cannot be below the lowest.")
    source = " ".join((form.get("source") or "").split())
    if len(source) > SOURCE_MAX:
        errors["source"] = _("At most %(max)s characters.", max=SOURCE_MAX)
    elif source:
        valuation["source"] = source
    basic: dict = {}
    for name in ("annualTax", "annualMalus"):
        value = _money(form.get(name), name, errors)
        if value is not None:
            basic[name] = float(value)
    for name, limit in BASIC_TEXT.items():
        value = " ".join((form.get(name) or "").split())
        if len(value) > limit:
            errors[name] = _("At most %(max)s characters.", max=limit)
        elif value:
            basic[name] = value
    for name in ("equipment", "trimPackages"):
        values = [" ".join(v.split()) for v in (form.get(name) or "").split(",") if v.strip()]
        if len(values) > 50 or any(len(v) > 80 for v in values):
            errors[name] = _("At most %(max)s characters.", max=80)
        elif values:
            basic[name] = values
    if errors:
        raise PurchaseError(errors)
    analysis.valuation, analysis.basic = valuation, basic
    analysis.modified_at = utcnow()
    audit.record("purchase.market_valuation", user=user, analysis_id=analysis.id)


def add_prediction(analysis: PurchaseAnalysis, form, user) -> None:
    """A price forecast: a date, a price and its source, kept in date order."""
    errors: dict[str, str] = {}
    try:
        when = date.fromisoformat((form.get("prediction_date") or "").strip()).isoformat()
    except ValueError:
        errors["prediction_date"] = _("Enter a date as yyyy-mm-dd.")
    price = _money(form.get("prediction_price"), "prediction_price", errors)
    if price is None and "prediction_price" not in errors:
        errors["prediction_price"] = _("Enter an amount.")
    source = " ".join((form.get("prediction_source") or "").split())
    if len(source) > SOURCE_MAX:
        errors["prediction_source"] = _("At most %(max)s characters.", max=SOURCE_MAX)
    if len(analysis.price_predictions or []) >= 50:
        errors["prediction_date"] = _("At most %(max)s price forecasts.", max=50)
    if errors:
        raise PurchaseError(errors)
    entries = [
        *(analysis.price_predictions or []),
        {"date": when, "price": float(price), "source": source},
    ]
    analysis.price_predictions = sorted(entries, key=lambda e: e["date"])
    audit.record("purchase.prediction", user=user, analysis_id=analysis.id)


def add_comment(analysis: PurchaseAnalysis, content: str, uploads: list, user) -> PurchaseComment:
    """A comment with optional images, each checked by content (app/preparation/files.py)."""
    content = (content or "").strip()
    if not content and not uploads:
        raise PurchaseError({"content": _("Write a comment or add an image.")})
    if len(content) > CONTENT_MAX:
        raise PurchaseError({"content": _("At most %(max)s characters.", max=CONTENT_MAX)})
    try:
        checked = files.comment_images(uploads)
    except files.UploadError as exc:
        raise PurchaseError({"images": str(exc)}) from None
    comment = PurchaseComment(analysis_id=analysis.id, created_by_id=user.id, content=content)
    db.session.add(comment)
    for data, name in checked:
        comment.images.append(PurchaseCommentImage(file=files.store_file(data, name, user.id)))
    db.session.flush()
    audit.record("purchase.comment.added", user=user, analysis_id=analysis.id)
    return comment


def comment_image_owner(file_object_id: int) -> PurchaseAnalysis | None:
    """The analysis whose comment holds this file (the owner for file read rights)."""
    return db.session.scalars(
        select(PurchaseAnalysis)
        .join(PurchaseComment, PurchaseComment.analysis_id == PurchaseAnalysis.id)
        .join(PurchaseCommentImage, PurchaseCommentImage.comment_id == PurchaseComment.id)
        .where(PurchaseCommentImage.file_object_id == file_object_id)
    ).first()


def set_input_image(analysis: PurchaseAnalysis, field_id: str, file: FileObject) -> None:
    """An image field's upload: the field's value in the inputs (the file named for the pages)
    and the owner row that makes the file the analysis' own (its read rights: can_read_file)."""
    db.session.flush()  # the file's id and uuid
    analysis.inputs = {**(analysis.inputs or {}), field_id: {"uuid": file.uuid, "name": file.name}}
    owner = db.session.scalars(
        select(PurchaseInputImage).where(
            PurchaseInputImage.analysis_id == analysis.id,
            PurchaseInputImage.field_id == int(field_id),
        )
    ).first()
    if owner is None:
        owner = PurchaseInputImage(analysis_id=analysis.id, field_id=int(field_id))
        db.session.add(owner)
    owner.file_object_id = file.id
    db.session.flush()


def input_image_owner(file_object_id: int) -> PurchaseAnalysis | None:
    """The analysis whose image field holds this file (its owner row, never the inputs' text:
    a uuid typed into a text field names a file, it does not own one)."""
    return db.session.scalars(
        select(PurchaseAnalysis)
        .join(PurchaseInputImage, PurchaseInputImage.analysis_id == PurchaseAnalysis.id)
        .where(PurchaseInputImage.file_object_id == file_object_id)
    ).first()


@file_access.rule("purchase.image")
def can_read_file(file_object_id: int) -> bool | None:
    """A comment's image or an image field's upload: readable by who may see its analysis (the
    module and the analysis' division); None when the file is no purchase-analysis image."""
    analysis = comment_image_owner(file_object_id) or input_image_owner(file_object_id)
    if analysis is None:
        return None
    return MODULE in viewer().modules and analysis.division_id in visible_division_ids()


def run_calculation(analysis: PurchaseAnalysis, calculator_id, input_value, user) -> dict:
    """Calculate with one of the instance's calculators and keep it as the latest calculation."""
    calculator = (
        db.session.scalars(select(Calculator).where(Calculator.id == calculator_id)).first()
        if calculator_id
        else None
    )
    if calculator is None or calculator.instance_id != analysis.instance_id:
        raise PurchaseError({"calculator": _("Choose a calculator.")})

    raw = (str(input_value or "")).strip().replace(" ", "").replace(",", ".")
    try:
        result = calculate(raw, calculator.rows)
    except CalculationError:
        raise PurchaseError({"input_value": _("Enter an amount.")}) from None
    result.update(
        calculatorId=calculator.id,
        title=calculator.title,
        presetDescription=calculator.preset_description,
        presetPercent=float(calculator.preset_percent or 0),
        calculatedAt=utcnow().isoformat(),
    )
    analysis.latest_calculation = result
    audit.record("purchase.calculation", user=user, analysis_id=analysis.id)
    return result


def own_approval_allowed(instance_id: int) -> bool:
    """Whether the instance lets one approve an analysis one made or asked approval for (its
    configuration, admin/general/configuration; off by default: a second person approves)."""
    instance = db.session.get(Instance, instance_id)
    return instance is not None and instance.module_option(MODULE, OWN_APPROVAL, False)


def may_approve(analysis: PurchaseAnalysis, user) -> bool:
    """Whether `user` (who may decide) may approve it: not their own analysis (made or asked
    approval for by them) unless the instance's configuration allows it."""
    own = user.id in (analysis.created_by_id, analysis.requested_by_id)
    return not own or own_approval_allowed(analysis.instance_id)


def set_status(analysis: PurchaseAnalysis, status: str, user) -> None:
    """Move the analysis on: requested by anyone, approved or rejected by who may decide (the
    view checks the role), approved only by a second person (may_approve)."""
    allowed = {
        "requested": ("draft", "rejected"),
        "approved": ("requested", "draft"),
        "rejected": ("requested",),
    }
    if analysis.status not in allowed.get(status, ()):
        raise PurchaseError({"status": _("This analysis cannot be changed that way now.")})
    if status == "approved" and not may_approve(analysis, user):
        raise PurchaseError(
            {"status": _("Another person must approve an analysis you made or asked approval for.")}
        )
    analysis.status = status
    if status == "requested":
        analysis.requested_by_id = user.id
    if status in ("approved", "rejected"):
        analysis.decided_by_id, analysis.decided_at = user.id, utcnow()
    audit.record("purchase.status", user=user, analysis_id=analysis.id, status=status)


def to_incoming(analysis: PurchaseAnalysis, user) -> PreparationItem:
    """An approved analysis becomes a vehicle in begcare's incoming list, through
    preparation's own add-vehicle service (its checks: regno, duplicates, division)."""
    if analysis.status != "approved":
        raise PurchaseError({"status": _("Only an approved analysis can be bought in.")})
    if analysis.item_id is not None:
        raise PurchaseError({"status": _("This vehicle is already in the incoming list.")})
    valuation = analysis.valuations[-1] if analysis.valuations else None
    data = ItemData(
        division_id=analysis.division_id, regno=analysis.regno, brand=analysis.brand,
        model=analysis.model, model_series=analysis.model_series, model_year=analysis.model_year,
        fuel_type=analysis.fuel_type, color=analysis.color, mileage=analysis.mileage,
        purchase_price=valuation.price_in if valuation else None,
        sales_price=valuation.price_out if valuation else None,
    )  # fmt: skip
    item = create_item(VEHICLE_MODULE, data, user, visible_division_ids())
    analysis.item_id = item.id
    audit.record("purchase.bought_in", user=user, analysis_id=analysis.id, item_id=item.id)
    return item


def identifier_for(analysis_id: int, when: datetime) -> str:
    """The analysis' identifier: its year and its id, so two saved at once never share one."""
    return f"PA-{when.year}-{analysis_id:04d}"


@dataclass
class Summary:
    mileage: int | None
    milage_unit: str
    currency: str
    locale: str


def latest_calculation(analysis: PurchaseAnalysis) -> dict | None:
    """The analysis's last calculation as the reader reads it: its calculator's title and rows'
    titles in their language (a calculator since deleted: as written then)."""
    result = analysis.latest_calculation
    calculator = db.session.get(Calculator, result.get("calculatorId") or 0) if result else None
    if calculator is None or calculator.instance_id != analysis.instance_id:
        return result
    return calculator.shown_calculation(result)
