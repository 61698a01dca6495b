"""Addresses act (issue 30): the seller chooses where the advert's car stands from the
division's addresses (admin/general/address); the advert's page and the bidders' public page
show it; another division's or instance's address is never offered or accepted."""

import re

import pytest
from sqlalchemy import select

from app.core.settings import Address
from app.core.tenancy import activate
from app.extensions import db
from app.market.models import Advert
from app.preparation.models import PreparationItem
from tests.helpers import page_text
from tests.market import _bid
from tests.market._adverts import demo_login
from tests.market.test_adverts import form_values


@pytest.fixture
def as_demo(demo_client):
    """`as_demo("seller")`: the demo client signed in as seller@demo.test → (client, token)."""
    return demo_login(demo_client)


def seller_instance() -> int:
    instance_id = _bid.user("seller@demo.test").active_instance_id
    activate(instance_id)
    return instance_id


def address(name: str, division_id: int | None, city: str = "Solna") -> Address:
    seller_instance()
    row = Address(name=name, street="Testgatan 5", postcode="171 11", city=city,
                  division_id=division_id)  # fmt: skip
    db.session.add(row)
    db.session.flush()
    return row


def foreign_address() -> Address:
    """The other instance's (Fjordauto's) central store, from the demo."""
    return db.session.scalars(
        select(Address)
        .where(Address.name == "Sentrallageret")
        .execution_options(all_instances=True)
    ).one()


def showroom_item() -> PreparationItem:
    seller_instance()
    return db.session.scalars(
        select(PreparationItem)
        .where(PreparationItem.state == 6, PreparationItem.module == "begcare")
        .order_by(PreparationItem.id.desc())
    ).first()


def other_division_item(item: PreparationItem) -> PreparationItem:
    return db.session.scalars(
        select(PreparationItem)
        .where(PreparationItem.division_id != item.division_id, PreparationItem.state == 6)
        .order_by(PreparationItem.id)
    ).first()


def added(regno: str) -> Advert:
    return db.session.scalars(select(Advert).where(Advert.regno == regno)).one()


def test_the_address_chosen_on_the_advert_is_where_bidders_see_the_car(as_demo, bidder):
    client, token = as_demo("seller")
    item = showroom_item()
    yard = address("Gården bakom", item.division_id)
    elsewhere = address("Annan ort", other_division_item(item).division_id, city="Borås")
    page = page_text(client.get(f"/market/advert/add?item_id={item.id}"))
    choice = re.search(r'<select[^>]*name="address_id".*?</select>', page, re.S).group(0)
    assert "Gården bakom, Testgatan 5, 171 11 Solna" in choice
    assert "Centrallagret" in choice  # the whole instance's
    assert "Annan ort" not in choice and "Sentrallageret" not in choice
    # The vehicle's division's own address is the one chosen at first.
    chosen = re.search(r'<option selected value="(\d+)"', choice)
    assert chosen and db.session.get(Address, int(chosen.group(1))).division_id == item.division_id

    response = client.post(
        "/market/advert/add",
        data=form_values(token, regno=item.regno, item_id=str(item.id), address_id=str(yard.id)),
    )
    assert response.status_code == 302
    advert = added(item.regno)
    assert advert.address_id == yard.id
    page = page_text(client.get(f"/market/adverts/{advert.id}"))
    shown = re.search(r"<dd data-advert-location>(.*?)</dd>", page)
    assert shown and shown.group(1) == "Gården bakom, Testgatan 5, 171 11 Solna"

    # The bidder (another instance, signed in as nobody) sees it on the public bid page.
    link = _bid.link(advert, "buyer@demo.test", "bid")
    public = page_text(bidder.get(_bid.page_path("bid", advert, link)))
    assert "Where the car stands" in public
    assert "Gården bakom, Testgatan 5, 171 11 Solna" in public
    data = bidder.get(_bid.data_path("bid", advert, link)).get_json()
    assert data["location"] == "Gården bakom, Testgatan 5, 171 11 Solna"
    assert elsewhere.id != yard.id


def test_another_divisions_or_instances_address_is_refused_with_the_input_kept(as_demo):
    client, token = as_demo("seller")
    item = showroom_item()
    elsewhere = address("Annan ort", other_division_item(item).division_id, city="Borås")
    for refused in (elsewhere.id, foreign_address().id, 999_999, "x"):
        response = client.post(
            "/market/advert/add",
            data=form_values(
                token, regno=item.regno, item_id=str(item.id), address_id=str(refused),
                description="Kept text",
            ),
        )  # fmt: skip
        assert response.status_code == 422, refused
        page = page_text(response)
        assert "Choose one of the division's addresses." in page
        assert "Kept text" in page
        assert db.session.scalar(select(Advert).where(Advert.regno == item.regno)) is None


def test_a_typed_advert_offers_the_addresses_of_the_sellers_divisions(as_demo):
    client, token = as_demo("seller")
    page = page_text(client.get("/market/advert/add"))
    choice = re.search(r'<select[^>]*name="address_id".*?</select>', page, re.S).group(0)
    assert "Nordbil Solna, Bilgatan 1, 171 45 Solna" in choice
    assert "Fjordauto" not in choice and "Sentrallageret" not in choice
    solna = db.session.scalars(
        select(Address).where(Address.name == "Nordbil Solna")
    ).one()  # fmt: skip
    response = client.post(
        "/market/advert/add", data=form_values(token, address_id=str(solna.id), action="draft")
    )
    assert response.status_code == 302
    assert added("ABC123").address_id == solna.id
