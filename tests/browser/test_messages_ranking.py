"""System messages and the ranking summary in a real browser (spec 01 sections 3, 4, 7 and 9):
the demo's alert and dialog in the language of the reader's company; an admin publishes a dialog
message that a signed-in seller sees within one poll; the dialog queue (Close and "Do not show again"
record the view, Escape does not), a message coming back after an edit; and the
ranking summary's rules (after a division change, once per division, stop-showing marks all).

Everything a test adds to the live database it deletes again.
"""

import json
import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect
from sqlalchemy import delete, select

from app.auth.models import User
from app.core.models import Division, utcnow
from app.demo import DEMO_PASSWORD
from app.extensions import db
from app.messages.models import SystemMessage, SystemMessageView
from app.messages.services import save
from app.ranking.models import RankingPoints
from app.ranking.services import current_season
from tests.browser.dialogs import messages_seen_script

pytestmark = pytest.mark.browser


def sign_in(page, email: str) -> None:
    page.goto("/login")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).not_to_have_url(re.compile(r"/login"))


def dialog(page):
    return page.get_by_role("dialog")


@pytest.fixture
def made(live_server):
    """Messages a test adds: made(text=...) → id; all deleted (with viewed records) at the end."""
    ids = []

    def make(text: str, **values) -> int:
        with live_server.app.app_context():
            data = {
                "type": "info",
                "message": text,
                "description": f"<p>About {text}.</p>",
                "started_at": utcnow() - timedelta(minutes=1),
                "show_as": "modal",
                "audience": "all",
                **values,
            }
            message = save(SystemMessage(), data, None)
            db.session.commit()
            ids.append(message.id)
            return message.id

    yield make
    with live_server.app.app_context():
        texts = db.session.scalars(
            select(SystemMessage.id).where(SystemMessage.message.like("Browser test%"))
        ).all()
        for message_id in {*ids, *texts}:
            db.session.execute(delete(SystemMessage).where(SystemMessage.id == message_id))
        db.session.commit()


# The demo's messages as each company's users read them, each in their own language (the buyer
# has chosen Norwegian, the seller reads English): alert, dialog title, the menu entry the dialog
# names.
DEMO_MESSAGES = {
    "buyer@demo.test": (
        "Planlagt vedlikehold søndag 06:00–07:00 UTC",
        "Nyhet: rangeringen av dine avdelinger",
        "Rangering",
    ),
    "seller@demo.test": (
        "Planned maintenance on Sunday 06:00–07:00 UTC",
        "New: the ranking of your divisions",
        "Ranking",
    ),
}


def forget_views(app, email: str) -> None:
    """Show the user every message again (another test may have closed a demo alert)."""
    with app.app_context():
        user_id = db.session.scalars(
            select(User.id).where(User.email == email).execution_options(all_instances=True)
        ).one()
        db.session.execute(delete(SystemMessageView).where(SystemMessageView.user_id == user_id))
        db.session.commit()


@pytest.mark.parametrize("email", sorted(DEMO_MESSAGES))
def test_the_demo_messages_in_the_language_of_the_readers_company(
    new_page, live_server, snap, email
):
    alert_text, title, entry = DEMO_MESSAGES[email]
    other_alert, other_title, _entry = next(v for k, v in DEMO_MESSAGES.items() if k != email)
    forget_views(live_server.app, email)
    page = new_page(quiet=False)
    sign_in(page, email)
    expect(dialog(page).get_by_role("heading")).to_have_text(title)
    expect(dialog(page).locator("em")).to_have_text(entry)
    expect(dialog(page).locator("li")).to_have_count(2)
    alert = page.locator(".alert", has_text=alert_text)
    expect(alert).to_be_visible()
    expect(alert.get_by_role("link")).to_have_count(1)  # the description: read more
    for text in (other_alert, other_title, "Planerat underhåll", "Nyhet: rankingen"):
        expect(page.get_by_text(text)).to_have_count(0)
    snap(page, f"demo-messages-{email.split('@')[0]}")


def test_an_admin_publishes_a_dialog_message_the_seller_sees_within_one_poll(
    new_page, live_server, made, snap
):
    seller = new_page()
    seller.clock.install()
    sign_in(seller, "seller@demo.test")
    seller.goto("/user")
    seller.wait_for_timeout(500)
    expect(dialog(seller)).to_have_count(0)

    admin = new_page()
    sign_in(admin, "admin@demo.test")
    admin.goto("/admin/global/system-messages")
    admin.get_by_role("link", name="Add system message").click()
    admin.get_by_label("Message", exact=True).fill("Browser test: the workshop closes at 15:00")
    admin.get_by_label("Description (HTML)").fill(
        '<p>Plan your deliveries.<img src=x onerror="alert(1)"></p><script>alert(2)</script>'
    )
    admin.get_by_label("Dialog").check()
    admin.get_by_role("button", name="Save").click()
    expect(admin.get_by_text("Saved.")).to_be_visible()
    row = admin.locator("tr", has_text="Browser test: the workshop closes at 15:00")
    expect(row.get_by_text("Active")).to_be_visible()

    seller.clock.fast_forward("05:01")  # the next poll, 5 minutes after the first
    expect(dialog(seller)).to_be_visible()
    expect(dialog(seller).get_by_role("heading")).to_have_text(
        "Browser test: the workshop closes at 15:00"
    )
    expect(dialog(seller).get_by_text("Plan your deliveries.")).to_be_visible()
    assert dialog(seller).locator("img[onerror], script").count() == 0
    snap(seller, "system-message-dialog")


