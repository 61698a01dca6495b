"""The print view's exact rules: the price interval bar, the chart axis and the calculation."""

from decimal import Decimal

import pytest

from app.purchase.rules import CalculationError, axis_suggestions, calculate, interval_bar


def test_the_bar_has_51_stripes_at_2_percent_steps():
    bar = interval_bar({"priceMin": 100, "priceMax": 200})
    assert len(bar.stripes) == 51
    assert [s.percent for s in bar.stripes] == list(range(0, 101, 2))


def test_the_scale_runs_from_0_9_x_lowest_to_1_1_x_highest():
    bar = interval_bar({"priceMin": 100, "priceMax": 200, "priceAvg": 150, "pricePrediction": 250})
    assert bar.low == Decimal("90.0")
    assert bar.high == Decimal("275.0")
    assert bar.stripes[0].value == Decimal("90.0")
    assert bar.stripes[-1].value == Decimal("275.0")
    assert bar.stripes[25].value == Decimal("182.5")  # the middle stripe: half the span


def test_stripes_between_min_and_max_are_inside_and_markers_sit_on_stripes():
    bar = interval_bar({"priceMin": 100, "priceMax": 200})
    # scale 90..220, step 2.6: 100 lies at 7.7 %, 200 at 84.6 %
    inside = [s.percent for s in bar.stripes if s.inside]
    assert inside[0] == 8 and inside[-1] == 84
    assert bar.markers == {"priceMin": 8, "priceMax": 84}
    assert all(m % 2 == 0 for m in bar.markers.values())


@pytest.mark.parametrize("prices", [{}, {"priceMin": None}, {"priceMin": 0}, {"priceMin": "x"}])
def test_no_bar_without_a_price(prices):
    assert interval_bar(prices) is None


def test_a_single_price_makes_a_bar_from_0_9_to_1_1_times_it():
    bar = interval_bar({"priceAvg": 1000})
    assert (bar.low, bar.high) == (Decimal("900.0"), Decimal("1100.0"))
    assert bar.markers == {"priceAvg": 50}


def test_axis_suggested_max_is_1_5_x_and_min_the_first_value_over_1_5():
    assert axis_suggestions([300000, 1, 2]) == {"suggestedMax": 450000.0, "suggestedMin": 200000.0}


@pytest.mark.parametrize("first", [10, 5, 0])
def test_axis_has_no_suggested_min_at_10_or_below(first):
    assert axis_suggestions([first, 50]) == {"suggestedMax": first * 1.5}


def test_axis_just_above_10_gets_a_minimum():
    assert axis_suggestions([10.5])["suggestedMin"] == pytest.approx(7.0)


def test_axis_without_values_suggests_nothing():
    assert axis_suggestions([]) == {}
    assert axis_suggestions([None, 3]) == {}


def test_calculation_adds_and_subtracts_currency_and_percent_rows():
    result = calculate(
        200000,
        [
            {"title": "Repairs", "operator": "-", "value": 12000, "unit": "currency"},
            {"title": "Margin", "operator": "-", "value": 10, "unit": "percent"},
            {"title": "Commission", "operator": "+", "value": 2.5, "unit": "percent"},
        ],
    )
    assert [r["calculatedValue"] for r in result["rows"]] == [12000.0, 20000.0, 5000.0]
    assert result["inputValue"] == 200000.0
    assert result["outputValue"] == 173000.0


def test_calculation_rounds_to_cents():
    result = calculate(
        "1000.005", [{"title": "x", "operator": "+", "value": 1 / 3, "unit": "percent"}]
    )
    assert result["rows"][0]["calculatedValue"] == 3.33
    assert result["outputValue"] == 1003.34


@pytest.mark.parametrize(
    "rows",
    [
        [{"title": "x", "operator": "*", "value": 1, "unit": "currency"}],
        [{"title": "x", "operator": "+", "value": "abc", "unit": "currency"}],
        [{"title": "x", "operator": "+", "value": 1, "unit": "litre"}],
    ],
)
def test_a_bad_row_is_refused(rows):
    with pytest.raises(CalculationError):
        calculate(100, rows)


@pytest.mark.parametrize("value", [None, "", "abc", "nan", "inf"])
def test_a_bad_input_is_refused(value):
    with pytest.raises(CalculationError):
        calculate(value, [])
