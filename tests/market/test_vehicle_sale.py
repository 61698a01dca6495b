"""Selling a vehicle from its page (issue 37, point 9): the vehicle page's "Sell on the market"
action for market sellers, the advert form filled from the vehicle with its photos, which the
advert gets as copies of its own; once sold, the page links to the advert instead."""

import io
import re

from PIL import Image
from sqlalchemy import select

from app.core.tenancy import activate
from app.extensions import db
from app.market.adverts import advert_images
from app.market.models import Advert
from app.preparation.files import add_item_file
from app.preparation.models import FileObject, ItemFile, PreparationItem
from tests.helpers import page_text
from tests.market._adverts import demo_login, demo_user, make_advert, nordbil
from tests.market.test_adverts import form_values

SELL = "data-sell-vehicle"


def photo(colour) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), colour).save(out, "JPEG")
    return out.getvalue()


def stock_vehicle(**where) -> PreparationItem:
    """A begcare vehicle of Nordbil, not archived, with no advert, and a VIN."""
    activate(nordbil().instance_id)
    item = db.session.scalars(
        select(PreparationItem)
        .where(
            PreparationItem.module == "begcare",
            PreparationItem.state != 9,
            PreparationItem.id.not_in(select(Advert.item_id).where(Advert.item_id.is_not(None))),
            *where,
        )
        .order_by(PreparationItem.id)
    ).first()
    item.vin = item.vin or "YV1DZ8256C2271234"
    item.sales_price = 189_900
    db.session.flush()
    return item


def with_photos(item: PreparationItem, n: int) -> list[ItemFile]:
    seller = demo_user("seller@demo.test")
    files = [
        add_item_file(item, photo((40 * i, 90, 160)), f"photo-{i}.jpg", f"Photo {i}", seller)
        for i in range(n)
    ]
    add_item_file(item, b"%PDF-1.4\n%%EOF\n", "service.pdf", "Service book", seller)
    db.session.flush()
    return files


def vehicle_page(client, item) -> str:
    response = client.get(f"/begcare/{item.id}", follow_redirects=True)
    assert response.status_code == 200
    return response.get_data(as_text=True)


def test_a_seller_sells_a_vehicle_from_its_page_with_its_photos(demo_client):
    client, token = demo_login(demo_client)("seller")
    item = stock_vehicle()
    photos = with_photos(item, 3)
    html = vehicle_page(client, item)
    link = re.search(rf'href="([^"]+)" {SELL}>Sell on the market<', html)
    assert link and link.group(1) == f"/market/advert/add?item_id={item.id}"

    form = client.get(link.group(1))
    text = page_text(form)
    for value in (item.regno, item.vin, item.brand, item.model):
        assert f'value="{value}"' in text
    assert "The vehicle's sales price: 189" in text
    ticked = re.findall(r'name="carry_photo" value="(\d+)" checked', text)
    assert ticked == [str(p.id) for p in photos]  # the photos, not the PDF

    # The seller leaves out the second photo; another vehicle's file id does nothing.
    data = form_values(
        token, item_id=str(item.id), regno=item.regno, vin=item.vin.lower(),
        brand=item.brand, model=item.model,
    )  # fmt: skip
    data["carry_photo"] = [str(photos[0].id), str(photos[2].id), "999999"]
    response = client.post("/market/advert/add", data=data)
    assert response.status_code == 302
    advert = db.session.scalars(select(Advert).where(Advert.item_id == item.id)).one()
    assert (advert.status, advert.vin) == ("published", item.vin)
    images = advert_images(advert.id)
    copies = [db.session.get(FileObject, i.file_object_id) for i in images]
    assert [c.data for c in copies] == [photos[0].file.data, photos[2].file.data]
    # Copies the advert owns: not the vehicle's stored rows.
    assert {c.id for c in copies}.isdisjoint({p.file_object_id for p in photos})
    detail = page_text(client.get(f"/market/adverts/{advert.id}"))
    assert item.vin in detail

    # The vehicle page now links to its advert instead of offering another sale.
    html = vehicle_page(client, item)
    assert SELL not in html
    assert f'href="/market/adverts/{advert.id}" data-vehicle-advert' in html


def test_unticked_photos_and_a_failed_form_keep_the_choice(demo_client):
    client, token = demo_login(demo_client)("seller")
    item = stock_vehicle()
    photos = with_photos(item, 2)
    data = form_values(token, item_id=str(item.id), regno=item.regno, start_price="")
    data["carry_photo"] = [str(photos[1].id)]
    response = client.post("/market/advert/add", data=data)
    assert response.status_code == 422
    text = page_text(response)
    assert f'name="carry_photo" value="{photos[1].id}" checked' in text
    assert f'name="carry_photo" value="{photos[0].id}" >' in text  # shown, not ticked
    data["start_price"] = "100 000"
    data["carry_photo"] = []
    assert client.post("/market/advert/add", data=data).status_code == 302
    advert = db.session.scalars(select(Advert).where(Advert.item_id == item.id)).one()
    assert advert_images(advert.id) == []


def test_a_withdrawn_advert_lets_the_vehicle_be_sold_again(demo_client):
    client, _ = demo_login(demo_client)("seller")
    item = stock_vehicle()
    make_advert(nordbil(), status="withdrawn", item_id=item.id)
    assert SELL in vehicle_page(client, item)


def test_only_market_sellers_see_the_action(demo_client):
    login = demo_login(demo_client)
    item = stock_vehicle()
    for name in ("station", "divadmin"):
        client, _ = login(name)
        response = client.get(f"/begcare/{item.id}", follow_redirects=True)
        assert SELL not in response.get_data(as_text=True)
        if response.status_code == 200:
            assert client.get(f"/market/advert/add?item_id={item.id}").status_code in (403, 404)


def test_a_bad_vin_is_refused_with_the_input_kept(demo_client):
    client, token = demo_login(demo_client)("seller")
    data = form_values(token, vin="yv1 dz8")
    response = client.post("/market/advert/add", data=data)
    assert response.status_code == 422
    text = page_text(response)
    assert "A VIN has 17 characters; YV1DZ8 has 6." in text
    assert 'value="YV1DZ8"' in text
