"""Item files: uploads checked by content and size, the small variation, streaming with safe
headers, and no file of another instance or division."""

import io
import re

import pytest
from PIL import Image
from sqlalchemy import func, select

from app.core.tenancy import activate
from app.extensions import db
from app.preparation import files as file_services
from app.preparation.models import FileObject, ItemComment, ItemFile
from tests.helpers import page_text
from tests.preparation.manage_helpers import (
    EXE,
    PDF,
    alerts,
    demo_item,
    foreign_item,
    fresh_shell_caches,  # noqa: F401 - autouse
    image_bytes,
    in_seller_instance,
)
from tests.shell.conftest import demo_user


def upload(client, token, item, data: bytes, name: str, title: str = ""):
    return client.post(
        f"/begcare/items/{item.id}/files",
        data={"csrf_token": token, "title": title, "file": (io.BytesIO(data), name)},
        content_type="multipart/form-data",
    )


def stored_files() -> int:
    return db.session.scalar(
        select(func.count()).select_from(FileObject).execution_options(all_instances=True)
    )


def item_files(item) -> list[ItemFile]:
    return list(
        db.session.scalars(
            select(ItemFile).where(ItemFile.item_id == item.id).order_by(ItemFile.id)
        )
    )


def test_an_image_is_stored_with_a_small_variation_and_shown_as_a_thumbnail(as_demo):
    client, token = as_demo("seller")
    item = demo_item(4)
    response = upload(client, token, item, image_bytes("PNG", (1600, 900)), "front.png", "Front")
    assert response.status_code == 302
    page = page_text(client.get(response.headers["Location"]))
    assert ("success", "The file is added.") in alerts(page)
    [item_file] = item_files(item)
    file = item_file.file
    assert (file.name, file.content_type, item_file.title) == ("front.png", "image/png", "Front")
    small = Image.open(io.BytesIO(file.small))
    assert small.format == "JPEG" and max(small.size) == 320 and small.size[0] > small.size[1]
    assert f'src="/api/file-objects/{file.uuid}/binary?variation=small"' in page
    assert f'href="/file-download/{item_file.id}/front.png"' in page


def test_the_image_and_its_small_variation_stream_with_safe_headers(as_demo):
    client, token = as_demo("seller")
    item = demo_item(4)
    data = image_bytes("JPEG", (800, 600))
    upload(client, token, item, data, "side.jpg")
    file = item_files(item)[0].file
    full = client.get(f"/api/file-objects/{file.uuid}/binary")
    assert full.status_code == 200 and full.data == data
    assert full.headers["Content-Type"] == "image/jpeg"
    assert full.headers["X-Content-Type-Options"] == "nosniff"
    assert full.headers["Content-Disposition"].startswith("inline")
    small = client.get(f"/api/file-objects/{file.uuid}/binary?variation=small")
    assert small.headers["Content-Type"] == "image/jpeg"
    assert Image.open(io.BytesIO(small.data)).size == (320, 240)
    assert client.get(f"/api/file-objects/{file.uuid}/binary?variation=huge").status_code == 422


def test_a_pdf_is_stored_and_downloaded_sandboxed(as_demo):
    client, token = as_demo("seller")
    item = demo_item(4)
    assert (
        upload(client, token, item, PDF, "Besiktning.pdf", "Besiktningsprotokoll").status_code
        == 302
    )
    [item_file] = item_files(item)
    assert item_file.file.content_type == "application/pdf" and item_file.file.small is None
    page = page_text(client.get(f"/begcare/items/list/{item.id}/stations-manage"))
    assert "Besiktningsprotokoll" in page and "Besiktning.pdf · 1 kB" in page
    link = client.get(f"/file-download/{item_file.id}/Besiktning.pdf")
    assert link.headers["Location"] == f"/api/preparation-item-files/{item_file.id}/view"
    view = client.get(link.headers["Location"])
    assert view.status_code == 200 and view.data == PDF
    assert view.headers["Content-Type"] == "application/pdf"
    assert view.headers["Content-Disposition"].startswith("attachment")
    assert "Besiktning.pdf" in view.headers["Content-Disposition"]
    assert "sandbox" in view.headers["Content-Security-Policy"]
    assert view.headers["X-Content-Type-Options"] == "nosniff"
    by_uuid = client.get(f"/file-download/{item_file.file.uuid}/Besiktning.pdf")
    assert client.get(by_uuid.headers["Location"]).data == PDF
    assert (
        client.get(f"/api/file-objects/{item_file.file.uuid}/binary?variation=small").status_code
        == 404
    )


