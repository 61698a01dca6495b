"""Reconditioning cost (issue 33): cost lines from the station user's phone page, the approval
an estimate above the division's limit waits for, who may decide it, and the vehicle's totals."""

import re
from decimal import Decimal
from html import unescape

from sqlalchemy import select

from app.auth.models import User
from app.core.audit import AuditLog
from app.core.models import utcnow
from app.core.notifications import Notification
from app.extensions import db
from app.mail.models import EmailMessage
from app.preparation.models import ItemStationTask, PreparationItem
from app.preparation.queries import over_estimate_items
from app.preparation.recon_models import ReconApproval, ReconLine
from app.preparation.statistics import FIGURES, _start_of, period_start
from tests.helpers import page_text, sign_in
from tests.preparation.manage_helpers import (
    alerts,
    demo_item,
    fresh_shell_caches,  # noqa: F401 - autouse
    in_seller_instance,
    tasks_of,
)
from tests.shell.conftest import demo_user

STATION_PAGE = "/begcare/station/vehicles"


def waiting_approval() -> ReconApproval:
    in_seller_instance()
    return db.session.scalars(select(ReconApproval).where(ReconApproval.status == "pending")).one()


def add_cost(client, token, item, task, kind, quantity, description="", next=STATION_PAGE):
    prefix = f"t{task.id}-"
    return client.post(
        f"/begcare/items/{item.id}/tasks/{task.id}/costs",
        data={
            "csrf_token": token,
            "next": next,
            prefix + "kind": kind,
            prefix + "quantity": quantity,
            prefix + "description": description,
        },  # fmt: skip
        follow_redirects=True,
    )


def active_wash_task() -> tuple[PreparationItem, ItemStationTask]:
    in_seller_instance()
    task = db.session.scalars(
        select(ItemStationTask)
        .join(ItemStationTask.station)
        .where(ItemStationTask.status == "active")
        .where(ItemStationTask.station.has(name="Tvätt"))
        .order_by(ItemStationTask.started_at.desc())
    ).first()
    return db.session.get(PreparationItem, task.item_id), task


def test_station_user_enters_actual_labour_and_parts_from_the_phone_page(as_demo):
    client, token = as_demo("station")
    item, task = active_wash_task()
    before = db.session.scalar(
        select(ReconLine.id).where(ReconLine.task_id == task.id).order_by(ReconLine.id.desc())
    )

    html = page_text(add_cost(client, token, item, task, "labour", "1,5", "Handtvätt"))
    assert ("success", "The cost is added to Tvätt.") in alerts(html)
    line = db.session.scalars(
        select(ReconLine).where(ReconLine.task_id == task.id).order_by(ReconLine.id.desc())
    ).first()
    assert line.id != before and line.phase == "actual" and line.kind == "labour"
    assert line.hours == Decimal("1.50") and line.amount == Decimal("975.00")  # 1.5 h × 650
    assert "Handtvätt" in html

    html = page_text(add_cost(client, token, item, task, "parts", "1 234,50", "Vax"))
    assert db.session.scalars(
        select(ReconLine.amount).where(ReconLine.task_id == task.id).order_by(ReconLine.id.desc())
    ).first() == Decimal("1234.50")


def test_bad_amount_is_refused_beside_the_field_with_the_input_kept(as_demo):
    client, token = as_demo("station")
    item, task = active_wash_task()
    count = len(db.session.scalars(select(ReconLine.id).where(ReconLine.task_id == task.id)).all())
    response = add_cost(client, token, item, task, "parts", "tolv", "Vax")
    assert response.status_code == 422
    html = page_text(response)
    assert "Enter a number greater than 0" in html
    assert 'value="tolv"' in html and 'value="Vax"' in html
    after = db.session.scalars(select(ReconLine.id).where(ReconLine.task_id == task.id)).all()
    assert len(after) == count  # nothing half-saved


