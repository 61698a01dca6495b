"""Where bookings are seen: the vehicle page, My events and the secret calendar feed, a
calendar's day and week, and the delivery flow list; nobody sees another division's."""

import re
from datetime import UTC, datetime

import icalendar
from sqlalchemy import select

from app.auth.models import User
from app.bookings import calendars as cal
from app.bookings import services as svc
from app.bookings.models import Booking
from app.core.models import Instance
from app.core.settings import SettingRow
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import PreparationItem
from tests.bookings.conftest import make_shop
from tests.factories import make_user
from tests.helpers import page_text, sign_in

SOON = datetime(2027, 3, 26, 8, 0, tzinfo=UTC)
NOW = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)


def _book(shop, code="SE", kind="test_drive", start=SOON, made_by=None) -> Booking:
    activate(shop.instance_id)
    item = db.session.get(PreparationItem, shop.items[code])
    calendar = cal.Calendar.of(db.session.get(SettingRow, shop.calendars[code]))
    place = db.session.get(SettingRow, shop.places[code])
    booking = svc.book(
        item, calendar, kind, start, place,
        svc.Customer("Kari Kunde", "kari@example.test"), made_by or shop.user_id, NOW,
    )  # fmt: skip
    activate(None)
    return booking


def test_the_vehicle_page_lists_its_bookings_and_offers_to_book(client, shop):
    booking = _book(shop)
    sign_in(client, db.session.get(User, shop.user_id))
    page = page_text(client.get(f"/begcare/{shop.items['SE']}", follow_redirects=True))
    assert "Book a test drive" in page and "Book a delivery" in page
    assert f"/bookings/{booking.id}" in page and "Kari Kunde" in page


def test_an_archived_vehicle_offers_no_booking_and_refuses_one(client, shop):
    """Nobody test-drives or takes delivery of a vehicle out of the business: the page offers
    no booking, its booking link leads back with the reason, and the service refuses one."""
    activate(shop.instance_id)
    db.session.get(PreparationItem, shop.items["SE"]).state = svc.ARCHIVED
    db.session.flush()
    activate(None)
    sign_in(client, db.session.get(User, shop.user_id))
    page = page_text(client.get(f"/begcare/{shop.items['SE']}", follow_redirects=True))
    assert "Bookings" in page and "Book a test drive" not in page
    answer = client.get(f"/bookings/vehicles/{shop.items['SE']}/new", follow_redirects=True)
    assert "An archived vehicle cannot be booked." in page_text(answer)
    try:
        _book(shop)
    except svc.BookingError as refused:
        assert refused.field == "kind"
    else:
        raise AssertionError("an archived vehicle was booked")
    assert db.session.scalar(select(Booking).where(Booking.item_id == shop.items["SE"])) is None


def test_my_events_and_the_feed_show_the_users_bookings(client, shop):
    soon = datetime(2027, 1, 15, 8, 0, tzinfo=UTC)  # within the feed's 90 days
    booking = _book(shop, start=soon)
    instance = db.session.get(Instance, shop.instance_id)
    instance.options = {"configuration": {"enable_my_events": True}}
    db.session.flush()
    token = sign_in(client, db.session.get(User, shop.user_id))
    page = page_text(client.get("/my-events?week=2027-W02"))
    assert f"/bookings/{booking.id}" in page and "Test drive" in page
    client.post("/my-events/calendar-link", data={"csrf_token": token})
    link = re.search(r'value="(http://[^"]+\.ics)"', page_text(client.get("/my-events")))[1]
    feed = icalendar.Calendar.from_ical(client.get(link.replace("http://localhost", "")).data)
    (event,) = [e for e in feed.walk("VEVENT") if str(e["UID"]).startswith(booking.uid)]
    assert event.decoded("DTSTART") == soon
    assert event.decoded("DTEND") == booking.ends_at


def test_a_calendars_week_and_day_list_its_bookings(client, shop):
    booking = _book(shop)
    sign_in(client, db.session.get(User, shop.user_id))
    assert f"/bookings/calendars/{shop.calendars['SE']}" in page_text(client.get("/bookings"))
    week = page_text(client.get(f"/bookings/calendars/{shop.calendars['SE']}?week=2027-W12"))
    day = page_text(client.get(f"/bookings/calendars/{shop.calendars['SE']}?day=2027-03-26"))
    empty = page_text(client.get(f"/bookings/calendars/{shop.calendars['SE']}?day=2027-03-25"))
    for page in (week, day):
        assert f"/bookings/{booking.id}" in page and "09:00–09:45" in page
    assert f"/bookings/{booking.id}" not in empty


