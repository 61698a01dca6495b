"""A day at work without friction (issue 37): the desk at 1280 px in English and the station phone
at 375 px in Swedish, with the demo's news dialog, its maintenance alert and the ranking summary
all unseen. One dialog at a time; Close remembered across pages (and the station's Start and
Finish); the station user lands on their station's vehicles; no alert covers a control; a closed
alert stays closed on the next page; the desk's widget actions show only their verb.

The viewed records the walks write for the demo users are deleted again at the end.
"""

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import delete, select

from app.auth.models import User
from app.core.audit import AuditLog
from app.extensions import db
from app.messages.models import SystemMessageView
from app.preparation.items import item_path
from app.preparation.models import ItemStationTask, PreparationItem
from tests.browser.test_station import sign_in, waiting_vehicle  # noqa: F401 (a fixture)

pytestmark = pytest.mark.browser

# Every visible control whose centre (of its first line box), once scrolled into view, is not the control itself (or
# inside it): something lies over it. Controls off-screen by design (the skip link) are left out.
COVERED_JS = """() => {
  const controls = document.querySelectorAll(
    'a[href], button, input:not([type=hidden]), select, textarea, summary');
  const covered = [];
  for (const el of controls) {
    const box = el.getBoundingClientRect();
    if (box.width < 2 || box.height < 2) continue;
    if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
    el.scrollIntoView({block: 'center', inline: 'center'});
    const r = el.getClientRects()[0];  // a link broken over two lines: its first line
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
    const hit = document.elementFromPoint(x, y);
    if (hit && (hit === el || el.contains(hit))) continue;
    covered.push(`${el.tagName} "${(el.innerText || el.value || el.getAttribute('aria-label') || '')
      .trim().slice(0, 40)}" under ${hit ? hit.tagName + '.' + hit.className : 'nothing'}`);
  }
  scrollTo(0, 0);
  return covered;
}"""


def dialogs(page):
    return page.get_by_role("dialog")


def assert_nothing_covered(page) -> None:
    assert page.evaluate(COVERED_JS) == []


def settle(page) -> None:
    """Wait until the page's own scripts ran: the messages poll answered and the ranking
    summary's 1000 ms wait is over."""
    expect(page.locator('[data-island="system-messages"][data-island-mounted]')).to_be_attached()
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(1300)


@pytest.fixture
def forget_views(live_server):
    """The server's viewed records of the demo users, deleted after the walk."""
    yield
    with live_server.app.app_context():
        users = select(User.id).where(User.email.in_(["seller@demo.test", "station@demo.test"]))
        db.session.execute(delete(SystemMessageView).where(SystemMessageView.user_id.in_(users)))
        db.session.commit()


def another_vehicle(app, item_id: int) -> str:
    """The page of another vehicle of the same division in a state with a manage page."""
    with app.app_context():
        item = db.session.get(PreparationItem, item_id)
        other = db.session.scalars(
            select(PreparationItem)
            .where(
                PreparationItem.division_id == item.division_id,
                PreparationItem.module == "begcare",
                PreparationItem.state.in_([2, 3, 4]),
                PreparationItem.id != item_id,
            )
            .order_by(PreparationItem.id)
            .execution_options(all_instances=True)
        ).first()
        path = item_path(other.module, other.state, other.id)
        db.session.remove()
        return path


