"""Issue 13's "done when": on an empty database whose only user was made by
`flask create-admin`, that administrator creates a dealer group with two divisions and three
users in the browser, imports 1,000 vehicles with a visible progress bar, and one of the new
users sets a password from the invite mail, signs in and sees them."""

import re
import threading

import pytest
from playwright.sync_api import expect
from sqlalchemy import select
from werkzeug.serving import make_server

from app.extensions import db
from app.mail.models import EmailMessage
from tests.browser.conftest import LiveServer, QuietHandler, buffered
from tests.conftest import ARTIFACTS, database_url, make_app

pytestmark = pytest.mark.browser
ADMIN = "first.admin@example.test"
PASSWORD = "Start-pass-1"


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    """This module's server: the application on an empty, migrated database (no demo data).
    Named live_server so that conftest's page fixtures use it and no test transaction wraps it."""
    app = make_app(database_url(tmp_path_factory, "browser_admin"))
    app.config["TESTING"] = False
    server = make_server("127.0.0.1", 0, buffered(app), threaded=True, request_handler=QuietHandler)
    thread = threading.Thread(target=server.serve_forever, name="admin-live-server", daemon=True)
    thread.start()
    try:
        yield LiveServer(app=app, url=f"http://127.0.0.1:{server.server_port}")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        for handler in threading.enumerate():
            if handler.name.startswith(("process_request_thread", "job-")):
                handler.join(timeout=10)
        with app.app_context():
            db.engine.dispose()


def newest_mail(app, email: str) -> EmailMessage:
    with app.app_context():
        stmt = (
            select(EmailMessage)
            .where(EmailMessage.to_address == email)
            .order_by(EmailMessage.id.desc())
            .execution_options(all_instances=True)
        )
        return db.session.scalars(stmt).first()


def set_password_from_mail(page, app, email: str) -> None:
    mail = newest_mail(app, email)
    page.goto(f"/email-preview/{mail.public_id}")
    link = page.locator(".mail-body a[href*='/reset-password/']")
    expect(link).to_have_count(1)
    page.goto(link.get_attribute("href"))
    page.get_by_label("New password").fill(PASSWORD)
    page.get_by_label("Verify password").fill(PASSWORD)
    page.get_by_role("button", name="Save new password").click()
    expect(page).to_have_url(re.compile(r"/login"))


def sign_in(page, email: str) -> None:
    page.goto("/login")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).not_to_have_url(re.compile(r"/login"))


def save(page) -> None:
    page.get_by_role("button", name="Save").click()
    expect(page.locator(".alert-success").last).to_contain_text("Saved.")


def vehicles_csv(path, divisions) -> None:
    lines = ["regno;vin;brand;model;model_year;mileage;state;division;sales_price"]
    for i in range(1000):
        lines.append(
            f"KT{chr(65 + i // 100 % 26)}{i % 100:02d}{i // 100 % 10};;Volvo;V{60 + i % 3 * 10};"
            f"{2015 + i % 9};{10_000 + i};incoming;{divisions[i % 2]};{150_000 + i}"
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_first_admin_onboards_a_dealer_group(live_server, page, tmp_path):
    app, url = live_server.app, live_server.url
    runner = app.test_cli_runner(env={"PUBLIC_URL": url})
    result = runner.invoke(args=["create-admin", ADMIN])
    assert result.exit_code == 0, result.output
    assert "/reset-password/" in result.output
    again = runner.invoke(args=["create-admin", ADMIN])
    assert "already exists; nothing changed" in again.output

    set_password_from_mail(page, app, ADMIN)
    sign_in(page, ADMIN)

    # The dealer group (an instance), then work in it.
    page.goto("/admin/global/instances")
    page.get_by_role("link", name="Add instance").click()
    page.get_by_label("Company name").fill("Nordic Cars AB")
    save(page)
    page.get_by_role("button", name="Work in it Nordic Cars AB").click()
    expect(page.locator(".alert-success").last).to_contain_text("You now work in Nordic Cars AB")

    page.goto("/admin/general/countries/new")
    page.get_by_label("Country code").fill("SE")
    page.get_by_label("Name").fill("Sverige")
    page.get_by_label("Currency").fill("SEK")
    page.get_by_label("Language").select_option("sv-SE")
    save(page)
    page.goto("/admin/general/regions/new")
    page.get_by_label("Name").fill("Stockholm")
    save(page)
    divisions = ["Nordic Cars Solna", "Nordic Cars Kista"]
    for name in divisions:
        page.goto("/admin/general/divisions/new")
        page.get_by_label("Name").fill(name)
        save(page)
    expect(page.locator("tbody tr")).to_have_count(2)

    people = [("anna.berg@nordic.test", "Anna", "Berg"), ("bo.ek@nordic.test", "Bo", "Ek"),
              ("cia.lund@nordic.test", "Cia", "Lund")]  # fmt: skip
    for email, first, last in people:
        page.goto("/admin/core/users/new")
        page.get_by_label("E-mail").fill(email)
        page.get_by_label("First name").fill(first)
        page.get_by_label("Last name").fill(last)
        page.get_by_label("Used vehicles", exact=True).check()
        page.get_by_label("Staff member", exact=True).check()
        page.get_by_label(divisions[0]).check()
        page.get_by_label(divisions[1]).check()
        save(page)
    expect(page.locator("tbody tr")).to_have_count(4)  # the three and the administrator

    # The import, with its progress bar.
    file = tmp_path / "vehicles.csv"
    vehicles_csv(file, divisions)
    page.goto("/admin/general/import")
    page.get_by_label("File").set_input_files(str(file))
    page.get_by_role("button", name="Check the file").click()
    expect(page.get_by_test_id("import-new")).to_have_text("1000")
    page.get_by_role("button", name="Import 1000 vehicles").click()
    expect(page.locator("progress#import-progress")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "admin-import-progress-1280.png"))
    expect(page.get_by_text("The import is done.")).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("import-created")).to_have_text("1000")
    page.screenshot(path=str(ARTIFACTS / "admin-import-done-1280.png"), full_page=True)

    # One of the new users: the invite mail, a password, and the vehicles.
    page.context.clear_cookies()
    set_password_from_mail(page, app, people[0][0])
    sign_in(page, people[0][0])
    page.goto("/begcare/items/incoming")
    # The menu tree (an ARIA tree) counts them.
    expect(page.get_by_role("treeitem", name="Incoming 1000 vehicles")).to_be_visible()
    expect(page.locator("main table tbody tr").first).to_contain_text("Volvo")
    expect(page.locator("main table tbody tr").first).to_contain_text(re.compile(r"KT[A-J]\d{3}"))
    page.screenshot(path=str(ARTIFACTS / "admin-new-user-sees-vehicles-1280.png"))
