"""The menu tree island in Chromium (issue 17): React hydrates the server's menus without moving
anything, a keyboard alone walks the tree, groups open and close, and the counts refresh on the
system-message poll's `dc:poll` event while the page stays open."""

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import delete, select

from app.auth.models import User
from app.core.models import Division
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import ItemStateEvent, PreparationItem
from app.preparation.services import add_item, recount
from tests.browser.test_shell import is_phone, menu, menu_entry, sign_in

pytestmark = pytest.mark.browser
BOTH_WIDTHS = pytest.mark.parametrize("viewport", ["1280", "375"], indirect=True)

# Records every layout shift from the first paint on, with the elements that moved.
WATCH_SHIFTS = """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    window.__shifts.push({
      value: entry.value,
      nodes: (entry.sources || []).map((s) => s.node && s.node.nodeType === 1
        ? s.node.closest('.shell-nav, .user-menu') ? 'menu' : s.node.tagName
        : 'text'),
    });
  }
}).observe({ type: 'layout-shift', buffered: true });
"""


def react_roots(page) -> dict:
    return page.evaluate(
        """() => {
          const isRoot = (el) => !!el && Object.keys(el).some((k) => k.startsWith('__reactContainer$'));
          return {
            nav: isRoot(document.querySelector('nav[data-menu-tree]')),
            user: isRoot(document.querySelector('ul[data-user-menu]')),
          };
        }"""
    )


def focused_key(page) -> str | None:
    return page.evaluate("document.activeElement.closest('[data-menu-key]')?.dataset.menuKey")


@BOTH_WIDTHS
def test_react_takes_the_menus_over_without_moving_anything(page, snap):
    sign_in(page, "seller@demo.test")
    page.add_init_script(WATCH_SHIFTS)
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto("/begcare/items/incoming")
    expect(menu(page).locator('ul[data-react="menu-tree"]')).to_have_count(1)
    assert react_roots(page) == {"nav": True, "user": True}
    expect(menu(page).get_by_role("tree", name="Main menu", include_hidden=True)).to_have_count(1)
    page.wait_for_timeout(300)
    shifts = page.evaluate("window.__shifts")
    assert [s for s in shifts if "menu" in s["nodes"]] == [], shifts
    assert sum(s["value"] for s in shifts if "menu" in s["nodes"]) == 0
    assert not [e for e in errors if "hydrat" in e.lower() or "menu tree" in e.lower()], errors
    if is_phone(page):
        page.get_by_role("link", name="Menu").click()
        expect(menu(page)).to_be_visible()
    snap(page, "menu-tree-hydrated", widths=(str(page.viewport_size["width"]),))


def test_a_keyboard_alone_walks_the_menu_tree(page):
    sign_in(page, "seller@demo.test")
    page.goto("/begcare/items/incoming")
    expect(menu(page).locator('ul[data-react="menu-tree"]')).to_have_count(1)
    # One tab stop: the current page's entry.
    current = menu_entry(page, "begcare.items.incoming")
    expect(current).to_have_attribute("tabindex", "0")
    expect(menu_entry(page, "begcare.items.leads")).to_have_attribute("tabindex", "-1")
    current.focus()
    page.keyboard.press("ArrowDown")
    assert focused_key(page) == "begcare.items.awaiting"
    page.keyboard.press("ArrowLeft")
    assert focused_key(page) == "begcare"
    page.keyboard.press("ArrowLeft")
    expect(menu_entry(page, "begcare")).to_have_attribute("aria-expanded", "false")
    expect(menu_entry(page, "begcare.items.incoming")).to_be_hidden()
    page.keyboard.press("ArrowRight")
    expect(menu_entry(page, "begcare")).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("ArrowRight")
    assert focused_key(page) == "begcare.dashboard"
    page.keyboard.press("Home")
    assert focused_key(page) == "my-dashboard"
    page.keyboard.press("End")
    assert focused_key(page) == "bookings"  # the main menu's last entry
    page.keyboard.press("ArrowUp")
    last = focused_key(page)
    assert last == "market"
    # Open the market with the keyboard and follow one of its links with Enter.
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert focused_key(page) == "market.dashboard"
    page.keyboard.press("Escape")
    assert focused_key(page) == "market"
    expect(menu_entry(page, "market")).to_have_attribute("aria-expanded", "false")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/purchase-analysis$|/newcare$|/quick-test$"))


@pytest.mark.parametrize("viewport", ["375"], indirect=True)
def test_on_a_phone_escape_closes_the_menu_and_the_tree_reaches_the_phone_entries(page):
    sign_in(page, "seller@demo.test")
    page.goto("/begcare/items/incoming")
    expect(menu(page).locator('ul[data-react="menu-tree"]')).to_have_count(1)
    toggle = page.get_by_role("link", name="Menu")
    toggle.click()
    expect(menu(page)).to_be_visible()
    menu_entry(page, "my-dashboard").focus()
    page.keyboard.press("End")
    assert focused_key(page) == "logout", "the phone-only entries are part of the tree"
    page.keyboard.press("Escape")
    expect(menu(page)).to_be_hidden()
    expect(toggle).to_be_focused()


def test_the_user_menu_is_walked_with_the_arrow_keys_and_closed_with_escape(page):
    sign_in(page, "seller@demo.test")
    page.goto("/begcare/items/incoming")
    summary = page.locator(".user-menu > summary")
    summary.click()
    items = page.locator("ul[data-user-menu] a, ul[data-user-menu] button")
    items.first.focus()
    page.keyboard.press("ArrowDown")
    expect(items.nth(1)).to_be_focused()
    page.keyboard.press("End")
    expect(items.last).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator(".user-menu")).not_to_have_attribute("open", "")
    expect(summary).to_be_focused()


def test_counts_refresh_on_the_poll_event_while_the_page_stays_open(page, live_server):
    sign_in(page, "seller@demo.test")
    page.goto("/begcare/items/list")
    expect(menu(page).locator('ul[data-react="menu-tree"]')).to_have_count(1)
    badge = menu_entry(page, "begcare.items.incoming").locator(".nav-count")
    before = int(badge.text_content())
    with live_server.app.app_context():
        seller = db.session.scalars(select(User).where(User.email == "seller@demo.test")).one()
        activate(seller.active_instance_id)
        division = db.session.scalars(select(Division).order_by(Division.id)).first()
        item = add_item(
            PreparationItem(
                instance_id=seller.active_instance_id, module="begcare", division_id=division.id,
                state=2, regno="POLL17", brand="Volvo", model="EX30",
            )
        )  # fmt: skip
        db.session.commit()
        item_id = item.id
    try:
        page.evaluate("window.dispatchEvent(new Event('dc:poll'))")
        expect(badge).to_have_text(str(before + 1))
        expect(badge).to_have_attribute("aria-label", f"{before + 1} vehicles")
    finally:
        with live_server.app.app_context():
            item = db.session.get(PreparationItem, item_id)
            instance_id = item.instance_id
            activate(instance_id)
            db.session.execute(delete(ItemStateEvent).where(ItemStateEvent.item_id == item_id))
            db.session.delete(item)
            db.session.flush()
            recount(instance_id)  # the counters and the counts version as before the test
            db.session.commit()