@pytest.mark.parametrize(
    ("data", "name", "message"),
    [
        (EXE, "bil.jpg", "Only JPEG, PNG and WebP images and PDF documents can be uploaded."),
        (EXE, "setup.exe", "Only JPEG, PNG and WebP images and PDF documents can be uploaded."),
        (b"<html><script>alert(1)</script>", "page.png", "Only JPEG"),
        (image_bytes("PNG"), "photo.pdf", "The file name ends in .pdf but the file is a PNG file."),
        (PDF, "report.jpg", "The file name ends in .jpg but the file is a PDF file."),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 300, "broken.jpg", "The file is not a valid image."),
        (image_bytes("GIF"), "anim.gif", "Only JPEG"),
        (b"", "empty.png", "Choose a file to upload."),
    ],
)
def test_a_wrong_or_disguised_file_is_refused_and_nothing_stored(as_demo, data, name, message):
    client, token = as_demo("seller")
    item = demo_item(4)
    before = stored_files()
    response = upload(client, token, item, data, name, "Min titel")
    assert response.status_code == 422
    html = page_text(response)
    assert message in html
    assert 'value="Min titel"' in html  # what the user typed is kept
    assert stored_files() == before
    assert item_files(item) == []


def test_a_file_over_the_size_limit_is_refused(as_demo, demo_app):
    client, token = as_demo("seller")
    item = demo_item(4)
    demo_app.config["UPLOAD_MAX_BYTES"] = 50_000
    try:
        response = upload(
            client, token, item, image_bytes("PNG", (300, 300)) + b"\0" * 60_000, "big.png"
        )
    finally:
        demo_app.config.pop("UPLOAD_MAX_BYTES")
    assert response.status_code == 422
    assert "The file is larger than 0.0476837 MB." in page_text(response)
    assert item_files(item) == []


def test_a_webp_and_a_transparent_png_get_a_jpeg_variation(demo_app):
    with demo_app.test_request_context():
        in_seller_instance()
        for data, name in (
            (image_bytes("WEBP", (640, 640)), "a.webp"),
            (image_bytes("PNG", (500, 1000), mode="RGBA"), "b.png"),
        ):
            file = file_services.store_file(data, name, None)
            small = Image.open(io.BytesIO(file.small))
            assert small.format == "JPEG" and max(small.size) == 320
        db.session.rollback()


def test_the_type_is_read_from_the_bytes_not_the_name():
    assert file_services.sniff(image_bytes("JPEG")) == "jpeg"
    assert file_services.sniff(image_bytes("PNG")) == "png"
    assert file_services.sniff(image_bytes("WEBP")) == "webp"
    assert file_services.sniff(PDF) == "pdf"
    assert file_services.sniff(EXE) is None
    assert file_services.clean_name("../../etc/pass\x00wd.png") == "passwd.png"
    assert file_services.clean_name('C:\\fake\\"bil".jpg') == "bil.jpg"


def test_a_long_name_without_an_extension_gets_one_within_the_stored_length(demo_app):
    with demo_app.test_request_context():
        kind, name = file_services.check_upload(image_bytes("PNG"), "b" * 300)
    assert kind.content_type == "image/png"
    assert len(name) == file_services.TITLE_MAX and name.endswith("b.png")


# --- isolation ---------------------------------------------------------------------------------


def _file_on(item, owner_email: str):
    """Store a picture on `item` directly, in the item's instance."""
    activate(item.instance_id)
    file = FileObject(
        name="p.png", content_type="image/png", size=3, data=b"png", small=b"jpg",
        created_by_id=demo_user(owner_email).id, instance_id=item.instance_id,
    )  # fmt: skip
    item_file = ItemFile(item_id=item.id, file=file, title="p", instance_id=item.instance_id)
    db.session.add(item_file)
    db.session.flush()
    return item_file


def test_files_of_another_instance_are_not_found(as_demo):
    client, _ = as_demo("seller")
    item_file = _file_on(foreign_item(), "buyer@demo.test")
    uuid = item_file.file.uuid
    for path in (
        f"/api/file-objects/{uuid}/binary",
        f"/api/file-objects/{uuid}/binary?variation=small",
        f"/api/preparation-item-files/{item_file.id}/view",
    ):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.is_json and "could not be found" in response.json["message"]
    assert (
        client.get(f"/file-download/{item_file.id}/p.png", follow_redirects=True).status_code == 404
    )