def test_the_desk_at_1280_px(new_page, live_server, waiting_vehicle, forget_views, snap):  # noqa: F811
    regno, item_id, _wash_id = waiting_vehicle
    page = new_page(quiet=False)
    sign_in(page, "seller@demo.test")
    news = dialogs(page).get_by_role("heading", name="New: the ranking of your divisions")
    expect(news).to_be_visible()

    page.goto(f"/begcare/{item_id}")  # the vehicle's division has a ranking summary
    expect(news).to_be_visible()
    settle(page)
    expect(dialogs(page)).to_have_count(1)  # the summary waits for its turn
    snap(page, "day-desk-news", widths=("1280",))
    dialogs(page).get_by_role("button", name="Close").click()
    expect(dialogs(page).get_by_role("heading", name="Ranking of Nordbil Solna")).to_be_visible()
    expect(dialogs(page)).to_have_count(1)
    dialogs(page).get_by_role("button", name="Close").click()
    expect(dialogs(page)).to_have_count(0)

    # A confirmation and the maintenance alert: neither covers a control; no dialog comes back.
    page.get_by_label("Comment", exact=True).fill("Lack poleras på fredag.")
    page.get_by_role("button", name="Add comment").click()
    expect(page.get_by_role("status").get_by_text("The comment is added.")).to_be_visible()
    maintenance = page.locator(".alert", has_text="Planned maintenance")
    expect(maintenance).to_be_visible()
    settle(page)
    expect(dialogs(page)).to_have_count(0)
    snap(page, "day-desk-confirmation", widths=("1280",))
    assert_nothing_covered(page)

    page.goto(another_vehicle(live_server.app, item_id))  # same division: summary seen
    settle(page)
    expect(dialogs(page)).to_have_count(0)

    page.goto("/begcare/overview")  # pagination at the foot of the page
    expect(page.get_by_role("navigation", name=re.compile("Pagination|Pages"))).to_be_visible()
    expect(maintenance).to_be_visible()
    settle(page)
    expect(dialogs(page)).to_have_count(0)
    snap(page, "day-desk-overview", widths=("1280",))
    assert_nothing_covered(page)

    page.goto("/my-dashboard")  # widget actions show their verb; the title is for screen readers
    actions = page.locator(".widget-actions button")
    expect(actions.first).to_be_visible()
    shown = actions.evaluate_all(
        """buttons => buttons.map(b => [...b.childNodes]
            .filter(n => n.nodeType === Node.TEXT_NODE || n.getBoundingClientRect().width > 1)
            .map(n => n.textContent.trim()).join(''))"""
    )
    assert set(shown) == {"Edit", "Copy", "Remove"}
    # The summary's percentages say what they are a share of.
    summary = page.locator(".widget-summary").first
    expect(summary.locator(".summary-section").first).to_contain_text("of all vehicles")
    expect(summary.locator(".summary-item").first).to_contain_text(re.compile(r"\d+\s% of \w"))
    expect(maintenance).to_be_visible()
    assert_nothing_covered(page)
    snap(page, "day-desk-dashboard")

    maintenance.get_by_role("button", name="Close").click()
    expect(maintenance).to_have_count(0)
    page.goto("/begcare/overview?page=2")
    settle(page)
    expect(page.locator(".alert", has_text="Planned maintenance")).to_have_count(0)
    expect(dialogs(page)).to_have_count(0)


def test_the_station_at_375_px(new_page, live_server, waiting_vehicle, forget_views, snap):  # noqa: F811
    regno, item_id, wash_id = waiting_vehicle
    page = new_page(locale="sv-SE", viewport={"width": 375, "height": 740}, quiet=False)
    page.goto("/login?lang=sv")
    page.get_by_label("E-post").fill("station@demo.test")
    page.get_by_label("Lösenord").fill("demo-pass-1")
    page.get_by_role("button", name="Logga in").click()
    expect(page).to_have_url(re.compile(r"/begcare/station/vehicles$"))  # their landing page
    expect(dialogs(page)).to_have_count(1)
    dialogs(page).get_by_role("button", name="Stäng").click()
    expect(dialogs(page)).to_have_count(0)

    card = page.locator(f'.station-card[data-item-id="{item_id}"]')
    maintenance = page.locator(".alert", has_text="Planerat underhåll")
    done_today = page.get_by_role("region", name=re.compile("Klart i dag"))
    page.evaluate("window.samePage = true")  # gone after any page load
    for action, done in (("start", "startad"), ("finish", "avslutad")):
        card.locator(f'button[data-action="{action}"]').click()
        expect(page.get_by_role("status").get_by_text(re.compile(done))).to_be_visible()
        expect(maintenance).to_be_visible()
        settle(page)
        expect(dialogs(page)).to_have_count(0)  # Close was remembered
        if action == "start":
            expect(card.locator('button[data-action="finish"]')).to_be_visible()
            snap(page, "day-station-started", widths=("375",))
        assert_nothing_covered(page)
    assert page.evaluate("window.samePage === true")  # answered in place, no page load
    expect(card).to_have_count(0)

    # Done today, with an undo: the task is in progress again, the card back, the undo in history.
    expect(done_today.get_by_role("link", name=regno)).to_be_visible()
    snap(page, "day-station-done-today", widths=("375",))
    assert_nothing_covered(page)
    done_today.locator(f'[data-item-id="{item_id}"] button[data-action="undo"]').click()
    expect(page.get_by_role("status").get_by_text(re.compile("pågår igen"))).to_be_visible()
    expect(card.locator('button[data-action="finish"]')).to_be_visible()
    expect(done_today).to_have_count(0)
    assert page.evaluate("window.samePage === true")
    assert_nothing_covered(page)
    with live_server.app.app_context():
        task = db.session.get(ItemStationTask, wash_id)
        assert (task.status, task.finished_at) == ("active", None)
        undone = db.session.scalars(
            select(AuditLog).where(AuditLog.action == "preparation.task.undo")
            .order_by(AuditLog.id.desc()).execution_options(all_instances=True)
        ).first()  # fmt: skip
        assert undone is not None and undone.details["task_id"] == wash_id
        db.session.remove()
    card.locator('button[data-action="finish"]').click()  # finished again: the desk-width look
    expect(done_today.get_by_role("link", name=regno)).to_be_visible()
    snap(page, "day-station-done-today", widths=("1280",))

    maintenance.get_by_role("button", name="Stäng").click()
    expect(maintenance).to_have_count(0)
    page.goto("/begcare/station/profile")
    settle(page)
    expect(page.locator(".alert", has_text="Planerat underhåll")).to_have_count(0)
    expect(dialogs(page)).to_have_count(0)