def test_the_dialog_queue_close_and_stop_showing_record_escape_does_not_and_an_edit_shows_again(
    new_page, live_server, made
):
    page = new_page()  # the demo's messages are seen; these three are new
    first = made("Browser test first")
    made("Browser test second")
    made("Browser test third")
    sign_in(page, "seller@demo.test")
    page.goto("/user")
    expect(dialog(page).get_by_role("heading")).to_have_text("Browser test first")
    expect(dialog(page).get_by_text("Message 1 of 3")).to_be_visible()
    dialog(page).get_by_role("button", name="Do not show again").click()
    expect(dialog(page).get_by_role("heading")).to_have_text("Browser test second")
    dialog(page).get_by_role("button", name="Close").click()
    expect(dialog(page).get_by_role("heading")).to_have_text("Browser test third")
    page.keyboard.press("Escape")
    expect(dialog(page)).to_have_count(0)
    records = json.loads(page.evaluate("localStorage.getItem('viewedSystemMessages')"))
    with live_server.app.app_context():
        modified = db.session.get(SystemMessage, first).modified_at.isoformat()
    assert {"id": first, "createdAt": modified} in [
        {"id": r["id"], "createdAt": r["createdAt"]} for r in records
    ]

    page.reload()  # Close recorded "second" as stop-showing did "first"; Escape did not
    expect(dialog(page).get_by_role("heading")).to_have_text("Browser test third")
    expect(dialog(page)).to_have_count(1)
    dialog(page).get_by_role("button", name="Close").click()
    expect(dialog(page)).to_have_count(0)

    with live_server.app.app_context():  # an admin edits "first": a new modifiedAt
        message = db.session.get(SystemMessage, first)
        save(
            message,
            {
                "type": "warning",
                "message": "Browser test first, changed",
                "description": message.description,
                "started_at": message.started_at,
                "show_as": "modal",
                "audience": "all",
            },
            None,
        )
        db.session.commit()
    page.reload()
    expect(dialog(page).get_by_role("heading")).to_have_text("Browser test first, changed")
    dialog(page).get_by_role("button", name="Close").click()
    expect(dialog(page)).to_have_count(0)


def test_an_alert_message_with_read_more(new_page, live_server, made):
    page = new_page()
    made(
        "Browser test alert",
        show_as="alert",
        type="warning",
        description="<p>The long story.</p>",
    )
    sign_in(page, "seller@demo.test")
    page.goto("/user")
    alert = page.locator(".alert", has_text="Browser test alert")
    expect(alert).to_be_visible()
    alert.get_by_role("link", name="Read more").click()
    expect(dialog(page).get_by_text("The long story.")).to_be_visible()
    dialog(page).get_by_role("button", name="Close").click()
    alert.get_by_role("button", name="Close").click()
    expect(alert).to_have_count(0)
    page.reload()  # closing an alert records it viewed (on the server too)
    page.wait_for_timeout(500)
    expect(page.locator(".alert", has_text="Browser test alert")).to_have_count(0)


def _row(app, name: str):
    with app.app_context():
        division = db.session.scalars(
            select(Division).where(Division.name == name).execution_options(all_instances=True)
        ).one()
        season = current_season()
        row = db.session.scalars(
            select(RankingPoints)
            .where(RankingPoints.division_id == division.id, RankingPoints.season_id == season.id)
            .execution_options(all_instances=True)
        ).one()
        result = (division.id, season.identifier, row.tier.name, row.position, row.overall_position)
        db.session.remove()
        return result


def choose_division(page, name: str) -> None:
    """Choose in the division selector (its page script submits the choice) and wait for the
    page that shows it."""
    select = page.get_by_label("Divisions", exact=True)
    expect(page.locator("[data-island-mounted]").first).to_be_attached()  # the scripts run
    with page.expect_navigation():
        select.select_option(label=name)
    expect(select.locator("option:checked")).to_have_text(name)


