"""The demo's quick tests: a template with nested groups, two finished tests with real images,
and demo-links pointing at the first one's public view and print view."""

from PIL import Image
from sqlalchemy import select

from app.demo import demo_links
from app.extensions import db
from app.preparation.models import FileObject
from app.quicktest.models import StorageContainerValue
from tests.quicktest.conftest import finished_tests


def test_demo_links_point_at_the_first_finished_test(demo_app, as_demo):
    first = finished_tests()[0]
    links = demo_links()
    assert links["quick_test"] == f"/quick-test/view/{first.uuid}"
    assert links["quick_test_pdf"] == f"/pdf-preview/quick-test/{first.id}"
    client, _ = as_demo("seller")
    assert client.get(links["quick_test_pdf"]).status_code == 200
    client.get("/logout")


def test_the_demo_tests_carry_drawn_jpeg_photos(demo_app):
    tests = finished_tests()
    assert len(tests) >= 2
    for test in tests:
        files = db.session.scalars(
            select(FileObject)
            .join(StorageContainerValue, StorageContainerValue.file_object_id == FileObject.id)
            .where(StorageContainerValue.container_id == test.id)
            .execution_options(all_instances=True)
        ).all()
        assert len(files) == 3
        for file in files:
            assert file.content_type == "image/jpeg" and file.small
            import io

            with Image.open(io.BytesIO(file.data)) as image:
                colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
            assert colours is None or len(colours) > 5  # a drawing, not a blank card
