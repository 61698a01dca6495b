"""The station flow in a real browser at phone width: a station user finds the vehicle waiting
at their station, starts and finishes its task, and sees it among today's finished tasks; the
seller sees the same work on the vehicle's manage page. The vehicle's tasks are put back."""

import io
import re

import pytest
from PIL import Image
from playwright.sync_api import expect
from sqlalchemy import delete, select

from app.auth.models import User
from app.core.audit import AuditLog
from app.core.models import Division
from app.core.tenancy import activate
from app.demo import DEMO_PASSWORD
from app.extensions import db
from app.preparation.models import (
    FileObject,
    ItemComment,
    ItemFile,
    ItemStationTask,
    PreparationItem,
    Station,
)

pytestmark = pytest.mark.browser
PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (1200, 800), (29, 78, 216)).save(out, "PNG")
    return out.getvalue()


def sign_in(page, email: str) -> None:
    page.goto("/login")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).not_to_have_url(re.compile(r"/login"))


@pytest.fixture
def waiting_vehicle(live_server):
    """A begcare vehicle of Nordbil Solna whose next task is the wash (Tvätt); put back after."""
    with live_server.app.app_context():
        station_user = db.session.scalars(
            select(User).where(User.email == "station@demo.test")
        ).one()
        instance_id = station_user.active_instance_id
        activate(instance_id)
        wash = db.session.scalars(
            select(Station).where(Station.name == "Tvätt", Station.module == "begcare")
        ).one()
        items = db.session.scalars(
            select(PreparationItem)
            .join(Division, Division.id == PreparationItem.division_id)
            .where(
                Division.name == "Nordbil Solna",
                PreparationItem.module == "begcare",
                PreparationItem.state == 4,
            )
            .order_by(PreparationItem.id)
        ).all()
        for item in items:
            tasks = db.session.scalars(
                select(ItemStationTask)
                .where(ItemStationTask.item_id == item.id)
                .order_by(ItemStationTask.ordering)
            ).all()
            if wash.id in [t.station_id for t in tasks]:
                break
        saved = [(t.id, t.status, t.started_at, t.finished_at, t.assigned_user_id) for t in tasks]
        warning = item.warning
        index = [t.station_id for t in tasks].index(wash.id)
        for k, task in enumerate(tasks):
            task.status = "done" if k < index else "pending"
            task.started_at = task.finished_at = task.assigned_user_id = None
            if k < index:
                task.started_at = task.finished_at = item.state_changed_at
        db.session.commit()
        regno, item_id, wash_id = (
            item.regno,
            item.id,
            next(t.id for t in tasks if t.station_id == wash.id),
        )
    yield regno, item_id, wash_id
    with live_server.app.app_context():
        activate(instance_id)
        for task_id, status, started, finished, assigned in saved:
            task = db.session.get(ItemStationTask, task_id)
            task.status, task.started_at, task.finished_at = status, started, finished
            task.assigned_user_id = assigned
        db.session.get(PreparationItem, item_id).warning = warning
        uploaded = list(
            db.session.scalars(select(ItemFile.file_object_id).where(ItemFile.item_id == item_id))
        )
        for model in (ItemComment, ItemFile):
            for row in db.session.scalars(select(model).where(model.item_id == item_id)):
                db.session.delete(row)
        db.session.flush()
        # Only the files uploaded to this vehicle by the walk: the demo's other files (a
        # purchase analysis' comment images, quick tests' images) are not ItemFiles but stay.
        db.session.execute(delete(FileObject).where(FileObject.id.in_(uploaded)))
        db.session.commit()


