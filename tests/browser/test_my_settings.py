"""My settings in a real browser: a new language and time zone take effect at once, and the
chosen landing page (a custom list) is where the next sign-in lands (issue 12, done-when)."""

import re
from datetime import datetime

import pytest
import pytz
from playwright.sync_api import expect
from sqlalchemy import select

from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import CustomList, ItemStationTask, PreparationItem
from tests.browser.test_auth_flows import find, restore, sign_in, text  # noqa: F401

pytestmark = pytest.mark.browser


def _item_with_a_started_task(live_server) -> tuple[int, datetime, int, str]:
    """(item id, a task's start, the seller's first custom list id and name)."""
    with live_server.app.app_context():
        seller = find("seller@demo.test")
        activate(seller.active_instance_id)
        task, item = db.session.execute(
            select(ItemStationTask, PreparationItem)
            .join(PreparationItem, PreparationItem.id == ItemStationTask.item_id)
            .where(ItemStationTask.started_at.is_not(None), PreparationItem.module == "begcare")
            .order_by(ItemStationTask.id)
        ).first()
        custom = db.session.scalars(
            select(CustomList).where(CustomList.user_id == seller.id).order_by(CustomList.name)
        ).first()
        activate(None)
        return item.id, task.started_at, custom.id, custom.name


def _local(moment: datetime, zone: str) -> str:
    return moment.astimezone(pytz.timezone(zone)).strftime("%Y-%m-%d %H:%M")


def _save_and_wait_for_reload(page) -> None:
    page.evaluate("window.__beforeReload = true")
    page.get_by_role("button", name=re.compile(r"^(Save|Speichern)$")).click()
    page.wait_for_function("() => window.__beforeReload === undefined")


def test_language_and_time_zone_take_effect_at_once_and_the_landing_page_at_next_sign_in(
    page,
    live_server,
    restore,  # noqa: F811 - the fixture imported above
    snap,
):
    restore("seller@demo.test")
    item_id, started, list_id, list_name = _item_with_a_started_task(live_server)
    sign_in(page, "seller@demo.test")

    # The demo seller reads Stockholm time.
    page.goto(f"/begcare/{item_id}")
    expect(page.locator("main")).to_contain_text(_local(started, "Europe/Stockholm"))

    # German and Tokyo: the page comes back in German with Tokyo's times.
    page.goto("/user")
    expect(page.get_by_label("Time zone")).to_have_value("Europe/Stockholm")
    page.get_by_label("Language", exact=True).select_option("de-DE")
    page.get_by_label("Time zone").select_option("Asia/Tokyo")
    _save_and_wait_for_reload(page)
    expect(page.locator("html")).to_have_attribute("lang", "de-DE")
    expect(page.get_by_label(text(live_server, "Time zone", "de_DE"))).to_have_value("Asia/Tokyo")
    page.goto(f"/begcare/{item_id}")
    expect(page.locator("main")).to_contain_text(_local(started, "Asia/Tokyo"))

    # Back to English and Stockholm, with one of the custom lists as the landing page.
    page.goto("/user")
    page.get_by_label(text(live_server, "Language", "de_DE"), exact=True).select_option("en-GB")
    page.get_by_label(text(live_server, "Time zone", "de_DE")).select_option("Europe/Stockholm")
    page.get_by_label(text(live_server, "Landing page", "de_DE")).select_option(
        f"/custom-list/{list_id}/list"
    )
    _save_and_wait_for_reload(page)
    expect(page.locator("html")).to_have_attribute("lang", "en-GB")
    expect(page.get_by_label("Landing page")).to_have_value(f"/custom-list/{list_id}/list")
    snap(page, "my-settings")

    # The next sign-in lands on the list, and times are Stockholm's again.
    page.context.clear_cookies()
    sign_in(page, "seller@demo.test")
    expect(page).to_have_url(re.compile(rf"/custom-list/{list_id}/list$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text(list_name)
    page.goto(f"/begcare/{item_id}")
    expect(page.locator("main")).to_contain_text(_local(started, "Europe/Stockholm"))


def test_my_events_shows_the_week_and_makes_a_calendar_link(page, live_server, snap):
    sign_in(page, "seller@demo.test")
    page.goto("/my-events")
    expect(page.get_by_role("heading", level=1)).to_have_text("My events")
    expect(page.locator(".events-day")).to_have_count(7)
    snap(page, "my-events")
    page.get_by_role("button", name="Make a calendar link").click()
    link = page.get_by_label(re.compile("Your calendar link"))
    expect(link).to_have_value(re.compile(r"/my-events/calendar/[A-Za-z0-9_-]{22}\.ics$"))
    feed = page.request.get(link.input_value())
    assert feed.status == 200
    assert feed.text().startswith("BEGIN:VCALENDAR")
    page.get_by_role("button", name="Turn the link off").click()
    assert page.request.get(feed.url).status == 404
