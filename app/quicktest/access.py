"""Who may see a quick test: users with the quick-test module, in the test's division."""

from flask import abort
from sqlalchemy import select

from app.auth.viewer import Viewer, viewer
from app.core import file_access
from app.extensions import db
from app.quicktest import services
from app.quicktest.models import StorageContainer, StorageContainerValue

MODULE = "quickTest"


def module_viewer() -> Viewer:
    """The viewer, if they have the quick-test module (else 403, as the menu entry's rule)."""
    v = viewer()
    if MODULE not in v.modules:
        abort(403)
    return v


def division_ids(v: Viewer) -> list[int]:
    return [d.id for d in v.visible_divisions]


def test_or_404(test_id: int) -> StorageContainer:
    """A test of the active instance in one of the viewer's divisions; anything else is 404."""
    v = viewer()
    if MODULE not in v.modules:
        abort(404)
    test = services.find_test(test_id, division_ids(v))
    if test is None:
        abort(404)
    return test


@file_access.rule("quicktest.image")
def can_read_file(file_object_id: int) -> bool | None:
    """Whether the viewer may read a file object that is a quick-test image: None when it is
    none (another owner decides), else whether they may see one of the tests holding it (the
    quick-test module and the test's division). For the per-owner file registry."""
    divisions = db.session.scalars(
        select(StorageContainer.division_id)
        .join(StorageContainerValue, StorageContainerValue.container_id == StorageContainer.id)
        .where(StorageContainerValue.file_object_id == file_object_id)
    ).all()
    if not divisions:
        return None
    v = viewer()
    return MODULE in v.modules and bool(set(divisions) & set(division_ids(v)))