def test_files_of_a_division_outside_the_users_rights_are_not_found(as_demo):
    item = demo_item(4, division="Nordbil Göteborg")
    item_file = _file_on(item, "seller@demo.test")
    client, _ = as_demo("station")  # Nordbil Solna only
    assert client.get(f"/api/file-objects/{item_file.file.uuid}/binary").status_code == 404
    assert client.get(f"/api/preparation-item-files/{item_file.id}/view").status_code == 404
    seller, _ = as_demo("seller")
    assert seller.get(f"/api/preparation-item-files/{item_file.id}/view").data == b"png"


def test_uploading_to_another_instances_item_is_not_found(as_demo):
    client, token = as_demo("seller")
    before = stored_files()
    response = upload(client, token, foreign_item(), image_bytes(), "x.png")
    assert response.status_code == 404
    assert stored_files() == before


def test_files_need_a_signed_in_user(client):
    assert client.get("/api/file-objects/abc/binary").status_code == 401
    assert client.get("/api/preparation-item-files/1/view").status_code == 401


def test_a_full_disk_is_refused_with_a_clear_message_and_nothing_stored(as_demo, monkeypatch):
    """SQLite's "database or disk is full" at the flush of the new file (the real full disk on
    PostgreSQL is tests/faults): the form says so, in the user's language, and keeps the title."""
    import sqlite3

    from sqlalchemy.exc import OperationalError

    client, token = as_demo("seller")
    item = demo_item(4)
    before = stored_files()
    flush = db.session.flush

    def full(*args, **kwargs):
        if any(isinstance(obj, FileObject) for obj in db.session.new):
            raise OperationalError(
                "INSERT", {}, sqlite3.OperationalError("database or disk is full")
            )
        return flush(*args, **kwargs)

    monkeypatch.setattr(db.session, "flush", full)
    response = upload(client, token, item, PDF, "besiktning.pdf", "Min titel")
    assert response.status_code == 422
    html = page_text(response)
    assert "There is no room left to store this. Nothing was saved" in html
    assert 'value="Min titel"' in html
    client.get("/?lang=sv-SE")
    response = upload(client, token, item, PDF, "besiktning.pdf", "Min titel")
    assert "Det finns inget utrymme kvar att lagra detta. Inget sparades" in page_text(response)
    monkeypatch.undo()
    assert stored_files() == before
    assert item_files(item) == []


def comment_with(client, token, item, content: str, *images):
    return client.post(
        f"/begcare/items/{item.id}/comments",
        data={
            "csrf_token": token,
            "content": content,
            "images": [(io.BytesIO(data), name) for data, name in images],
        },
        content_type="multipart/form-data",
    )


def test_a_vehicle_comment_takes_images_shown_to_who_may_see_the_vehicle(as_demo):
    client, token = as_demo("seller")
    item = demo_item(4, division="Nordbil Göteborg")
    response = comment_with(client, token, item, "Repa på dörren", (image_bytes(), "repa.png"))
    assert response.status_code == 302
    comment = db.session.scalars(select(ItemComment).where(ItemComment.item_id == item.id)).one()
    [image] = comment.images
    html = page_text(client.get(response.headers["Location"]))
    url = f"/api/file-objects/{image.file.uuid}/binary"
    assert f'src="{url}?variation=small"' in html and 'alt="repa.png"' in html
    assert client.get(url).status_code == 200
    assert client.get(f"{url}?variation=small").mimetype == "image/jpeg"
    station, _ = as_demo("station")  # Nordbil Solna only: not this vehicle's comments
    assert station.get(url).status_code == 404


def test_an_image_alone_is_a_comment_and_a_pdf_is_refused_next_to_the_images(as_demo):
    client, token = as_demo("seller")
    item = demo_item(4)
    assert comment_with(client, token, item, "", (image_bytes(), "bild.png")).status_code == 302
    before = stored_files()
    response = comment_with(client, token, item, "Se bifogat", (PDF, "protokoll.pdf"))
    assert response.status_code == 422
    html = page_text(response)
    assert re.search(r'id="images-error"[^>]*>Only images can be added to a comment\.<', html)
    assert "Se bifogat" in html  # the text is kept
    assert stored_files() == before
    assert db.session.scalar(select(func.count()).where(ItemComment.item_id == item.id)) == 1
