"""Selling a car from its page (issue 37, point 9) at the desk, 1280 px, English: a demo vehicle
with photos → "Sell on the market" → the advert form filled from the vehicle with its photos
shown → one photo left out → Publish → the advert shows the other photos. The vehicle's photos
and the advert are removed again after."""

import io
import re
from datetime import date, timedelta

import pytest
from PIL import Image
from playwright.sync_api import expect
from sqlalchemy import delete, select

from app.auth.models import User
from app.core.tenancy import activate
from app.extensions import db
from app.market.models import Advert
from app.preparation.files import add_item_file
from app.preparation.models import FileObject, ItemFile, PreparationItem
from tests.browser.test_station import sign_in

pytestmark = pytest.mark.browser

LOADED_JS = "imgs => imgs.map(i => i.complete && i.naturalWidth > 0)"
# Waited for, not read at once: every image of the selector has loaded (it never does if refused).
ALL_LOADED_JS = (
    "sel => [...document.querySelectorAll(sel)].every(i => i.complete && i.naturalWidth > 0)"
)


def photo(colour) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (800, 600), colour).save(out, "JPEG")
    return out.getvalue()


@pytest.fixture
def vehicle_with_photos(live_server):
    """A begcare vehicle of Nordbil with no advert and three photos: (id, regno, vin)."""
    with live_server.app.app_context():
        seller = db.session.scalars(select(User).where(User.email == "seller@demo.test")).one()
        instance_id = seller.active_instance_id
        activate(instance_id)
        item = db.session.scalars(
            select(PreparationItem)
            .where(
                PreparationItem.module == "begcare",
                PreparationItem.state.in_((2, 3)),
                PreparationItem.vin.is_not(None),
                PreparationItem.id.not_in(
                    select(Advert.item_id).where(Advert.item_id.is_not(None))
                ),
            )
            .order_by(PreparationItem.id)
        ).first()
        files = [
            add_item_file(item, photo(colour), f"{name}.jpg", name.title(), seller).id
            for name, colour in (("front", "#b03030"), ("side", "#3060b0"), ("rear", "#30a050"))
        ]
        found = (item.id, item.regno, item.vin)
        db.session.commit()
    yield found
    with live_server.app.app_context():
        activate(instance_id)
        for advert in db.session.scalars(select(Advert).where(Advert.item_id == found[0])):
            db.session.delete(advert)
        object_ids = db.session.scalars(
            select(ItemFile.file_object_id).where(ItemFile.id.in_(files))
        ).all()
        db.session.execute(delete(ItemFile).where(ItemFile.id.in_(files)))
        db.session.execute(delete(FileObject).where(FileObject.id.in_(object_ids)))
        db.session.commit()


def test_a_seller_sells_a_vehicle_with_its_photos(new_page, vehicle_with_photos, snap):
    item_id, regno, vin = vehicle_with_photos
    page = new_page(locale="en-GB")
    sign_in(page, "seller@demo.test")
    page.goto(f"/begcare/{item_id}")
    sell = page.get_by_role("link", name="Sell on the market")
    expect(sell).to_be_visible()
    snap(page, "desk-vehicle-sell-action")
    sell.click()

    expect(page).to_have_url(re.compile(rf"/market/advert/add\?item_id={item_id}$"))
    expect(page.get_by_label("Registration number", exact=True).last).to_have_value(regno)
    expect(page.get_by_label("VIN")).to_have_value(vin)
    photos = page.locator("[data-vehicle-photos] img")
    expect(photos).to_have_count(3)
    page.wait_for_function(ALL_LOADED_JS, arg="[data-vehicle-photos] img")
    assert photos.evaluate_all(LOADED_JS) == [True, True, True]
    for n in (1, 2, 3):
        expect(page.get_by_label(f"Use photo {n}")).to_be_checked()
    snap(page, "desk-advert-form-from-vehicle")

    page.get_by_label("Use photo 2").uncheck()  # the seller leaves the side view out
    page.get_by_label(re.compile(r"^Start price")).fill("150 000")
    page.get_by_label("Bidding ends at").fill(f"{date.today() + timedelta(days=14)}T18:00")
    page.get_by_role("button", name="Publish").click()

    expect(page).to_have_url(re.compile(r"/market/adverts/\d+$"))
    expect(page.get_by_text(f"{regno} is on the market", exact=False)).to_be_visible()
    gallery = page.locator(".advert-images img")
    expect(gallery).to_have_count(2)
    gallery.last.scroll_into_view_if_needed()
    page.wait_for_function(ALL_LOADED_JS, arg=".advert-images img")
    assert gallery.evaluate_all(LOADED_JS) == [True, True]
    expect(page.locator(".advert-vehicle-card")).to_contain_text(vin)

    page.goto(f"/begcare/{item_id}")
    expect(page.get_by_role("link", name="Sell on the market")).to_have_count(0)
    expect(page.get_by_role("link", name="Open the vehicle's advert")).to_be_visible()
