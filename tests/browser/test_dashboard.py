"""My dashboard in a real browser at 1280 and 375 px: every widget type shows, a widget is
dragged elsewhere by mouse and by keyboard and the order stays after a reload, a widget reloads
by itself every autoUpdate seconds, and the seen markers of a custom-list widget toggle (a marker
set elsewhere opens the notification). The seller's layout and markers are put back after."""

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import delete, select

from app.auth.models import User
from app.core.tenancy import activate
from app.dashboard.models import DashboardWidget
from app.demo import DEMO_PASSWORD
from app.extensions import db
from app.preparation.models import CustomListSeen
from tests.browser.conftest import eventually

pytestmark = pytest.mark.browser
WIDTHS = pytest.mark.parametrize("viewport", ["1280", "375"], indirect=True)


def sign_in(page, email: str = "seller@demo.test") -> None:
    page.goto("/login")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).not_to_have_url(re.compile(r"/login"))


@pytest.fixture
def seller(live_server):
    """The seller's id and instance; the seller's widget order and seen markers are put back."""
    with live_server.app.app_context():
        user = db.session.scalars(select(User).where(User.email == "seller@demo.test")).one()
        activate(user.active_instance_id)
        ids = (user.id, user.active_instance_id)
        saved = {
            w.id: (w.position, w.title, w.auto_update)
            for w in db.session.scalars(
                select(DashboardWidget).where(DashboardWidget.user_id == user.id)
            )
        }
    yield ids
    with live_server.app.app_context():
        activate(ids[1])
        for widget in db.session.scalars(
            select(DashboardWidget).where(DashboardWidget.user_id == ids[0])
        ):
            if widget.id in saved:
                widget.position, widget.title, widget.auto_update = saved[widget.id]
            else:
                db.session.delete(widget)
        db.session.execute(delete(CustomListSeen).where(CustomListSeen.user_id == ids[0]))
        db.session.commit()


def widget_order(page) -> list[str]:
    return page.locator(".dashboard-grid > .widget-card").evaluate_all(
        "cards => cards.map(c => c.dataset.widgetId)"
    )


def open_dashboard(page) -> None:
    page.goto("/my-dashboard")
    expect(page.locator(".widget-card").first).to_be_visible()
    # every widget has loaded: no skeleton left
    expect(page.locator(".widget-skeleton")).to_have_count(0)


@WIDTHS
def test_every_widget_type_shows_with_its_values(page, live_server, seller, snap):
    sign_in(page)
    open_dashboard(page)
    types = set(
        page.locator(".widget-card").evaluate_all("cs => cs.map(c => c.dataset.widgetType)")
    )
    assert types == {
        "number", "chart", "numberSummary", "list", "customList", "tier", "bookings", "reconCost",
        "error",
    }  # fmt: skip
    expect(page.locator('[data-widget-type="error"]')).to_contain_text(
        "insufficient permissions to view data"
    )
    expect(page.locator('[data-widget-type="tier"]')).to_contain_text("points")
    expect(page.locator('[data-widget-type="chart"] canvas').first).to_be_visible()
    expect(page.locator('[data-widget-type="chart"] table').first).to_contain_text("Value")
    # the list widget links to the overview with its filter
    flow = page.locator('[data-widget-type="list"] a').nth(3)
    expect(flow).to_have_attribute("href", re.compile(r"^/begcare/overview\?enum%5Bstate%5D=4$"))
    if page.viewport_size["width"] == 1280:
        snap(page, "dashboard-seller")


@WIDTHS
def test_a_widget_dragged_with_the_mouse_stays_there_after_a_reload(page, live_server, seller):
    sign_in(page)
    open_dashboard(page)
    before = widget_order(page)
    handle = page.locator(f'.widget-card[data-widget-id="{before[0]}"] .widget-handle')
    target = page.locator(f'.widget-card[data-widget-id="{before[2]}"]')
    target.scroll_into_view_if_needed()
    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    goal = target.bounding_box()
    with page.expect_response(lambda r: "/api/dashboards/my/layout" in r.url) as saved:
        page.mouse.move(box["x"] + 10, box["y"] + 10, steps=3)
        page.mouse.move(goal["x"] + goal["width"] / 2, goal["y"] + goal["height"] / 2, steps=12)
        page.mouse.up()
    assert saved.value.status == 204
    after = widget_order(page)
    assert after != before and after.index(before[0]) > 0
    page.reload()
    expect(page.locator(".widget-card").first).to_be_visible()
    assert widget_order(page) == after


@WIDTHS
def test_a_widget_moved_with_the_keyboard_stays_there_after_a_reload(page, live_server, seller):
    sign_in(page)
    open_dashboard(page)
    before = widget_order(page)
    handle = page.locator(f'.widget-card[data-widget-id="{before[1]}"] .widget-handle')
    handle.focus()
    with page.expect_response(lambda r: "/api/dashboards/my/layout" in r.url) as saved:
        page.keyboard.press("Space")
        live = page.locator("[id^=DndLiveRegion]")
        expect(live).to_contain_text("is over place 2")  # picked up, over its own place
        page.keyboard.press("ArrowDown")
        expect(live).not_to_contain_text("is over place 2")
        page.keyboard.press("Space")
    assert saved.value.status == 204
    after = widget_order(page)
    assert after != before
    page.reload()
    expect(page.locator(".widget-card").first).to_be_visible()
    assert widget_order(page) == after