def test_estimate_over_the_limit_blocks_start_until_a_manager_approves(as_demo):
    approval = waiting_approval()
    item = db.session.get(PreparationItem, approval.item_id)
    task = db.session.get(ItemStationTask, approval.task_id)
    client, token = as_demo("station")
    start = f"/begcare/items/{item.id}/tasks/{task.id}/start"

    html = page_text(
        client.post(start, data={"csrf_token": token, "next": STATION_PAGE}, follow_redirects=True)
    )
    assert any("a manager must approve it before the work starts" in t for _, t in alerts(html))
    assert tasks_of(item)[task.ordering].status == "pending"

    # A station user cannot approve.
    decide = f"/begcare/items/{item.id}/approvals/{approval.id}/approve"
    assert client.post(decide, data={"csrf_token": token}).status_code == 403

    client, token = as_demo("admin")  # holds ROLE_MANAGER_ADMIN and sees every division
    html = page_text(client.get("/begcare/recon/approvals"))
    assert item.regno in html
    html = page_text(
        client.post(decide, data={"csrf_token": token, "comment": "OK"}, follow_redirects=True)
    )
    assert ("success", f"The estimate for {item.regno} is approved.") in alerts(html)
    db.session.expire_all()
    decided = db.session.get(ReconApproval, approval.id)
    assert decided.status == "approved" and decided.comment == "OK"
    assert decided.decided_by_id is not None and decided.decided_at is not None

    client, token = as_demo("station")
    html = page_text(
        client.post(start, data={"csrf_token": token, "next": STATION_PAGE}, follow_redirects=True)
    )
    assert ("success", f"Tvätt started for {item.regno}.") in alerts(html)
    actions = db.session.scalars(
        select(AuditLog.action).where(AuditLog.action.like("preparation.recon.%"))
    ).all()
    assert "preparation.recon.request" in actions and "preparation.recon.approved" in actions


def test_reject_needs_a_reason_and_shows_in_the_history(as_demo):
    approval = waiting_approval()
    item = db.session.get(PreparationItem, approval.item_id)
    client, token = as_demo("admin")
    reject = f"/begcare/items/{item.id}/approvals/{approval.id}/reject"
    html = page_text(client.post(reject, data={"csrf_token": token}, follow_redirects=True))
    assert ("danger", "Say why the estimate is rejected.") in alerts(html)
    db.session.expire_all()
    assert db.session.get(ReconApproval, approval.id).status == "pending"
    html = page_text(
        client.post(
            reject, data={"csrf_token": token, "comment": "För dyrt"}, follow_redirects=True
        )
    )
    assert "estimate of 17,252 SEK rejected: För dyrt" in html  # the vehicle's history


def test_a_new_estimate_over_the_limit_asks_the_managers_by_mail(as_demo):
    client, token = as_demo("seller")
    item = demo_item(3)
    task = tasks_of(item)[0]
    add_cost(client, token, item, task, "sublet", "40000", "Motorrenovering", next="")
    approval = db.session.scalars(
        select(ReconApproval).where(ReconApproval.task_id == task.id)
    ).one()
    assert approval.status == "pending" and approval.amount >= Decimal(40000)
    mail = db.session.scalars(
        select(EmailMessage)
        .where(EmailMessage.kind == "recon_approval")
        .order_by(EmailMessage.id.desc())
    ).first()
    assert mail.to_address == "admin@demo.test" and item.regno in mail.subject
    # ... and under the bell in the app, in the manager's language, leading to the queue.
    (note,) = db.session.scalars(
        select(Notification).where(Notification.key == "recon_approval")
    ).all()
    assert note.user_id == db.session.scalar(select(User.id).where(User.email == mail.to_address))
    assert note.link == "/begcare/recon/approvals"
    assert f"for {item.regno} waits for your approval" in note.text


def test_vehicle_page_shows_estimate_actual_and_the_overrun(as_demo):
    client, token = as_demo("seller")
    item = demo_item(6)  # showroom: every task done, with actual costs
    html = page_text(client.get(f"/begcare/{item.id}", follow_redirects=True))
    assert "Reconditioning cost" in html
    lines = db.session.scalars(select(ReconLine).where(ReconLine.item_id == item.id)).all()
    estimate = sum(line.amount for line in lines if line.phase == "estimate")
    actual = sum(line.amount for line in lines if line.phase == "actual")
    total = re.search(r"data-actual>([^<]+)<", html).group(1)
    assert re.sub(r"\D", "", total) == str(round(actual))
    assert ("data-over-estimate" in html) == (actual > estimate)


