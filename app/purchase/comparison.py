"""What a purchase analysis compares with: the model's sales over the instance's own sold
vehicles (days to sell, its class, prices) and the current inventory of the model."""

from datetime import UTC, datetime
from decimal import Decimal

from flask_babel import lazy_gettext as _l
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from app.core.models import utcnow
from app.core.workdays import active_counter
from app.extensions import db
from app.preparation.models import ItemStateEvent, PreparationItem

SOLD = 7
IN_STOCK = (2, 3, 4, 5, 6)
VEHICLE_MODULE = "begcare"  # analyses are of used vehicles: they compare with begcare's sales
KM_PER_MILE = Decimal("1.609344")
CLASSES = (  # (highest average sold days, class, name); the last is open-ended
    (30, "A", _l("Fast seller")),
    (60, "B", _l("Normal seller")),
    (90, "C", _l("Slow seller")),
    (None, "D", _l("Very slow seller")),
)


def parse_model_id(value: str | None) -> tuple[str, str] | None:
    """'brand|model' (docs/decisions.md) -> (brand, model) in lower case, or None."""
    if not value or "|" not in value:
        return None
    brand, _sep, model = value.partition("|")
    brand, model = " ".join(brand.split()).lower(), " ".join(model.split()).lower()
    return (brand, model) if brand and model else None


def _model_filter(brand: str, model: str):
    return (
        func.lower(PreparationItem.brand) == brand,
        func.lower(PreparationItem.model) == model,
    )


def mileage_in(km: int | None, unit: str) -> int | None:
    """Mileage stored in kilometres, in the unit asked for (km or mi)."""
    if km is None:
        return None
    if unit == "mi":
        return int((Decimal(km) / KM_PER_MILE).quantize(Decimal(1)))
    return km


def _avg(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return round(sum(values) / len(values), 2) if values else None


def classify(average_days: float | None) -> dict | None:
    if average_days is None:
        return None
    for high, cls, name in CLASSES:
        if high is None or average_days <= high:
            return {"class": cls, "name": str(name)}
    return None  # pragma: no cover - the last class is open-ended


def model_analysis(model_key: tuple[str, str], division_ids: list[int], milage_unit="km") -> dict:
    """The instance's own sold vehicles of one model in these divisions, sold first first.

    Each vehicle carries data.atSale: its own sold date and sales price, and the running
    averages (PAM, gross margin, days to sale) of every vehicle of the model sold up to then."""
    brand, model = model_key
    sold = (
        select(ItemStateEvent.item_id, func.min(ItemStateEvent.created_at).label("sold_at"))
        .where(ItemStateEvent.to_state == SOLD)
        .group_by(ItemStateEvent.item_id)
        .subquery()
    )
    first = ItemStateEvent.__table__.alias("first_event")
    rows = db.session.execute(
        select(PreparationItem, sold.c.sold_at, first.c.created_at)
        .join(sold, sold.c.item_id == PreparationItem.id)
        .outerjoin(first, (first.c.item_id == PreparationItem.id) & first.c.from_state.is_(None))
        .where(
            PreparationItem.module == VEHICLE_MODULE,
            PreparationItem.division_id.in_(division_ids),
            *_model_filter(brand, model),
        )
        .options(selectinload(PreparationItem.division))
        .order_by(sold.c.sold_at, PreparationItem.id)
    ).all()
    vehicles, pams, margins, days = [], [], [], []
    count_days = active_counter()
    for item, sold_at, entered_at in rows:
        sold_at = _aware(sold_at)
        entered_at = _aware(entered_at) or item.created_at
        stock_days = count_days(entered_at, sold_at, item.division_id)
        price = float(item.sales_price) if item.sales_price is not None else None
        margin = (
            float(item.sales_price - item.purchase_price)
            if item.sales_price is not None and item.purchase_price is not None
            else None
        )
        pam = round(margin / price * 100, 2) if margin is not None and price else None
        pams.append(pam)
        margins.append(margin)
        days.append(stock_days)
        vehicles.append(
            {
                "id": item.id,
                "regno": item.regno,
                "brand": item.brand,
                "model": item.model,
                "milage": mileage_in(item.mileage, milage_unit),
                "divisionName": item.division.name,
                "salesPrice": price,
                "stockDays": stock_days,
                "data": {
                    "atSale": {
                        "soldAt": sold_at.isoformat(),
                        "salesPrice": price,
                        "averagePAM": _avg(pams),
                        "averageGrossMargin": _avg(margins),
                        "averageSoldDays": _avg(days),
                    }
                },
            }
        )
    return {
        "vehicles": vehicles,
        "soldCount": len(vehicles),
        "classification": classify(_avg(days)),
    }


def _aware(value):
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value


def current_inventory(
    model_key: tuple[str, str], division_ids: list[int], page: int, per_page: int, unit="km"
) -> tuple[list[dict], int]:
    """Vehicles of the model in stock (incoming to showroom) in these divisions, one page."""
    brand, model = model_key
    where = (
        PreparationItem.module == VEHICLE_MODULE,
        PreparationItem.state.in_(IN_STOCK),
        PreparationItem.division_id.in_(division_ids),
        *_model_filter(brand, model),
    )
    total = db.session.scalar(select(func.count()).select_from(PreparationItem).where(*where))
    first = ItemStateEvent.__table__.alias("first_event")
    rows = db.session.execute(
        select(PreparationItem, first.c.created_at)
        .outerjoin(first, (first.c.item_id == PreparationItem.id) & first.c.from_state.is_(None))
        .where(*where)
        .options(selectinload(PreparationItem.division))
        .order_by(PreparationItem.id)
        .limit(per_page)
        .offset((page - 1) * per_page)
    ).all()
    now, count_days = utcnow(), active_counter()
    members = [
        {
            "@id": f"/api/preparation-items/{item.id}",
            "@type": "PreparationItem",
            "id": item.id,
            "regno": item.regno,
            "brand": item.brand,
            "model": item.model,
            "fullModelName": item.full_model_name,
            "modelYear": item.model_year,
            "milage": mileage_in(item.mileage, unit),
            "salesPrice": float(item.sales_price) if item.sales_price is not None else None,
            "state": item.state,
            "stockDays": count_days(_aware(entered) or item.created_at, now, item.division_id),
            "divisionName": item.division.name,
        }
        for item, entered in rows
    ]
    return members, total or 0