@WIDTHS
def test_a_widget_reloads_every_auto_update_seconds(page, live_server, seller):
    sign_in(page)
    with live_server.app.app_context():
        activate(seller[1])
        widget = db.session.scalars(
            select(DashboardWidget).where(
                DashboardWidget.user_id == seller[0], DashboardWidget.auto_update > 0
            )
        ).first()
        widget_id, seconds = widget.id, widget.auto_update
    loads = []
    page.on(
        "request",
        lambda r: (
            loads.append(r.url) if r.url.endswith(f"/api/dashboard-widgets/{widget_id}") else None
        ),
    )
    page.clock.install()
    open_dashboard(page)
    assert len(loads) == 1
    page.clock.run_for((seconds - 5) * 1000)
    page.wait_for_timeout(100)
    assert len(loads) == 1  # not yet
    page.clock.run_for(6 * 1000)
    expect(page.locator(f'.widget-card[data-widget-id="{widget_id}"]')).to_have_attribute(
        "aria-busy", "false"
    )
    eventually(page, lambda: len(loads) == 2, "the widget reloads once its time has come")
    page.clock.run_for(seconds * 1000)
    eventually(page, lambda: len(loads) == 3, "and again after as long again")
    expect(page.locator(f'.widget-card[data-widget-id="{widget_id}"] [data-testid="widget-value"]')).to_be_visible()  # fmt: skip


@WIDTHS
def test_the_custom_list_widget_toggles_seen_markers(page, live_server, seller):
    sign_in(page)
    open_dashboard(page)
    card = page.locator('.widget-card[data-widget-type="customList"]')
    rows = card.locator("tbody tr")
    first, second = rows.nth(0), rows.nth(1)
    button = first.get_by_role("button")
    expect(button).to_have_attribute("aria-pressed", "false")
    expect(first).to_have_class(re.compile(r"\brow-unseen\b"))
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    expect(first).not_to_have_class(re.compile(r"\brow-unseen\b"))
    button.click()
    expect(button).to_have_attribute("aria-pressed", "false")
    expect(first).to_have_class(re.compile(r"\brow-unseen\b"))
    # a marker set elsewhere (another tab): the create answers 422 and the notification opens
    item_id = int(second.get_attribute("data-item-id"))
    with live_server.app.app_context():
        activate(seller[1])
        list_id = db.session.scalar(
            select(DashboardWidget).where(
                DashboardWidget.user_id == seller[0], DashboardWidget.type == "customList"
            )
        ).options["customListId"]
        db.session.add(CustomListSeen(custom_list_id=list_id, item_id=item_id, user_id=seller[0]))
        db.session.commit()
    second.get_by_role("button").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Notification")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_have_count(0)
    expect(second.get_by_role("button")).to_have_attribute("aria-pressed", "true")


@WIDTHS
def test_editing_a_widget_shows_each_refusal_keeps_the_input_and_saves(page, live_server, seller):
    sign_in(page)
    open_dashboard(page)
    card = page.locator(".widget-card").first
    widget_id = card.get_attribute("data-widget-id")
    card.get_by_role("button", name=re.compile(r"^Edit")).click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Label").fill("Flödet nu")
    dialog.get_by_label("Auto-update (seconds)").fill("5")
    dialog.get_by_role("button", name="Save widget").click()
    expect(dialog.get_by_role("alert")).to_contain_text("Check the fields marked below.")
    expect(dialog.locator("#we-auto-error")).to_contain_text("between 10 and 3600 seconds")
    expect(dialog.get_by_label("Label")).to_have_value("Flödet nu")  # the input is kept
    expect(dialog.get_by_label("Auto-update (seconds)")).to_have_value("5")
    dialog.get_by_label("Auto-update (seconds)").fill("30")
    dialog.get_by_role("button", name="Save widget").click()
    expect(dialog).to_have_count(0)
    card = page.locator(f'.widget-card[data-widget-id="{widget_id}"]')
    expect(card.locator(".widget-label")).to_contain_text("Flödet nu")
    expect(card.locator('[data-testid="widget-value"]')).to_be_visible()
    page.reload()
    expect(page.locator(f'.widget-card[data-widget-id="{widget_id}"] .widget-label')).to_contain_text("Flödet nu")  # fmt: skip


def test_the_begcare_dashboard_shows_the_modules_own_widgets(page, live_server, seller):
    sign_in(page)
    page.goto("/begcare/dashboard")
    expect(page.locator(".widget-card").first).to_be_visible()
    expect(page.locator(".widget-skeleton")).to_have_count(0)
    assert page.locator('.widget-card[data-widget-type="error"]').count() == 0
    labels = page.locator(".widget-label").all_inner_texts()
    assert labels and not any("New vehicles" in label for label in labels)