def test_nobody_decides_in_another_instance(as_demo):
    approval = waiting_approval()
    client, token = as_demo("buyer")
    response = client.post(
        f"/begcare/items/{approval.item_id}/approvals/{approval.id}/approve",
        data={"csrf_token": token},
    )
    assert response.status_code == 404
    assert db.session.get(ReconApproval, approval.id).status == "pending"


def test_overview_shows_the_cost_and_filters_the_vehicles_over_their_estimate(as_demo):
    client, _ = as_demo("seller")
    in_seller_instance()
    over = set(db.session.scalars(over_estimate_items()))
    html = client.get(
        "/begcare/overview?division=all&advancedFilter[overEstimate]=1&sort=regno"
    ).get_data(as_text=True)
    shown = {int(i) for i in re.findall(r'<tr data-item-id="(\d+)"', html)}
    assert shown and shown <= over
    assert html.count("data-recon-over") == len(shown)
    within = client.get("/begcare/overview?division=all&advancedFilter[overEstimate]=0")
    shown_within = {
        int(i) for i in re.findall(r'<tr data-item-id="(\d+)"', within.get_data(as_text=True))
    }
    assert shown_within and not shown_within & over
    bad = client.get("/begcare/overview?advancedFilter[overEstimate]=kanske")
    assert bad.status_code == 422 or "must be yes or no" in page_text(bad)


def test_statistics_show_the_average_cost_and_overrun_from_the_cost_lines(as_demo):
    FIGURES.clear()  # kept figures of an earlier (rolled back) test
    client, _ = as_demo("seller")
    instance_id = in_seller_instance()
    since = _start_of(period_start(utcnow().date()))
    rows = db.session.execute(
        select(ReconLine.item_id, ReconLine.phase, ReconLine.amount, ReconLine.created_at)
        .join(PreparationItem, PreparationItem.id == ReconLine.item_id)
        .where(PreparationItem.module == "begcare", PreparationItem.instance_id == instance_id)
    ).all()
    sums: dict[int, list] = {}
    for item_id, phase, amount, created in rows:
        s = sums.setdefault(item_id, [Decimal(0), Decimal(0), None])
        s[0 if phase == "estimate" else 1] += amount
        if phase == "actual":
            s[2] = max(s[2] or created, created)
    ended = [s for s in sums.values() if s[2] is not None and s[2] >= since]
    average = sum(s[1] for s in ended) / len(ended)
    html = client.get("/begcare/statistics").get_data(as_text=True)
    shown = re.search(r"data-recon-average>([^<]+)<", html).group(1)
    assert int(re.sub(r"\D", "", shown)) == round(average)
    assert re.sub(r"\D", "", re.search(r"data-recon-vehicles>([^<]+)<", html).group(1)) == str(
        len(ended)
    )


def test_the_statistics_count_a_new_cost_line_at_once(as_demo):
    """The cost figures are kept between views, but not past a new cost line."""
    FIGURES.clear()
    client, token = as_demo("seller")

    def shown() -> str:
        html = client.get("/begcare/statistics").get_data(as_text=True)
        return re.search(r"data-recon-average>([^<]+)<", html).group(1)

    before = shown()
    assert shown() == before
    item = demo_item(6)  # showroom: its reconditioning is over
    task = tasks_of(item)[-1]
    db.session.add(
        ReconLine(
            instance_id=item.instance_id, item_id=item.id, task_id=task.id, phase="actual",
            kind="sublet", amount=Decimal(900000), created_at=utcnow(),
        )
    )  # fmt: skip
    db.session.flush()
    assert shown() != before


def test_the_history_writes_cost_amounts_as_money_in_the_readers_language(as_demo):
    client, token = as_demo("station")
    item, task = active_wash_task()
    add_cost(client, token, item, task, "parts", "18563", "Lack")
    seller = demo_user("seller@demo.test")
    for language, written in (("en-GB", "18,563.00 SEK"), ("sv-SE", "18\xa0563,00 SEK")):
        seller.options = {**(seller.options or {}), "language": language}
        db.session.flush()
        sign_in(client, seller)
        html = client.get(f"/begcare/{item.id}", follow_redirects=True).get_data(as_text=True)
        history = re.search(r'id="history".*?</(ol|ul|table)>', html, re.S).group(0)
        assert written in unescape(history), (language, history[:600])
        assert "18563.00" not in history
