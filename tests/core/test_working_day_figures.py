"""Working days (issue 30): the figures that averaged calendar days in the database count
working days too when the configuration says so: the statistics' days per state, the
dashboard's days in state, stock days and lead time, and the purchase analysis' stock days of
sold vehicles. Over 2026 with the real holidays of Sweden and Norway (the demo's rows)."""

from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from app.admin.demo import HOLIDAYS
from app.core.models import Country, Division, Instance, Region
from app.core.settings import Holiday
from app.core.tenancy import activate
from app.core.workdays import FLAG, calendar_days, day_counter
from app.dashboard import values
from app.extensions import db
from app.preparation.models import PreparationItem
from app.preparation.queries import ItemFilters
from app.preparation.services import add_item, move_item
from app.preparation.statistics import days_per_state
from app.purchase.comparison import model_analysis
from tests.factories import make_instance

START = datetime(2026, 1, 2, 12, tzinfo=UTC)  # a Friday, after New Year's Day
END = datetime(2026, 12, 31, 12, tzinfo=UTC)
# Weekdays after 2 January up to 31 December 2026: 261 - 2. Less the weekday holidays after
# 2 January: Sweden's 9 (its 10 less New Year's Day), Norway's 7 (its 8 less New Year's Day).
SWEDEN, NORWAY = 259 - 9, 259 - 7


@pytest.fixture
def world(ctx, monkeypatch):
    """One instance with a Swedish and a Norwegian division and their 2026 holidays; a
    vehicle in each entering the flow on START and sold on END; and a Swedish vehicle incoming
    since START. The dashboard's now is END."""
    instance = make_instance()
    activate(instance.id)
    sweden = db.session.scalars(select(Division)).first()
    norway_country = Country(code="NO", name="Norge", currency="NOK", locale="nb-NO")
    region = Region(name="Norge", slug="norge", country=norway_country)
    norway = Division(name="Oslo", slug="oslo", region=region)
    db.session.add_all([norway_country, region, norway])
    db.session.flush()
    for code, country_id in (("SE", sweden.region.country_id), ("NO", norway_country.id)):
        db.session.add_all(Holiday(day=d, name=n, country_id=country_id) for d, n in HOLIDAYS[code])
    for regno, division, state in (("SE1", sweden, 4), ("NO1", norway, 4), ("SE2", sweden, 2)):
        item = add_item(PreparationItem(
            instance_id=instance.id, module="begcare", division_id=division.id, state=state,
            regno=regno, brand="Volvo", model="V60", state_changed_at=START,
        ))  # fmt: skip
        if state == 4:
            move_item(item, 7, when=END)
    db.session.flush()
    monkeypatch.setattr(values, "utcnow", lambda: END)
    return instance, [sweden.id, norway.id]


def working_days_on(instance: Instance, on: bool) -> None:
    instance.options = {**(instance.options or {}), "configuration": {FLAG: on}}
    db.session.flush()


def dashboard(division_ids, metric: str):
    scope = values.Scope("begcare", tuple(division_ids), ItemFilters())
    return values.number_value(scope, metric, "year")["performanceValue"]


def test_the_statistics_days_per_state_count_working_days(world):
    instance, divisions = world
    working_days_on(instance, True)
    flow = days_per_state("begcare", divisions, END.date(), day_counter(instance))[3]
    assert (flow.stays, flow.average_days) == (2, (SWEDEN + NORWAY) / 2)
    calendar = days_per_state("begcare", divisions, END.date(), calendar_days)[3]
    assert calendar.average_days == 363.0


def test_the_dashboards_averages_count_working_days_when_the_configuration_says_so(world):
    instance, divisions = world
    assert dashboard(divisions, "stockDays") == 363.0  # calendar days, the flag off
    assert dashboard(divisions, "leadTime") == 363.0
    working_days_on(instance, True)
    assert dashboard(divisions, "stockDays") == SWEDEN  # the Swedish vehicle still incoming
    assert dashboard(divisions, "leadTime") == (SWEDEN + NORWAY) / 2
    assert dashboard(divisions, "avgDaysInState") == round(SWEDEN / 3, 1)  # the sold: 0 days


def test_the_purchase_analysis_counts_the_sold_vehicles_stock_days_as_configured(world):
    instance, divisions = world
    days = {
        v["regno"]: v["stockDays"] for v in model_analysis(("volvo", "v60"), divisions)["vehicles"]
    }
    assert days == {"SE1": 363, "NO1": 363}
    working_days_on(instance, True)
    days = {
        v["regno"]: v["stockDays"] for v in model_analysis(("volvo", "v60"), divisions)["vehicles"]
    }
    assert days == {"SE1": SWEDEN, "NO1": NORWAY}


def test_the_dashboards_stock_days_run_until_delivery_with_measure_to_delivered(world):
    instance, divisions = world
    working_days_on(instance, True)
    assert dashboard(divisions, "stockDays") == SWEDEN  # the sold vehicles are not stock
    instance.options = {**instance.options, "begcare": {"measureToDelivered": True}}
    db.session.flush()
    assert dashboard(divisions, "stockDays") == round((2 * SWEDEN + NORWAY) / 3, 1)
