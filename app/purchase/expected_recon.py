"""The purchase analysis's "expected reconditioning" (issue 33, item 3): the average actual
reconditioning cost of the instance's own finished vehicles of the same model, of a similar
age and mileage (a band around the analysed car's), with how many vehicles it rests on. When
fewer than MIN_VEHICLES fall in the band, the model's finished vehicles of any age and mileage
are taken and the basis says so. The buyer may override it; the override (amount, who, when)
is kept in `analysis.basic["expectedRecon"]` beside the computed figure, which stays shown. Once
the analysed car is in preparation (`analysis.item_id`), its own estimate and actual are shown
against it."""

from decimal import Decimal

from flask_babel import lazy_gettext as _l
from sqlalchemy import case, func, select

from app.core.models import utcnow
from app.extensions import db
from app.preparation.models import PreparationItem
from app.preparation.recon import AMOUNT_MAX, ReconError, parse_decimal
from app.preparation.recon_models import ACTUAL, ESTIMATE, ReconLine
from app.purchase.services import PurchaseError

FINISHED = (6, 7, 8, 9)  # showroom onward: the reconditioning is over
YEARS_BAND = 2  # model years either side
MILEAGE_BAND = 30_000  # kilometres either side
MIN_VEHICLES = 3
KEY = "expectedRecon"


def _average(analysis, banded: bool) -> tuple[Decimal | None, int]:
    """The average actual cost of the finished vehicles of the analysis's model (one query)."""
    conditions = [
        PreparationItem.module == "begcare",
        PreparationItem.state.in_(FINISHED),
        func.lower(PreparationItem.brand) == (analysis.brand or "").lower(),
        func.lower(PreparationItem.model) == (analysis.model or "").lower(),
    ]
    if banded and analysis.model_year is not None:
        conditions.append(
            PreparationItem.model_year.between(
                analysis.model_year - YEARS_BAND, analysis.model_year + YEARS_BAND
            )
        )
    if banded and analysis.mileage is not None:
        conditions.append(
            PreparationItem.mileage.between(
                analysis.mileage - MILEAGE_BAND, analysis.mileage + MILEAGE_BAND
            )
        )
    per_item = (
        select(func.sum(ReconLine.amount).label("actual"))
        .join(PreparationItem, PreparationItem.id == ReconLine.item_id)
        .where(ReconLine.phase == ACTUAL, *conditions)
        .group_by(ReconLine.item_id)
        .subquery()
    )
    average, count = db.session.execute(
        select(func.avg(per_item.c.actual), func.count()).select_from(per_item)
    ).one()
    return (Decimal(average).quantize(Decimal(1)) if average is not None else None), count


def expected(analysis) -> dict:
    """The computed figure, its basis and count, the override and, once the car is in
    preparation, its own estimate and actual."""
    amount, count = _average(analysis, banded=True)
    basis = "band"
    if analysis.model_year is None and analysis.mileage is None:
        basis = "any"  # no band to draw: the model's vehicles of every age and mileage
    elif count < MIN_VEHICLES:
        wide, wide_count = _average(analysis, banded=False)
        if wide_count > count:
            amount, count, basis = wide, wide_count, "model"
    # Which of the car's figures the band is drawn around: both, only one, or none given.
    band = {(True, True): "both", (True, False): "year", (False, True): "mileage"}.get(
        (analysis.model_year is not None, analysis.mileage is not None)
    )
    override = (analysis.basic or {}).get(KEY) or None
    own = None
    if analysis.item_id is not None:
        estimate, actual = db.session.execute(
            select(
                func.sum(case((ReconLine.phase == ESTIMATE, ReconLine.amount), else_=0)),
                func.sum(case((ReconLine.phase == ACTUAL, ReconLine.amount), else_=0)),
            ).where(ReconLine.item_id == analysis.item_id)
        ).one()
        if estimate is not None:
            own = {"estimate": Decimal(estimate), "actual": Decimal(actual or 0)}
    return {
        "computed": amount,
        "vehicles": count,
        "basis": basis,
        "band": band,
        "override": Decimal(override["amount"]) if override else None,
        "overrideAt": override.get("at") if override else None,
        "overrideBy": override.get("by") if override else None,
        "value": Decimal(override["amount"]) if override else amount,
        "own": own,
    }


def set_override(analysis, raw: str | None, user) -> None:
    """The buyer's own figure (empty: none, the computed one counts again)."""
    basic = dict(analysis.basic or {})
    if not (raw or "").strip():
        basic.pop(KEY, None)
    else:
        try:
            amount = parse_decimal(raw, "expected_recon", AMOUNT_MAX)
        except ReconError as exc:
            raise PurchaseError({"expected_recon": str(exc)}) from exc
        basic[KEY] = {
            "amount": str(amount),
            "by": user.full_name,
            "at": utcnow().isoformat(),
        }
    analysis.basic = basic


# What the figure rests on, by expected()'s basis and band: drawn within the car's band ("band"),
# from the whole model as the car gives neither figure ("any"), or from the whole model as the
# band held too few vehicles ("model"); the band names which of its figures the car gives.
_BASIS_TEXTS = {
    ("band", "year"): _l(
        "Average actual reconditioning cost of %(num)s finished vehicles of this model, "
        "within %(years)s model years, of any mileage (this car's is not given)."
    ),
    ("band", "mileage"): _l(
        "Average actual reconditioning cost of %(num)s finished vehicles of this model, "
        "within %(km)s km, of any model year (this car's is not given)."
    ),
    ("band", "both"): _l(
        "Average actual reconditioning cost of %(num)s finished vehicles of this model, "
        "within %(years)s model years and %(km)s km."
    ),
    ("any", "both"): _l(
        "Average actual reconditioning cost of %(num)s finished vehicles of this model, "
        "of any age and mileage (this car's are not given)."
    ),
    ("model", "year"): _l(
        "Average actual reconditioning cost of %(num)s finished vehicles of this model "
        "(too few of a similar model year)."
    ),
    ("model", "mileage"): _l(
        "Average actual reconditioning cost of %(num)s finished vehicles of this model "
        "(too few of a similar mileage)."
    ),
    ("model", "both"): _l(
        "Average actual reconditioning cost of %(num)s finished vehicles of this model "
        "(too few of a similar age and mileage)."
    ),
}


def basis_text(found: dict) -> str:
    """What the figure rests on, naming exactly the band it was drawn in: the car's model year
    and mileage, or only the one of them that is given."""
    basis, band = found["basis"], found.get("band", "both")
    band = band if band in ("year", "mileage") and basis != "any" else "both"
    km = f"{MILEAGE_BAND:,}".replace(",", " ")
    return str(_BASIS_TEXTS[basis, band]) % {
        "num": found["vehicles"],
        "years": YEARS_BAND,
        "km": km,
    }