@pytest.mark.parametrize("viewport", ["375"], indirect=True)
def test_a_station_user_starts_and_finishes_a_vehicle_from_a_phone(
    page, live_server, waiting_vehicle, snap
):
    regno, item_id, wash_id = waiting_vehicle
    sign_in(page, "station@demo.test")
    page.goto("/begcare/station/vehicles")
    card = page.locator(f'.station-card[data-item-id="{item_id}"]')
    expect(card.get_by_role("heading", name=regno)).to_be_visible()
    expect(card.get_by_text("Waiting", exact=True)).to_be_visible()
    start = card.get_by_role("button", name=f"Start task: Wash, {regno}")
    box = start.bounding_box()
    assert box["width"] >= 250 and box["height"] >= 44  # a thumb-sized target
    assert page.evaluate("document.documentElement.scrollWidth") <= 375  # no sideways scroll
    snap(page, "browser-station-queue", widths=("375",))

    start.click()
    expect(page.get_by_role("status").get_by_text(f"Wash started for {regno}.")).to_be_visible()
    expect(card.get_by_text("In progress", exact=True)).to_be_visible()
    card.get_by_role("button", name=f"Finish: Wash, {regno}").click()
    expect(page.get_by_role("status").get_by_text(f"Wash finished for {regno}.")).to_be_visible()
    expect(page.locator(f'.station-card[data-item-id="{item_id}"]')).to_have_count(0)

    page.get_by_role("link", name="My profile").first.click()
    today = page.get_by_role("region", name=re.compile("Finished today"))
    expect(today.get_by_role("link", name=regno)).to_be_visible()
    snap(page, "browser-station-profile", widths=("375",))

    with live_server.app.app_context():
        task = db.session.get(ItemStationTask, wash_id)
        assert task.status == "done" and task.finished_at >= task.started_at
        actions = db.session.scalars(
            select(AuditLog.action).where(AuditLog.action.like("preparation.task.%"))
        ).all()
        assert {"preparation.task.start", "preparation.task.finish"} <= set(actions)


def upload(page, name: str, mime: str, data: bytes, title: str) -> None:
    page.get_by_label("File", exact=True).set_input_files(
        {"name": name, "mimeType": mime, "buffer": data}
    )
    page.get_by_label("Title").fill(title)
    page.get_by_role("button", name="Upload").click()


def test_the_seller_works_the_vehicles_page(page, live_server, waiting_vehicle, snap):
    """Tasks, files (an image and a PDF; a renamed program refused), comments and history."""
    regno, item_id, wash_id = waiting_vehicle
    sign_in(page, "seller@demo.test")
    page.goto(f"/begcare/{item_id}")
    expect(page).to_have_url(re.compile(rf"/begcare/items/list/{item_id}/stations-manage$"))
    row = page.locator(f'tr[data-task-id="{wash_id}"]')
    row.get_by_role("button", name=f"Start task: Wash, {regno}").click()
    expect(page.locator(f'tr[data-task-id="{wash_id}"]')).to_have_attribute("data-status", "active")

    files = page.get_by_role("region", name="Files")
    upload(page, "front.png", "image/png", png(), "Front")
    expect(files.get_by_role("link", name="Front")).to_be_visible()
    thumb = files.locator("img").first
    expect(thumb).to_have_attribute("src", re.compile(r"variation=small"))
    page.wait_for_function("(img) => img.complete", arg=thumb.element_handle())
    assert page.evaluate("(img) => img.naturalWidth", thumb.element_handle()) == 320
    upload(page, "protokoll.pdf", "application/pdf", PDF, "Besiktningsprotokoll")
    expect(files.get_by_role("link", name="Besiktningsprotokoll")).to_be_visible()
    upload(page, "bil.jpg", "image/jpeg", b"MZ\x90\x00" + b"\x00" * 500, "Bild")
    # Refused beside the file field (the form's one field macro): marked and described.
    expect(page.locator("#file-error")).to_have_text(
        "Only JPEG, PNG and WebP images and PDF documents can be uploaded."
    )
    expect(page.locator("#file")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#file")).to_have_attribute("aria-describedby", re.compile("file-error"))
    expect(page.get_by_label("Title")).to_have_value("Bild")
    expect(files.get_by_role("link", name="Bild")).to_have_count(0)

    page.get_by_label("Comment", exact=True).fill("Ny vindruta beställd.")
    page.get_by_role("button", name="Add comment").click()
    comments = page.get_by_role("region", name="Comments")
    expect(comments.locator(".comment-text")).to_have_text(["Ny vindruta beställd."])
    expect(comments.get_by_text("Sara Lindqvist")).to_be_visible()

    history = page.get_by_role("region", name="History")
    expect(history.get_by_text("Wash started").first).to_be_visible()
    expect(history.get_by_text("File added: Besiktningsprotokoll")).to_be_visible()
    snap(page, "browser-manage")
