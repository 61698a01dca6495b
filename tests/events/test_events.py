"""My events: the user's dated events by week and day, and the secret calendar feed."""

import re
from datetime import UTC, datetime, timedelta

import pytz
from sqlalchemy import select

from app.core.models import utcnow
from app.events.ical import calendar, escape, fold
from app.events.services import Event
from app.extensions import db
from app.market.models import Advert
from app.preparation.models import ItemStationTask, PreparationItem, user_stations
from tests.factories import make_user
from tests.helpers import page_text, sign_in
from tests.shell.conftest import demo_user

STOCKHOLM = pytz.timezone("Europe/Stockholm")


def _week(moment: datetime, zone=STOCKHOLM) -> str:
    year, week, _day = moment.astimezone(zone).isocalendar()
    return f"{year}-W{week:02d}"


def _all(stmt):
    return stmt.execution_options(all_instances=True)


def test_my_events_needs_the_configuration_flag(client):
    user = make_user()  # a fresh company: enable_my_events off
    sign_in(client, user)
    assert client.get("/my-events").status_code == 404
    token = sign_in(client, user)
    assert client.post("/my-events/calendar-link", data={"csrf_token": token}).status_code == 404


def test_the_week_shows_the_end_of_bidding_on_the_companys_adverts(as_demo):
    client, _token = as_demo("seller")
    seller = demo_user("seller@demo.test")
    advert = db.session.scalars(
        _all(
            select(Advert).where(
                Advert.status == "published", Advert.instance_id == seller.active_instance_id
            )
        )
    ).first()
    page = client.get(f"/my-events?week={_week(advert.ends_at)}")
    assert page.status_code == 200
    text = page_text(page)
    assert f'href="/market/adverts/{advert.id}"' in text
    local = advert.ends_at.astimezone(STOCKHOLM)
    assert f'<time datetime="{advert.ends_at.isoformat()}">{local:%H:%M}</time>' in text
    assert "Times in Europe/Stockholm" in text


def test_a_day_shows_the_sales_of_that_day_linking_to_the_vehicle(as_demo):
    client, _token = as_demo("seller")
    seller = demo_user("seller@demo.test")
    item = db.session.scalars(
        _all(
            select(PreparationItem).where(
                PreparationItem.state == 7, PreparationItem.instance_id == seller.active_instance_id
            )
        )
    ).first()
    day = item.state_changed_at.astimezone(STOCKHOLM).date().isoformat()
    text = page_text(client.get(f"/my-events?day={day}"))
    assert f'href="/{item.module}/{item.id}"' in text
    assert item.regno in text
    # The neighbouring days are one click away, and the week of that day too.
    assert "Previous day" in text and "Show the whole week" in text


def test_a_station_user_sees_the_deadlines_of_his_stations(as_demo):
    client, _token = as_demo("station")
    station_user = demo_user("station@demo.test")
    mine = select(user_stations.c.station_id).where(user_stations.c.user_id == station_user.id)
    task = db.session.scalars(
        _all(
            select(ItemStationTask)
            .where(ItemStationTask.station_id.in_(mine))
            .order_by(ItemStationTask.id)
        )
    ).first()
    task.status, task.started_at, task.target_minutes = (
        "active",
        utcnow() - timedelta(minutes=10),
        60,
    )
    db.session.flush()
    due = task.started_at + timedelta(minutes=60)
    text = page_text(client.get(f"/my-events?day={due.astimezone(STOCKHOLM).date().isoformat()}"))
    item = db.session.get(PreparationItem, task.item_id)
    assert f'href="/{item.module}/{item.id}"' in text
    assert "Station deadline" in text


def test_an_unreadable_period_shows_this_week(as_demo):
    client, _token = as_demo("seller")
    for query in ("?week=2026-W99", "?day=not-a-day", "?week=x"):
        response = client.get(f"/my-events{query}")
        assert response.status_code == 200
        assert "This week" in page_text(response)


# --- the calendar feed ------------------------------------------------------------------------


def _make_link(client, token) -> str:
    response = client.post("/my-events/calendar-link", data={"csrf_token": token})
    assert response.status_code == 302
    text = page_text(client.get("/my-events"))
    match = re.search(
        r'id="calendar-link" value="http://[^/]+(/my-events/calendar/[^"]+\.ics)"', text
    )
    assert match, "the new link is shown once"
    assert 'id="calendar-link"' not in page_text(client.get("/my-events"))  # and only once
    return match.group(1)


def test_the_feed_is_valid_icalendar_with_the_users_events(app, as_demo, demo_app):
    client, token = as_demo("seller")
    path = _make_link(client, token)
    token_part = path.rsplit("/", 1)[1].removesuffix(".ics")
    assert len(token_part) >= 22  # 128 bits in URL-safe base64
    anonymous = demo_app.test_client()
    response = anonymous.get(path)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/calendar; charset=utf-8"
    body = response.get_data(as_text=True)
    assert body.startswith("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:")
    assert body.endswith("END:VCALENDAR\r\n")
    assert "\n" not in body.replace("\r\n", "")  # CRLF line ends only
    assert all(len(line.encode()) <= 75 for line in body.split("\r\n"))
    assert "X-WR-TIMEZONE:Europe/Stockholm" in body
    assert body.count("BEGIN:VEVENT") == body.count("END:VEVENT") >= 1
    assert re.search(r"DTSTART:\d{8}T\d{6}Z\r\n", body)
    seller = demo_user("seller@demo.test")
    advert = db.session.scalars(
        _all(
            select(Advert).where(
                Advert.status == "published",
                Advert.instance_id == seller.active_instance_id,
                Advert.ends_at < utcnow() + timedelta(days=90),
            )
        )
    ).first()
    if advert is not None:
        assert f"UID:advert-{advert.id}@" in body


def test_a_wrong_token_a_replaced_link_and_a_turned_off_link_answer_404(as_demo, demo_app):
    client, token = as_demo("seller")
    anonymous = demo_app.test_client()
    assert anonymous.get("/my-events/calendar/not-the-token.ics").status_code == 404
    first = _make_link(client, token)
    second = _make_link(client, token)
    assert anonymous.get(first).status_code == 404
    assert anonymous.get(second).status_code == 200
    assert (
        client.post("/my-events/calendar-link/delete", data={"csrf_token": token}).status_code
        == 302
    )
    assert anonymous.get(second).status_code == 404


def test_rfc5545_escaping_and_folding():
    assert escape("a,b;c\\d\ne") == "a\\,b\\;c\\\\d\\ne"
    long = "SUMMARY:" + "å" * 60
    folded = fold(long)
    assert all(len(part.encode()) <= 75 for part in folded.split("\r\n"))
    assert folded.replace("\r\n ", "") == long
    event = Event(
        "market",
        datetime(2026, 11, 24, 9, 0, tzinfo=UTC),
        "Volvo, V60",
        "2 bids",
        "/market/adverts/1",
        "advert-1",
    )
    with_app = calendar(
        [event],
        name="My events",
        zone="Europe/Oslo",
        host="x.test",
        base_url="https://x.test/",
        now=event.at,
    )
    assert "DTSTART:20261124T090000Z\r\n" in with_app
    assert "DTEND:20261124T093000Z\r\n" in with_app
    assert "SUMMARY:Bidding ends: Volvo\\, V60\r\n" in with_app
    assert "URL:https://x.test/market/adverts/1\r\n" in with_app