@pytest.fixture
def state_put_back(live_server, waiting_vehicle):  # noqa: F811
    """The waiting vehicle, its state put back after the walk moves it."""
    regno, item_id, wash_id = waiting_vehicle
    with live_server.app.app_context():
        item = db.session.get(PreparationItem, item_id)
        state, changed = item.state, item.state_changed_at
        db.session.remove()
    yield regno, item_id, wash_id
    with live_server.app.app_context():
        item = db.session.get(PreparationItem, item_id)
        item.state, item.state_changed_at = state, changed
        db.session.commit()


def test_the_desk_moves_a_vehicle_in_place_and_comments_with_an_image(
    new_page, live_server, state_put_back, forget_views, snap
):
    """At 1280 px in English: a state button answers in place (no page load), a comment takes
    an image, and the page's times are the seller's (Stockholm), not UTC."""
    import io

    import pytz
    from PIL import Image

    from app.preparation.models import ItemComment

    regno, item_id, _wash_id = state_put_back
    page = new_page(quiet=False)
    sign_in(page, "seller@demo.test")
    page.goto(f"/begcare/{item_id}")
    settle(page)
    while dialogs(page).count():
        dialogs(page).get_by_role("button", name="Close").first.click()
        settle(page)

    out = io.BytesIO()
    Image.new("RGB", (640, 480), (200, 40, 40)).save(out, "PNG")
    page.get_by_label("Comment", exact=True).fill("Repa på bakluckan.")
    page.get_by_label("Images").set_input_files(
        files=[{"name": "repa.png", "mimeType": "image/png", "buffer": out.getvalue()}]
    )
    page.get_by_role("button", name="Add comment").click()
    expect(page.get_by_role("status").get_by_text("The comment is added.")).to_be_visible()
    image = page.locator(".comment-images img[alt='repa.png']")
    expect(image).to_be_visible()
    # served to the seller: the image loads (a state, waited for; it never loads if refused)
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=image.element_handle()
    )
    with live_server.app.app_context():
        comment = db.session.scalars(
            select(ItemComment)
            .where(ItemComment.item_id == item_id)
            .order_by(ItemComment.id.desc())
        ).first()
        stockholm = comment.created_at.astimezone(pytz.timezone("Europe/Stockholm"))
        db.session.remove()
    meta = page.locator(".comment-meta").first
    expect(meta).to_contain_text(stockholm.strftime("%Y-%m-%d %H:%M"))  # the viewer's zone

    page.evaluate("window.samePage = true")  # gone after any page load
    badge = page.locator(".item-summary .badge").first
    before = badge.inner_text()
    counts = "() => [...document.querySelectorAll('nav .nav-count')].map(c => c.textContent).join()"
    counts_before = page.evaluate(counts)
    assert counts_before  # the module's state entries show their counts
    button = page.locator(".state-buttons button").first
    target = button.inner_text()
    button.click()
    expect(page.get_by_role("status").get_by_text(re.compile("moved to"))).to_be_visible()
    expect(badge).not_to_have_text(before)
    # The menu's counts follow the move without a page load (one state lost it, one gained it).
    page.wait_for_function(f"before => ({counts})() !== before", arg=counts_before)
    assert page.evaluate("window.samePage === true")  # answered in place
    assert target
    snap(page, "day-desk-vehicle-moved")
    assert_nothing_covered(page)
