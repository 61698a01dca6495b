"""A module rule in a real browser (issue 31): an administrator makes "parked more than 30 days →
tag Price check and notify the division's administrators", tries it (how many vehicles, which),
switches it on; the scheduler's job runs; the vehicle is tagged, the division administrator
finds the notification under the bell, and the vehicle's history names the rule. What the test
added is taken away again and the vehicle put back."""

import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect
from sqlalchemy import delete, func, select

from app.automation.rules import run_rules
from app.core.audit import AuditLog
from app.core.models import Division, utcnow
from app.core.notifications import Notification
from app.core.settings import SettingRow, Tag
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import ItemRuleMatch, ItemStateEvent, ItemTag, PreparationItem
from app.preparation.services import move_item, recount
from tests.browser.test_station import sign_in

pytestmark = pytest.mark.browser
RULE = "Parked more than 30 days"
WATCHED = (ItemTag, Notification, AuditLog, ItemStateEvent, ItemRuleMatch)


def _last_ids() -> dict:
    return {m: db.session.scalar(select(func.max(m.id))) or 0 for m in WATCHED}


@pytest.fixture
def parked_vehicle(live_server):
    """A begcare vehicle of Nordbil Göteborg parked 40 days ago and the tag Price check; the
    vehicle, the tags, the notifications, the history and the rule put back afterwards."""
    with live_server.app.app_context():
        gothenburg = db.session.scalars(
            select(Division)
            .where(Division.name == "Nordbil Göteborg")
            .execution_options(all_instances=True)
        ).one()
        instance_id = gothenburg.instance_id
        activate(instance_id)
        before = _last_ids()
        item = db.session.scalars(
            select(PreparationItem)
            .where(
                PreparationItem.division_id == gothenburg.id,
                PreparationItem.module == "begcare",
                PreparationItem.state == 4,
            )
            .order_by(PreparationItem.id)
        ).first()
        state, since = item.state, item.state_changed_at
        move_item(item, 5, when=utcnow() - timedelta(days=40))
        tag = Tag(name="Price check", color="#b54708")
        db.session.add(tag)
        db.session.commit()
        facts = (item.id, item.regno, tag.id)
    yield facts
    with live_server.app.app_context():
        activate(instance_id)
        db.session.execute(delete(SettingRow).where(SettingRow.name == RULE))
        db.session.execute(delete(Tag).where(Tag.id == facts[2]))
        for model, last in before.items():
            db.session.execute(delete(model).where(model.id > last))
        again = db.session.get(PreparationItem, facts[0])
        again.state, again.state_changed_at = state, since
        recount(instance_id)
        db.session.commit()


@pytest.mark.parametrize("viewport", ["1280"], indirect=True)
def test_a_rule_is_tried_switched_on_run_and_heard_of(
    page, new_page, snap, live_server, parked_vehicle
):
    item_id, regno, tag_id = parked_vehicle
    sign_in(page, "admin@demo.test")
    page.goto("/admin/begcare/rules/new")
    page.get_by_label("Name", exact=True).fill(RULE)
    page.get_by_label("Division", exact=True).select_option(label="Nordbil Göteborg")
    page.get_by_label("Operator: State").select_option("is")
    page.get_by_label("Value: State").select_option(label="Parked")
    page.get_by_label("Operator: Days in the state").select_option("gt")
    page.get_by_label("Value: Days in the state").fill("30")
    page.get_by_label("Add the tag").select_option(label="Price check")
    page.get_by_label("Notify", exact=True).select_option(label="The division's administrators")
    snap(page, "rules-editor")
    page.get_by_role("button", name="Try").click()
    trial = page.locator("[data-rule-trial]")
    expect(trial.get_by_role("heading")).to_have_text(
        re.compile(r"Would affect \d+ vehicles? today")
    )
    expect(trial.get_by_role("link", name=regno)).to_be_visible()
    snap(page, "rules-try")
    expect(page.get_by_label("Name", exact=True)).to_have_value(
        RULE
    )  # the form as filled in, nothing saved
    page.get_by_label("Active", exact=True).check()
    page.get_by_role("button", name="Save").click()
    expect(page).to_have_url(re.compile(r"/admin/begcare/rules$"))
    expect(page.get_by_role("row", name=re.compile(RULE))).to_be_visible()

    with live_server.app.app_context():  # the scheduler's job, as `flask scheduler` runs it
        run_rules()
        activate(None)
        tagged = db.session.scalar(
            select(ItemTag.id)
            .where(ItemTag.item_id == item_id, ItemTag.tag_id == tag_id)
            .execution_options(all_instances=True)
        )
        assert tagged is not None

    divadmin = new_page()
    sign_in(divadmin, "divadmin@demo.test")
    bell = divadmin.get_by_role("link", name=re.compile(r"Notifications: \d+ unread"))
    expect(bell).to_be_visible()
    bell.click()
    note = divadmin.get_by_role("link", name=re.compile(f"Rule {RULE}: {regno}"))
    expect(note).to_be_visible()
    snap(divadmin, "rules-notifications")
    note.click()
    history = divadmin.locator('tr[data-kind="rule"]', has_text=f"Rule {RULE}")
    expect(history.filter(has_text="Tag Price check added")).to_be_visible()
    expect(divadmin.locator(".tag-label", has_text="Price check").first).to_be_visible()
