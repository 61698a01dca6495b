"""A delivery's address (issue 30): one of the division's addresses (admin/general/address),
chosen when the delivery is booked; the booking and the customer's invitation name it. Another
division's or instance's address is refused next to the field, the input kept."""

from datetime import UTC, datetime

import icalendar
from sqlalchemy import select

from app.bookings.models import Booking
from app.core.settings import Address
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import Location, PreparationItem
from tests.bookings.test_booking_flow import _invitation, _mails, _signed_in
from tests.helpers import page_text

SLOT = datetime(2027, 3, 26, 8, 0, tzinfo=UTC)


def _address(shop, name: str, code: str | None) -> Address:
    activate(shop.instance_id)
    row = Address(name=name, street="Leveransvägen 3", postcode="171 50", city="Solna",
                  division_id=shop.divisions[code] if code else None)  # fmt: skip
    db.session.add(row)
    db.session.flush()
    activate(None)
    return row


def _book(client, token, shop, address_id, email="lena@example.test"):
    return client.post(
        f"/bookings/vehicles/{shop.items['SE']}/new?day=2027-03-26",
        data={
            "csrf_token": token, "kind": "delivery", "slot": SLOT.isoformat(),
            "customer_name": "Lena Kund", "customer_email": email,
            "address": str(address_id),
        },
    )  # fmt: skip


def test_the_delivery_address_chosen_is_where_the_booking_and_invitation_say(client, shop):
    token = _signed_in(client, shop)
    bay = _address(shop, "Leveranshallen", "SE")
    _address(shop, "Oslo-lageret", "NO")
    form = page_text(client.get(f"/bookings/vehicles/{shop.items['SE']}/new?day=2027-03-26"))
    assert "Delivery address" in form and "Leveranshallen, Leveransvägen 3, 171 50 Solna" in form
    assert "Oslo-lageret" not in form
    answer = _book(client, token, shop, bay.id)
    assert answer.status_code == 302, page_text(answer)
    booking = db.session.scalars(select(Booking).where(Booking.item_id == shop.items["SE"])).one()
    assert booking.address_id == bay.id
    assert "Leveranshallen, Leveransvägen 3, 171 50 Solna" in page_text(
        client.get(answer.headers["Location"])
    )
    (mail,) = _mails("lena@example.test")
    _text, calendar = _invitation(client, mail)
    (event,) = calendar.walk("VEVENT")
    assert str(event["LOCATION"]) == "Leveranshallen, Leveransvägen 3, 171 50 Solna"
    assert isinstance(calendar, icalendar.Calendar)


def test_another_divisions_or_instances_address_is_refused_and_the_input_kept(client, shop):
    token = _signed_in(client, shop)
    oslo = _address(shop, "Oslo-lageret", "NO")
    foreign = db.session.scalars(
        select(Address)
        .where(Address.name == "Sentrallageret")
        .execution_options(all_instances=True)
    ).first()
    for refused in [oslo.id, 999_999, "x"] + ([foreign.id] if foreign else []):
        answer = _book(client, token, shop, refused)
        assert answer.status_code == 422, refused
        text = page_text(answer)
        assert "Choose one of the division's addresses." in text
        assert 'value="Lena Kund"' in text
    assert db.session.scalars(select(Booking)).first() is None


def test_without_an_address_a_delivery_takes_place_at_the_vehicles_delivery_location(client, shop):
    """The vehicle's own delivery location (issue 30: set on the vehicle in the delivery flow)
    is where a delivery booked without an address takes place."""
    token = _signed_in(client, shop)
    item = db.session.get(PreparationItem, shop.items["SE"])
    activate(shop.instance_id)
    bay = Location(module=item.module, kind="delivery", name="Leveransplats 2",
                   division_id=item.division_id)  # fmt: skip
    db.session.add(bay)
    db.session.flush()
    item.delivery_location_id = bay.id
    db.session.flush()
    activate(None)
    answer = _book(client, token, shop, "", email="nils@example.test")
    assert answer.status_code == 302, page_text(answer)
    booking = db.session.scalars(select(Booking).where(Booking.item_id == item.id)).one()
    assert booking.place == "Leveransplats 2"
    assert "Leveransplats 2" in page_text(client.get(answer.headers["Location"]))
