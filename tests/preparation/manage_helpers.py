"""Shared by the item manage, task, file and station tests: demo items, tasks and pictures."""

import io
import re
from datetime import timedelta
from html import unescape

import pytest
from PIL import Image
from sqlalchemy import event, select

from app.auth.viewer import SNAPSHOTS
from app.core.models import Division, utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import ItemStationTask, PreparationItem, Station
from app.shell.layout import COUNTS
from tests.shell.conftest import demo_user


@pytest.fixture(autouse=True)
def fresh_shell_caches():
    """The shell's per-process caches are keyed by versions that a rolled-back test reuses:
    start and leave every test of these modules with them empty."""
    COUNTS.clear()
    SNAPSHOTS.clear()
    yield
    COUNTS.clear()
    SNAPSHOTS.clear()


def in_seller_instance() -> int:
    instance_id = demo_user("seller@demo.test").active_instance_id
    activate(instance_id)
    return instance_id


def demo_item(state: int = 4, module: str = "begcare", division: str | None = None):
    """A demo item of the seller's instance in `state` that has station tasks."""
    in_seller_instance()
    stmt = (
        select(PreparationItem)
        .where(
            PreparationItem.state == state,
            PreparationItem.module == module,
            PreparationItem.package_id.is_not(None),
        )
        .order_by(PreparationItem.id)
    )
    if division:
        stmt = stmt.join(Division, Division.id == PreparationItem.division_id).where(
            Division.name == division
        )
    return db.session.scalars(stmt).first()


def foreign_item(module: str = "begcare") -> PreparationItem:
    """An item of the other instance (Fjordauto AS)."""
    buyer = demo_user("buyer@demo.test")
    return db.session.scalars(
        select(PreparationItem)
        .where(
            PreparationItem.instance_id == buyer.active_instance_id,
            PreparationItem.module == module,
        )
        .order_by(PreparationItem.id)
        .execution_options(all_instances=True)
    ).first()


def tasks_of(item: PreparationItem) -> list[ItemStationTask]:
    return list(
        db.session.scalars(
            select(ItemStationTask)
            .where(ItemStationTask.item_id == item.id)
            .order_by(ItemStationTask.ordering)
            .execution_options(populate_existing=True)
        )
    )


def station_named(name: str, module: str = "begcare") -> Station:
    return db.session.scalars(
        select(Station).where(Station.name == name, Station.module == module)
    ).one()


def set_tasks(item: PreparationItem, statuses: list[str], minutes_ago: int = 5) -> None:
    """Give the item's tasks these statuses in order (the rest pending), with plausible times."""
    now = utcnow()
    tasks = tasks_of(item)
    statuses = (list(statuses) + ["pending"] * len(tasks))[: len(tasks)]
    for task, status in zip(tasks, statuses, strict=True):
        task.status = status
        task.assigned_user_id = None
        task.started_at = now - timedelta(minutes=minutes_ago) if status != "pending" else None
        task.finished_at = now if status == "done" else None
    db.session.flush()


def image_bytes(fmt: str = "PNG", size=(1200, 800), mode: str = "RGB") -> bytes:
    image = Image.new(mode, size, (200, 30, 30) if mode == "RGB" else (200, 30, 30, 128))
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
)
EXE = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00" + b"\x00" * 200


class QueryCounter:
    """Count the SQL statements run while it is active."""

    def __init__(self) -> None:
        self.count = 0

    def __enter__(self):
        event.listen(db.engine, "before_cursor_execute", self._count)
        return self

    def __exit__(self, *exc) -> None:
        event.remove(db.engine, "before_cursor_execute", self._count)

    def _count(self, *args) -> None:
        self.count += 1


def alerts(html: str) -> list[tuple[str, str]]:
    """The alerts a page shows: (kind, text) from the alert stack."""
    found = re.findall(r'<div class="alert alert-([a-z]+)"[^>]*>([^<]*)</div>', html)
    return [(kind, unescape(text).strip()) for kind, text in found]
