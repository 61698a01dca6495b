"""Issue 33's loop in a real browser, on the demo data: the station user (Swedish, a phone)
enters an actual cost and an estimate above the division's approval limit; Start is refused
until the manager (admin@demo.test, the demo's holder of ROLE_MANAGER_ADMIN) approves it from
the queue at 1280 px; then Start works, an actual above the estimate shows as an overrun on the
vehicle page, and a new purchase analysis of a model with finished vehicles shows the expected
reconditioning computed from them, on its page and in its print view. What the test changes is
put back after (cost lines, approvals, task states, the analysis)."""

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import delete, select

from app.auth.models import User
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import ItemStationTask, PreparationItem
from app.preparation.recon_models import ReconApproval, ReconLine
from app.purchase import expected_recon
from app.purchase.models import PurchaseAnalysis
from tests.browser.conftest import DESKTOP, MOBILE
from tests.browser.test_auth_flows import sign_in

pytestmark = pytest.mark.browser
TASK_FIELDS = ("status", "assigned_user_id", "started_at", "finished_at")
ITEM_FIELDS = ("state", "state_changed_at")


def _last_id(model) -> int:
    return db.session.scalar(select(model.id).order_by(model.id.desc()).limit(1)) or 0


@pytest.fixture
def demo_kept(live_server):
    """The demo as it was: lines, approvals and analyses the test adds are deleted after, and
    the tasks and vehicles it starts are put back."""
    with live_server.app.app_context():
        user = db.session.scalars(select(User).where(User.email == "station@demo.test")).one()
        activate(user.active_instance_id)
        last = {m: _last_id(m) for m in (ReconLine, ReconApproval, PurchaseAnalysis)}
        tasks = {
            t.id: {f: getattr(t, f) for f in TASK_FIELDS}
            for t in db.session.scalars(select(ItemStationTask))
        }
        items = {
            i.id: {f: getattr(i, f) for f in ITEM_FIELDS}
            for i in db.session.scalars(select(PreparationItem))
        }
    yield
    with live_server.app.app_context():
        activate(user.active_instance_id)
        for model, last_id in last.items():
            db.session.execute(delete(model).where(model.id > last_id))
        for task in db.session.scalars(select(ItemStationTask)):
            for field, value in tasks.get(task.id, {}).items():
                setattr(task, field, value)
        for item in db.session.scalars(select(PreparationItem)):
            for field, value in items.get(item.id, {}).items():
                setattr(item, field, value)
        db.session.commit()


def _log_in_swedish(page, email: str) -> None:
    page.goto("/login")
    page.locator("input[type=email]").fill(email)
    page.locator("input[type=password]").fill("demo-pass-1")
    page.locator("form button[type=submit]").first.click()
    expect(page).not_to_have_url(re.compile(r"/login"))


def _add_cost(card, kind: str, quantity: str, what: str) -> None:
    details = card.locator("details.recon-task")
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    form = card.locator("form.recon-form")
    form.get_by_label("Slag").select_option(kind)
    form.get_by_label("Belopp, eller timmar för arbete").fill(quantity)
    form.get_by_label("Vad").fill(what)
    form.get_by_role("button", name="Lägg till kostnad").click()


def _finished_model(live_server) -> tuple[str, str, int]:
    """A brand and model the demo has finished vehicles of with actual costs, and how many."""
    with live_server.app.app_context():
        user = db.session.scalars(select(User).where(User.email == "admin@demo.test")).one()
        activate(user.active_instance_id)
        item = db.session.scalars(
            select(PreparationItem)
            .join(ReconLine, ReconLine.item_id == PreparationItem.id)
            .where(PreparationItem.state.in_(expected_recon.FINISHED))
            .order_by(PreparationItem.id)
            .limit(1)
        ).first()
        assert item is not None, "the demo has finished vehicles with cost lines"
        probe = PurchaseAnalysis(brand=item.brand, model=item.model)
        found = expected_recon.expected(probe)
        return item.brand, item.model, found["vehicles"]


