"""Fixtures of the purchase-analysis tests: an instance with sold vehicles and an analysis."""

from dataclasses import dataclass
from datetime import timedelta

import pytest
from sqlalchemy import select

from app.core.models import Division, utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import PreparationItem
from app.preparation.services import add_item, move_item
from app.purchase.models import (
    Calculator,
    PurchaseAnalysis,
    PurchaseDynamicField,
    PurchaseValuation,
)
from tests.factories import make_instance, make_user
from tests.helpers import sign_in

MODULES = ["begcare", "purchaseAnalysis"]


@dataclass
class World:
    instance: object
    divisions: list
    user: object
    analysis: PurchaseAnalysis
    calculator: Calculator
    field: PurchaseDynamicField
    sold: list


def sold_vehicle(division, regno, sales, purchase, entered_days_ago, sold_days_ago, **extra):
    now = utcnow()
    item = PreparationItem(
        module=extra.pop("module", "begcare"), division_id=division.id, state=2,
        state_changed_at=now - timedelta(days=entered_days_ago), regno=regno,
        brand=extra.pop("brand", "Volvo"), model=extra.pop("model", "V60"), mileage=50000,
        sales_price=sales, purchase_price=purchase, **extra,
    )  # fmt: skip
    add_item(item)
    if sold_days_ago is not None:
        move_item(item, 7, None, now - timedelta(days=sold_days_ago))
    return item


def make_world(roles=("ROLE_USER",), modules=MODULES, sold=True) -> World:
    instance = make_instance(divisions=2)
    user = make_user(instance, roles=list(roles), modules=list(modules), all_divisions=True)
    activate(instance.id)
    divisions = db.session.scalars(select(Division).order_by(Division.id)).all()
    items = []
    if sold:
        items = [
            sold_vehicle(divisions[0], "ABC101", 200000, 170000, 60, 40),
            sold_vehicle(divisions[1], "ABC102", 220000, 180000, 50, 20),
            sold_vehicle(divisions[0], "ABC103", 250000, 200000, 30, 5),
            # not sold, another model, another module: never in the model analysis
            sold_vehicle(divisions[0], "ABC104", 260000, 200000, 10, None),
            sold_vehicle(divisions[0], "ABC105", 260000, 200000, 40, 4, model="XC60"),
            sold_vehicle(divisions[0], "ABC106", 260000, None, 40, 4, module="newcare"),
        ]
    field = PurchaseDynamicField(title="Tyres", section="Condition", field_type="select",
                                 choices=["Summer", "Winter"], ordering=1)  # fmt: skip
    calculator = Calculator(
        title="Trade-in", preset_description="Target margin", preset_percent=10,
        rows=[{"title": "Repairs", "operator": "-", "value": 10000, "unit": "currency"},
              {"title": "Margin", "operator": "-", "value": 10, "unit": "percent"}],
    )  # fmt: skip
    db.session.add_all([field, calculator])
    db.session.flush()
    analysis = PurchaseAnalysis(
        identifier="PA-2026-0001", division_id=divisions[0].id, created_by_id=user.id,
        status="draft", regno="XYZ123", brand="Volvo", model="V60", model_series="T6",
        model_year=2021, fuel_type="Petrol", color="Blue", mileage=42000,
        inputs={str(field.id): "Winter"},
        valuation={"priceMin": 200000, "priceMax": 240000, "priceAvg": 220000,
                   "pricePrediction": 230000, "source": "Market"},
        price_predictions=[{"date": "2027-01-01", "price": 215000, "source": "Forecast"}],
        basic={"annualTax": 3600, "chassis": "Estate", "segment": "Mid", "equipment": ["Towbar"]},
    )  # fmt: skip
    db.session.add(analysis)
    db.session.flush()
    db.session.add(PurchaseValuation(analysis_id=analysis.id, price_in=180000, price_out=229000,
                                     source="Dealer", user_id=user.id, division_id=divisions[0].id))  # fmt: skip
    db.session.flush()
    activate(None)
    return World(instance, divisions, user, analysis, calculator, field, items)


@pytest.fixture
def world(app):
    return make_world(roles=("ROLE_USER", "ROLE_USER_BEGCARE_ADD_VEHICLE"))


@pytest.fixture
def other(app):
    """Another instance with its own analysis."""
    return make_world(sold=False)


@pytest.fixture
def signed_in(client, world):
    token = sign_in(client, world.user)
    return client, token