def test_a_user_of_one_division_reaches_neither_the_others_bookings_nor_calendars(client, shop):
    booking = _book(shop, "NO")
    activate(shop.instance_id)
    from app.core.models import Division

    sweden = db.session.get(Division, shop.divisions["SE"])
    user = make_user(db.session.get(Instance, shop.instance_id), modules=["begcare"], divisions=[sweden])  # fmt: skip
    activate(None)
    token = sign_in(client, user)
    assert client.get(f"/bookings/{booking.id}").status_code == 404
    assert (
        client.post(f"/bookings/{booking.id}/cancel", data={"csrf_token": token}).status_code == 404
    )
    assert client.get(f"/bookings/calendars/{shop.calendars['NO']}").status_code == 404
    assert client.get(f"/bookings/vehicles/{shop.items['NO']}/new").status_code == 404
    other = make_shop("other")
    assert client.get(f"/bookings/calendars/{other.calendars['SE']}").status_code == 404
    assert db.session.scalars(select(Booking).where(Booking.id == booking.id)).one().active


def test_the_demo_has_calendars_and_bookings_in_both_companies(demo_app):
    companies = db.session.scalars(select(Instance).order_by(Instance.id)).all()
    for instance in companies[:2]:
        calendars = db.session.scalars(
            select(SettingRow)
            .where(SettingRow.kind == cal.CALENDAR, SettingRow.instance_id == instance.id)
            .execution_options(all_instances=True)
        ).all()
        booked = db.session.scalars(
            select(Booking)
            .where(Booking.instance_id == instance.id, Booking.status == "booked")
            .execution_options(all_instances=True)
        ).all()
        assert len(calendars) >= 2 and len(booked) >= 4, instance.company_name
        assert {b.kind for b in booked} >= {"test_drive"}


def test_the_delivery_flow_list_shows_each_vehicles_booked_delivery(as_demo):
    client, _token = as_demo("admin")
    page = page_text(client.get("/begcare/items/deliveryflow"))
    booked = db.session.scalars(
        select(Booking)
        .join(PreparationItem, PreparationItem.id == Booking.item_id)
        .where(
            Booking.kind == "delivery",
            PreparationItem.state == 8,
            PreparationItem.module == "begcare",
        )
        .execution_options(all_instances=True)
    ).all()
    assert booked, "the demo books deliveries of vehicles in the delivery flow"
    shown = [b for b in booked if f'href="/bookings/{b.id}" data-booked-delivery' in page]
    assert shown and all("Delivery " in page for _b in shown)


def test_the_dashboard_widget_counts_todays_and_this_weeks_bookings(as_demo):
    client, _token = as_demo("seller")
    from app.dashboard.models import DashboardWidget

    widget = db.session.scalars(
        select(DashboardWidget)
        .where(DashboardWidget.type == "bookings")
        .execution_options(all_instances=True)
    ).first()
    body = client.get(f"/api/dashboard-widgets/{widget.id}").get_json()
    assert body["type"] == "bookings"
    value = body["value"]
    assert value["week"] >= value["today"] == len(value["items"])
    for entry in value["items"]:
        assert entry["href"].startswith("/bookings/") and re.fullmatch(r"\d\d:\d\d", entry["time"])


def test_a_places_name_reads_in_the_staffs_language_and_is_booked_in_the_customers(client, shop):
    """A booking calendar location has a name per language: the booking form offers it in the
    salesperson's language; the booking keeps it in the customer's (their invitation's)."""
    activate(shop.instance_id)
    place = db.session.get(SettingRow, shop.places["SE"])
    place.data = {**place.data, "name_texts": {"en-GB": "Showroom", "de-DE": "Ausstellungsraum"}}
    db.session.flush()
    activate(None)
    sign_in(client, db.session.get(User, shop.user_id))  # reads en-GB
    form = page_text(client.get(f"/bookings/vehicles/{shop.items['SE']}/new"))
    assert ">Showroom</option>" in form and "Utställningshallen" not in form
    activate(shop.instance_id)
    item = db.session.get(PreparationItem, shop.items["SE"])
    calendar = cal.Calendar.of(db.session.get(SettingRow, shop.calendars["SE"]))
    german = svc.book(
        item, calendar, "test_drive", SOON, place,
        svc.Customer("Kai Kunde", "kai@example.test", language="de-DE"), shop.user_id, NOW,
    )  # fmt: skip
    assert german.place == "Ausstellungsraum, Bilgatan 1"
    # a customer in the division's language (Swedish, no text of its own): as written
    assert _book(shop, start=SOON.replace(hour=9)).place == "Utställningshallen, Bilgatan 1"


def test_a_calendars_name_reads_in_the_readers_language(client, shop):
    activate(shop.instance_id)
    row = db.session.get(SettingRow, shop.calendars["SE"])
    row.data = {**row.data, "name_texts": {"sv-SE": "Provkörningar", "de-DE": "Probefahrten"}}
    db.session.flush()
    sign_in(client, db.session.get(User, shop.user_id))
    german = page_text(client.get(f"/bookings/calendars/{row.id}?lang=de-DE"))
    assert "Probefahrten" in german and "Provkörningar" not in german
    assert "Probefahrten" in page_text(client.get("/bookings?lang=de-DE"))
    # a language without its own text reads the company's (Swedish)
    assert "Provkörningar" in page_text(client.get(f"/bookings/calendars/{row.id}?lang=nl-NL"))