def test_the_reconditioning_loop_from_the_station_to_the_next_purchase(
    live_server, new_page, demo_kept, snap
):
    # 1. The station user, on a phone in Swedish, enters an actual cost on the task at work.
    station = new_page(locale="sv-SE", viewport=MOBILE)
    _log_in_swedish(station, "station@demo.test")
    station.goto("/begcare/station/vehicles")
    _add_cost(station.locator(".station-card.is-active").first, "labour", "0,5", "Fälgtvätt")
    expect(station.get_by_text(re.compile("Kostnaden är tillagd på"))).to_be_visible()
    active = station.locator(".station-card.is-active").first
    active.locator("details.recon-task > summary").click()
    expect(active.get_by_text("Fälgtvätt")).to_be_visible()

    # 2. An estimate above the limit (15 000 SEK) on a waiting task becomes a request ...
    free = station.locator(
        ".station-card:not(.is-active)", has_not=station.locator("[data-approval]")
    ).first
    task_id = free.get_attribute("data-task-id")
    regno = free.locator("h3 a").inner_text()
    card = station.locator(f".station-card[data-task-id='{task_id}']")
    _add_cost(card, "sublet", "18000", "Lackering motorhuv")
    expect(card.locator("[data-approval=pending]")).to_be_visible()
    snap(station, "recon-loop-station-waiting")
    card.locator("button[data-action=start]").click()
    expect(
        station.get_by_text(re.compile("en chef måste godkänna den innan arbetet startar"))
    ).to_be_visible()
    expect(card.locator("[data-approval=pending]")).to_be_visible()  # not started

    # ... which the manager approves from the queue.
    manager = new_page(viewport=DESKTOP)
    sign_in(manager, "admin@demo.test")
    manager.goto("/begcare/recon/approvals")
    request = manager.locator(".station-card", has=manager.get_by_role("link", name=regno))
    expect(request).to_contain_text(re.compile(r"18,\d{3} SEK"))  # 18 000 and the demo's own
    vehicle_page = request.get_by_role("link", name=regno).get_attribute("href")
    snap(manager, "recon-loop-approvals")
    request.get_by_role("button", name="Approve").click()
    expect(manager.get_by_text(f"The estimate for {regno} is approved.")).to_be_visible()

    # Now Start works, and an actual above the estimate is entered.
    station.goto("/begcare/station/vehicles")
    card = station.locator(f".station-card[data-task-id='{task_id}']")
    expect(card.locator("[data-approval=approved]")).to_be_visible()
    card.locator("button[data-action=start]").click()
    expect(card).to_have_class(re.compile(r"\bis-active\b"))
    _add_cost(card, "sublet", "21500", "Lackering motorhuv och skärm")
    expect(station.get_by_text(re.compile("Kostnaden är tillagd på"))).to_be_visible()

    # 3. The vehicle page's "Reconditioning cost" shows the overrun.
    manager.goto(vehicle_page)
    totals = manager.locator("#recon [data-recon-total]")
    expect(totals.locator("[data-over-estimate]")).to_have_text("Over estimate")
    expect(totals.locator("[data-difference]")).to_contain_text("+")
    expect(manager.locator(f"#recon tr[data-recon-task='{task_id}']")).to_contain_text(
        re.compile(r"\+\d")
    )
    snap(manager, "recon-loop-vehicle")

    # 4. A new purchase analysis of a model with finished vehicles expects their cost.
    brand, model, vehicles = _finished_model(live_server)
    manager.goto("/purchase-analysis/create")
    manager.locator("[name=regno]").fill("LOP33A")
    manager.locator("[name=brand]").fill(brand)
    manager.locator("[name=model]").fill(model)
    manager.locator("form button[type=submit]").last.click()
    expect(manager).to_have_url(re.compile(r"/purchase-analysis/\d+$"))
    section = manager.locator("section", has=manager.locator("#pa-expected-recon"))
    expect(section.locator("[data-computed-recon]")).not_to_have_text(re.compile(r"^\s*[–-]?\s*$"))
    expect(section).to_contain_text(f"{vehicles} finished vehicles of this model, of any age")
    snap(manager, "recon-loop-analysis")
    figure = section.locator("[data-expected-recon]").inner_text()
    analysis_id = re.search(r"/purchase-analysis/(\d+)", manager.url).group(1)
    manager.goto(f"/pdf-preview/purchase-analysis/{analysis_id}")
    printed = manager.locator("#pa-expected-recon")
    expect(printed.locator("[data-recon-vehicles]")).to_have_text(str(vehicles))
    expect(printed.locator("[data-expected-recon]")).to_have_text(figure)
    snap(manager, "recon-loop-print", widths=("1280",))
