"""The print view's exact rules (spec 02 section 2), as pure functions: the price interval bar,
the chart axis, and the calculation. No database, no request."""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

STRIPES = 51  # 0 %, 2 %, ... 100 % of the scale
STEP_PERCENT = 2
SCALE_LOW, SCALE_HIGH = Decimal("0.9"), Decimal("1.1")


@dataclass(frozen=True)
class Stripe:
    percent: int  # position on the scale, 0..100 in 2 % steps
    value: Decimal  # the price at that position
    inside: bool  # between the lowest and the highest price


@dataclass(frozen=True)
class IntervalBar:
    low: Decimal  # scale start: 0.9 x the lowest price
    high: Decimal  # scale end: 1.1 x the highest price
    stripes: list[Stripe]
    markers: dict[str, int]  # name -> percent position (nearest stripe) of each known price


def _decimal(value) -> Decimal | None:
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def interval_bar(prices: dict) -> IntervalBar | None:
    """51 stripes at 2 % steps over a scale from 0.9 x the lowest to 1.1 x the highest of the
    given prices (priceMin, priceMax, priceAvg, pricePrediction: whichever are known). The
    stripes from priceMin to priceMax (or the lowest to the highest) are `inside`; each known
    price gets a marker at its nearest stripe. None when no price is known or all are zero."""
    known = {k: d for k, v in prices.items() if (d := _decimal(v)) is not None and d > 0}
    if not known:
        return None
    lowest, highest = min(known.values()), max(known.values())
    low, high = lowest * SCALE_LOW, highest * SCALE_HIGH
    span = high - low
    band_low = known.get("priceMin", lowest)
    band_high = known.get("priceMax", highest)
    stripes = []
    for n in range(STRIPES):
        percent = n * STEP_PERCENT
        value = low + span * Decimal(percent) / 100
        stripes.append(Stripe(percent, value, band_low <= value <= band_high))
    markers = {}
    for name, value in known.items():
        position = (value - low) / span * 100
        steps = int((position / STEP_PERCENT).quantize(Decimal(1), rounding=ROUND_HALF_UP))
        markers[name] = max(0, min(STRIPES - 1, steps)) * STEP_PERCENT
    return IntervalBar(low, high, stripes, markers)


def axis_suggestions(values: list) -> dict:
    """The model-analysis chart's y axis: suggested maximum 1.5 x the first value; suggested
    minimum the first value / 1.5 when the first value is above 10 (else none)."""
    first = _decimal(values[0]) if values else None
    if first is None:
        return {}
    result = {"suggestedMax": float(first * Decimal("1.5"))}
    if first > 10:
        result["suggestedMin"] = float(first / Decimal("1.5"))
    return result


class CalculationError(ValueError):
    """A calculator row or input that cannot be calculated."""


def calculate(input_value, rows: list[dict]) -> dict:
    """Run a calculator: start from the input value, add (+) or subtract (-) each row's
    calculated value. A row in `currency` counts its value; a row in `percent` counts that
    percent of the input value. Returns the input, the rows with their calculated values and
    the output, all rounded to two decimals."""
    start = _decimal(input_value)
    if start is None:
        raise CalculationError("input")
    total = start
    out_rows = []
    for n, row in enumerate(rows):
        value = _decimal(row.get("value"))
        operator, unit = row.get("operator"), row.get("unit")
        if value is None or operator not in ("+", "-") or unit not in ("currency", "percent"):
            raise CalculationError(f"row {n}")
        calculated = start * value / 100 if unit == "percent" else value
        calculated = calculated.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        total = total + calculated if operator == "+" else total - calculated
        out_rows.append(
            {
                "title": str(row.get("title") or ""),
                "operator": operator,
                "value": float(value),
                "unit": unit,
                "calculatedValue": float(calculated),
            }
        )
    return {
        "inputValue": float(start.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)),
        "outputValue": float(total.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)),
        "rows": out_rows,
    }
