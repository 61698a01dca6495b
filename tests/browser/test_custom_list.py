"""Seen markers on a custom list in a real browser (spec 02 sections 4 and 8): the vehicle button
marks and unmarks, and a marker changed elsewhere opens the notification. Markers are removed
after the test."""

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import delete, select

from app.auth.models import User
from app.core.tenancy import activate
from app.demo import DEMO_PASSWORD
from app.extensions import db
from app.preparation.models import CustomList, CustomListItem, CustomListSeen

pytestmark = pytest.mark.browser


def sign_in(page, email: str) -> None:
    page.goto("/login")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).not_to_have_url(re.compile(r"/login"))


@pytest.fixture
def seller_list(live_server):
    """The seller's first list and its first two items; the seller's markers are removed after."""
    with live_server.app.app_context():
        seller = db.session.scalars(select(User).where(User.email == "seller@demo.test")).one()
        activate(seller.active_instance_id)
        custom_list = db.session.scalars(
            select(CustomList).where(CustomList.user_id == seller.id).order_by(CustomList.name)
        ).first()
        items = db.session.scalars(
            select(CustomListItem.item_id)
            .where(CustomListItem.custom_list_id == custom_list.id)
            .order_by(CustomListItem.created_at, CustomListItem.id)
        ).all()
        ids = (seller.id, seller.active_instance_id, custom_list.id, items[0], items[1])
    yield ids
    with live_server.app.app_context():
        db.session.execute(delete(CustomListSeen).where(CustomListSeen.user_id == ids[0]))
        db.session.commit()


def test_the_vehicle_button_toggles_the_seen_marker_and_422_opens_the_notification(
    page, live_server, seller_list, snap
):
    user_id, instance_id, list_id, first, second = seller_list
    sign_in(page, "seller@demo.test")
    page.goto(f"/custom-list/{list_id}/list")
    first_row = page.locator(f'tr[data-item-id="{first}"]')
    button = first_row.get_by_role("button")
    expect(button).to_have_attribute("aria-pressed", "false")
    expect(first_row).to_have_class(re.compile(r"\brow-unseen\b"))

    button.focus()
    page.keyboard.press("Enter")  # keyboard operable
    expect(first_row).not_to_have_class(re.compile(r"\brow-unseen\b"))
    expect(button).to_have_attribute("aria-pressed", "true")
    expect(button).to_be_focused()
    page.keyboard.press("Enter")
    expect(first_row).to_have_class(re.compile(r"\brow-unseen\b"))

    # Someone (another tab) marks the second vehicle: this page still shows it unseen.
    with live_server.app.app_context():
        activate(instance_id)
        db.session.add(
            CustomListSeen(
                custom_list_id=list_id, item_id=second, user_id=user_id, instance_id=instance_id
            )
        )
        db.session.commit()
    second_row = page.locator(f'tr[data-item-id="{second}"]')
    second_row.get_by_role("button").click()
    dialog = page.get_by_role("dialog", name="Notification")
    expect(dialog).to_contain_text("You have already marked this vehicle as seen.")
    expect(second_row).not_to_have_class(re.compile(r"\brow-unseen\b"))  # took the seenId
    snap(page, "custom-list-notification", widths=("1280",))
    page.mouse.click(5, 400)  # a static backdrop: the dialog stays
    expect(dialog).to_be_visible()
    expect(page.locator("body")).to_have_class(re.compile(r"\bmodal-open\b"))  # no scrolling
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    expect(second_row.get_by_role("button")).to_be_focused()  # back where it was
    expect(page.locator("body")).not_to_have_class(re.compile(r"\bmodal-open\b"))

    # The marker disappears elsewhere: unmarking here clears it and says so.
    with live_server.app.app_context():
        db.session.execute(delete(CustomListSeen).where(CustomListSeen.item_id == second))
        db.session.commit()
    second_row.get_by_role("button").click()
    expect(dialog).to_contain_text("no longer exists")
    expect(second_row).to_have_class(re.compile(r"\brow-unseen\b"))
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    snap(page, "custom-list-page")