def test_the_ranking_summary_rules(new_page, live_server, snap):
    page = new_page(quiet=False)
    page.context.add_init_script(messages_seen_script(live_server.app))
    sign_in(page, "seller@demo.test")
    page.goto("/user")
    page.wait_for_timeout(1500)
    expect(dialog(page)).to_have_count(0)  # all divisions selected: no summary
    try:
        choose_division(page, "Nordbil Göteborg")
        division_id, season, tier, position, overall = _row(live_server.app, "Nordbil Göteborg")
        expect(dialog(page)).to_have_count(0)  # it waits 1000 ms after the change
        expect(dialog(page)).to_be_visible()
        expect(
            dialog(page).get_by_role("heading", name="Ranking of Nordbil Göteborg")
        ).to_be_visible()
        expect(dialog(page).locator(".ranking-tier").first).to_have_text(tier)
        expect(dialog(page)).to_contain_text(f"Position {position} in the tier, {overall} overall")
        snap(page, "ranking-summary")
        dialog(page).get_by_role("button", name="Close").click()
        viewed = json.loads(page.evaluate("localStorage.getItem('viewedTierSummaryMessages')"))
        assert [(r["divisionId"], r["season"]) for r in viewed] == [(division_id, season)]
        page.reload()
        page.wait_for_timeout(1500)
        expect(dialog(page)).to_have_count(0)  # once per division

        choose_division(page, "Nordbil Borås")
        expect(dialog(page)).to_be_visible()
        dialog(page).get_by_role("button", name="Do not show again").click()
        choose_division(page, "Nordbil Solna")
        page.wait_for_timeout(1500)
        expect(dialog(page)).to_have_count(0)  # stop-showing marked every division
        viewed = json.loads(page.evaluate("localStorage.getItem('viewedTierSummaryMessages')"))
        assert len({r["divisionId"] for r in viewed}) == 4
    finally:
        choose_division(page, "All divisions")


def test_the_ranking_summary_closes_on_navigation_without_marking_it_seen(new_page, live_server):
    page = new_page(quiet=False)
    page.context.add_init_script(messages_seen_script(live_server.app))
    sign_in(page, "seller@demo.test")
    page.goto("/user")
    try:
        choose_division(page, "Nordbil Solna")
        expect(dialog(page)).to_be_visible()
        page.evaluate("history.pushState({}, '', location.href + '#x')")
        page.evaluate("history.back()")
        expect(dialog(page)).to_have_count(0)
        assert page.evaluate("localStorage.getItem('viewedTierSummaryMessages')") is None
        page.goto("/ranking")  # the leaderboard of the seller's company
        expect(page.get_by_role("heading", name="Ranking", exact=True)).to_be_visible()
        expect(page.locator("table.ranking-table")).to_contain_text("Nordbil Göteborg")
        expect(page.locator("table.ranking-table")).not_to_contain_text("Fjordauto")
        expect(dialog(page)).to_be_visible()  # not seen yet: it comes back on the next page
        dialog(page).get_by_role("button", name="Close").click()
    finally:
        choose_division(page, "All divisions")


def test_the_ranking_summary_runs_on_an_item_manage_page_for_the_items_division(
    new_page, live_server
):
    from app.preparation.items import manage_path
    from app.preparation.models import PreparationItem

    division_id, season, tier, _position, _overall = _row(live_server.app, "Nordbil Borås")
    with live_server.app.app_context():
        item = db.session.scalars(
            select(PreparationItem)
            .where(PreparationItem.division_id == division_id, PreparationItem.state.in_([2, 3]))
            .order_by(PreparationItem.id)
            .execution_options(all_instances=True)
        ).first()
        path = manage_path(item)
        db.session.remove()
    page = new_page(quiet=False)
    page.context.add_init_script(messages_seen_script(live_server.app))
    sign_in(page, "seller@demo.test")
    page.goto(path)  # all divisions selected: only the item's page names a division
    expect(dialog(page).get_by_role("heading", name="Ranking of Nordbil Borås")).to_be_visible()
    expect(dialog(page).locator(".ranking-tier").first).to_have_text(tier)
    dialog(page).get_by_role("button", name="Close").click()
    viewed = json.loads(page.evaluate("localStorage.getItem('viewedTierSummaryMessages')"))
    assert [(r["divisionId"], r["season"]) for r in viewed] == [(division_id, season)]


def test_a_user_left_on_a_page_sees_the_new_version_banner_after_the_next_poll(new_page):
    page = new_page()
    page.clock.install()
    sign_in(page, "seller@demo.test")
    page.goto("/user")
    banner = page.locator("[data-new-version-banner]")
    page.wait_for_timeout(500)
    expect(banner).to_be_hidden()

    # The server is updated meanwhile: the next poll's answer carries a new X-Cc-Version.
    def newer_version(route):
        response = route.fetch()
        route.fulfill(
            response=response, headers={**response.headers, "x-cc-version": "9.9.9+abcdef012345"}
        )

    polls = []
    page.on("request", lambda r: polls.append(r) if "my-messages" in r.url else None)
    page.route("**/api/system-messages/my-messages", newer_version)
    page.clock.fast_forward("05:01")
    expect(banner).to_be_visible()
    assert len(polls) == 1
    assert polls[0].headers.get("last-fetched")  # the time of the poll before
