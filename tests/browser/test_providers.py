"""The add-vehicle form's "Fetch from provider" in a real browser, against the demo provider
served on a free local port: the button works while the required fields are still empty (the
form guard leaves a formnovalidate button enabled), fills brand, model, year, fuel and colour,
keeps what was typed, and a vehicle the provider does not know leaves the form as it was."""

import re
import threading

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.core.settings import SettingRow
from app.extensions import db
from app.providers import stub
from tests.browser.test_custom_list import sign_in


@pytest.fixture
def demo_provider(live_server, monkeypatch):
    """The demo provider on a free port; the demo vehicle-data providers pointed at it."""
    server = stub.server(0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setitem(live_server.app.config, "WEBHOOK_ALLOWED_NETWORKS", "127.0.0.1/32")
    with live_server.app.app_context():
        rows = db.session.scalars(
            select(SettingRow)
            .where(SettingRow.kind == "provider")
            .execution_options(all_instances=True)
        ).all()
        before = {row.id: dict(row.data) for row in rows}
        for row in rows:
            url = row.data["url"].replace(f":{stub.PORT}/", f":{server.server_port}/")
            row.data = {**row.data, "url": url}
        db.session.commit()
    yield
    with live_server.app.app_context():
        for row_id, data in before.items():
            db.session.get(SettingRow, row_id).data = data
        db.session.commit()
    server.shutdown()
    server.server_close()


def test_fetch_from_provider_fills_the_add_vehicle_form(page, demo_provider):
    sign_in(page, "seller@demo.test")
    page.goto("/begcare/manage/vehicle?action=add")
    page.get_by_label("Registration number").fill("ABC123")
    page.get_by_label("Mileage").fill("45 000")
    fetch = page.get_by_role("button", name="Fetch from provider")
    expect(fetch).to_be_enabled()  # brand and model are still empty
    fetch.click()
    expect(page.get_by_test_id("provider-message")).to_have_text(re.compile("Filled from Demo"))
    expect(page.get_by_label("Brand")).not_to_have_value("")
    expect(page.get_by_label("Model", exact=True)).not_to_have_value("")
    expect(page.get_by_label("Model year")).to_have_value(re.compile(r"^20\d\d$"))
    expect(page.get_by_label("Mileage")).to_have_value("45 000")
    expect(page.get_by_role("button", name="Add vehicle")).to_be_enabled()
    brand = page.get_by_label("Brand").input_value()
    page.get_by_label("Registration number").fill("NOTFOUND1")
    page.get_by_role("button", name="Fetch from provider").click()
    expect(page.get_by_test_id("provider-message")).to_contain_text("does not know this vehicle")
    expect(page.get_by_label("Registration number")).to_have_value("NOTFOUND1")
    expect(page.get_by_label("Brand")).to_have_value(brand)
