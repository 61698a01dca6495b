"""The purchase analysis's expected reconditioning (issue 33, item 3): computed from the actual
cost of the instance's own finished vehicles of the model (age and mileage band), with how many
it rests on, in the page and the print view; the buyer's override kept beside it."""

import re
from decimal import Decimal
from html import unescape

from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import ItemStationTask, Station
from app.preparation.recon_models import ReconLine
from app.purchase.models import PurchaseAnalysis
from tests.helpers import page_text


def with_costs(world, amounts, model_year=2020):
    """Actual reconditioning lines on the world's sold V60s (ABC101..ABC103)."""
    activate(world.instance.id)
    station = Station(module="begcare", name="Verkstad", hourly_rate=Decimal(900))
    db.session.add(station)
    db.session.flush()
    for item, amount in zip(world.sold[:3], amounts, strict=True):
        item.model_year = model_year
        task = ItemStationTask(item_id=item.id, station_id=station.id, status="done")
        db.session.add(task)
        db.session.flush()
        db.session.add(
            ReconLine(
                item_id=item.id,
                task_id=task.id,
                phase="estimate",
                kind="parts",
                amount=Decimal(amount - 1000),
            )
        )
        db.session.add(
            ReconLine(
                item_id=item.id,
                task_id=task.id,
                phase="actual",
                kind="parts",
                amount=Decimal(amount),
            )
        )
    db.session.flush()


def section(html: str) -> str:
    match = re.search(r'<section[^>]*"pa-expected-recon".*?</section>', html, re.S)
    assert match, "the expected reconditioning is missing"
    text = re.sub(r"<[^>]+>", " ", match.group(0)).replace("\xa0", " ").replace("\u202f", " ")
    return re.sub(r"\s+", " ", text)


def test_print_view_shows_the_expected_reconditioning_and_what_it_rests_on(signed_in, world):
    client, _ = signed_in
    with_costs(world, [10000, 12000, 14000])
    html = client.get(
        f"/pdf-preview/purchase-analysis/{world.analysis.id}?language=en-GB"
    ).get_data(as_text=True)
    text = section(html)
    assert "12 000 kr" in text  # the average of 10 000, 12 000 and 14 000
    assert "Vehicles it rests on 3" in text
    assert "within 2 model years" in text


def test_too_few_of_a_similar_age_falls_back_to_the_model_and_says_so(signed_in, world):
    client, _ = signed_in
    with_costs(world, [10000, 12000, 14000], model_year=2012)  # far from the analysed 2021
    text = section(client.get(f"/purchase-analysis/{world.analysis.id}").get_data(as_text=True))
    assert "too few of a similar age and mileage" in text and "12 000" in text


def test_without_the_cars_age_and_mileage_no_band_is_claimed(signed_in, world):
    client, _ = signed_in
    with_costs(world, [10000, 12000, 14000])
    world.analysis.model_year = world.analysis.mileage = None
    db.session.flush()
    text = section(client.get(f"/purchase-analysis/{world.analysis.id}").get_data(as_text=True))
    assert "of any age and mileage" in text and "within 2 model years" not in text
    assert "12 000" in text


def test_with_only_the_model_year_or_only_the_mileage_it_names_the_band_it_rests_on(
    signed_in, world
):
    client, _ = signed_in
    with_costs(world, [10000, 12000, 14000])
    year, mileage = world.analysis.model_year, world.analysis.mileage
    world.analysis.mileage = None
    db.session.flush()
    text = unescape(section(client.get(f"/purchase-analysis/{world.analysis.id}").text))
    assert "within 2 model years, of any mileage (this car's is not given)" in text
    assert " km" not in text.partition("Vehicles it rests on")[2] and "12 000" in text

    world.analysis.model_year, world.analysis.mileage = None, mileage
    db.session.flush()
    text = unescape(section(client.get(f"/purchase-analysis/{world.analysis.id}").text))
    assert "within 30 000 km, of any model year (this car's is not given)" in text
    assert "model years" not in text

    world.analysis.model_year, world.analysis.mileage = year, None
    for item in world.sold[:3]:
        item.model_year = 2012  # far from the analysed car's: too few in the band
    db.session.flush()
    text = unescape(section(client.get(f"/purchase-analysis/{world.analysis.id}").text))
    assert "(too few of a similar model year)" in text and "mileage)" not in text


def test_the_buyers_override_is_kept_beside_the_computed_value(signed_in, world):
    client, token = signed_in
    with_costs(world, [10000, 12000, 14000])
    action = f"/purchase-analysis/{world.analysis.id}/recon"
    bad = client.post(action, data={"csrf_token": token, "expected_recon": "mycket"})
    assert bad.status_code == 422
    assert "Enter a number greater than 0" in page_text(bad) and 'value="mycket"' in page_text(bad)
    response = client.post(
        action, data={"csrf_token": token, "expected_recon": "9 500"}, follow_redirects=True
    )
    assert "The expected reconditioning was saved." in page_text(response)
    db.session.expire_all()
    stored = db.session.get(PurchaseAnalysis, world.analysis.id).basic["expectedRecon"]
    assert stored["amount"] == "9500.00" and stored["by"]
    text = section(
        client.get(f"/pdf-preview/purchase-analysis/{world.analysis.id}?language=en-GB").get_data(
            as_text=True
        )
    )
    assert "Expected reconditioning 9 500 kr" in text and "Computed 12 000 kr" in text
