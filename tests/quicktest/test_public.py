"""The public view of a quick test: signed out, by its uuid only, finished tests only."""

import pytest
from sqlalchemy import select

from app.extensions import db
from app.preparation.models import FileObject
from app.quicktest.models import StorageContainerValue
from tests.helpers import documented, page_text
from tests.quicktest.conftest import finished_tests, foreign_test


def test_the_public_view_shows_the_test_signed_out(demo_client):
    test = finished_tests()[0]
    response = demo_client.get(f"/quick-test/view/{test.uuid}")
    assert response.status_code == 200
    text = page_text(response)
    for expected in (  # the template's words in the reader's language (English here)
        test.identifier, "Nordbil Solna", "Quick test, used vehicle", "Trade-in",
        "Sara Lindqvist", "Exterior", "Interior", "Technical", "Brakes", "Valuation",
        "Paint damage", "Minor", "Välskött bil i gott skick.",
    ):  # fmt: skip
        assert expected in text, expected
    # Groups and child groups in order.
    assert text.index("Exterior") < text.index("Interior") < text.index("Technical")
    assert text.index("Technical") < text.index("Brakes") < text.index("Valuation")
    assert "<script" not in text  # light: no framework, no script
    images = [
        m for m in text.split('src="')[1:] if m.startswith(f"/quick-test/view/{test.uuid}/images/")
    ]
    assert len(images) == 3


def test_public_images_stream_only_under_their_own_test(demo_client):
    first, second, *_trade_in = finished_tests()
    file_uuid = db.session.scalars(
        select(FileObject.uuid)
        .join(StorageContainerValue, StorageContainerValue.file_object_id == FileObject.id)
        .where(StorageContainerValue.container_id == first.id)
        .execution_options(all_instances=True)
    ).first()
    ok = demo_client.get(f"/quick-test/view/{first.uuid}/images/{file_uuid}")
    assert ok.status_code == 200 and ok.mimetype == "image/jpeg"
    assert ok.data.startswith(b"\xff\xd8\xff")
    small = demo_client.get(f"/quick-test/view/{first.uuid}/images/{file_uuid}?variation=small")
    assert small.status_code == 200
    assert demo_client.get(f"/quick-test/view/{second.uuid}/images/{file_uuid}").status_code == 404
    # Not through the staff file route without signing in.
    assert demo_client.get(f"/api/file-objects/{file_uuid}/binary").status_code == 401


def test_the_public_call_answers_the_spec_fields(demo_client):
    test = finished_tests()[0]
    data = demo_client.get(f"/api/_public/quick-test/view/{test.uuid}").json
    assert data["identifier"] == test.identifier
    assert data["reportedAt"]
    assert data["division"]["name"] == "Nordbil Solna"
    assert (
        data["storage"]["title"] == "Quick test, used vehicle"
        and data["storage"]["group"] == "Trade-in"
    )
    assert data["user"]["firstname"] == "Sara"
    group = data["storage"]["groups"][0]
    assert group["options"] == {"imageSupport": True, "showTitle": True}
    assert {"id", "title", "type", "ordering"} <= set(group["informations"][0])
    image = next(v for v in data["values"] if v["type"] == "image")
    assert image["fileObject"]["url"].startswith(f"/quick-test/view/{test.uuid}/images/")


@pytest.mark.parametrize("uuid", ["", "0b8a4c1e", "f" * 32, "not-a-uuid", "G" * 32])
def test_a_missing_or_unknown_uuid_is_invalid_url(demo_client, uuid):
    page = demo_client.get(f"/quick-test/view/{uuid}")
    assert page.status_code == 404
    assert "This link is not valid." in page_text(page)
    assert 'data-message-key="INVALID_URL"' in page_text(page)
    call = demo_client.get(f"/api/_public/quick-test/view/{uuid}")
    assert call.status_code == 404
    template = "/api/_public/quick-test/view/" + ("{uuid}" if uuid else "")
    assert 404 in documented(demo_client, "get", template)
    assert call.json == {"error": "INVALID_URL", "message": "This link is not valid."}


def test_an_unfinished_test_is_not_shared(demo_client):
    test = foreign_test(reported=False)
    assert demo_client.get(f"/quick-test/view/{test.uuid}").status_code == 404
    assert demo_client.get(f"/api/_public/quick-test/view/{test.uuid}").status_code == 404


def test_the_public_view_reads_in_the_readers_language(demo_client):
    test = finished_tests()[0]
    text = page_text(demo_client.get(f"/quick-test/view/{test.uuid}?lang=sv-SE"))
    assert "Snabbtest" in text and "Registreringsnummer" in text


def test_public_requests_are_rate_limited(demo_app, demo_client):
    from app.core import ratelimit

    test = finished_tests()[0]
    demo_app.config["PUBLIC_RATE_LIMIT"] = "2/60"
    ratelimit._local.clear()
    try:
        assert demo_client.get(f"/quick-test/view/{test.uuid}").status_code == 200
        assert demo_client.get(f"/api/_public/quick-test/view/{test.uuid}").status_code == 200
        limited = demo_client.get(f"/api/_public/quick-test/view/{test.uuid}")
        assert limited.status_code == 429 and limited.headers["Retry-After"]
        assert demo_client.get(f"/quick-test/view/{test.uuid}").status_code == 429
    finally:
        demo_app.config["PUBLIC_RATE_LIMIT"] = "1000000/60"
        ratelimit._local.clear()


def test_a_user_of_another_instance_opens_the_public_link_too(as_demo):
    client, _ = as_demo("buyer")  # Fjordauto, no quick-test module
    test = finished_tests()[0]
    page = client.get(f"/quick-test/view/{test.uuid}")
    assert page.status_code == 200 and test.identifier in page_text(page)
    assert client.get(f"/api/_public/quick-test/view/{test.uuid}").json["identifier"] == (
        test.identifier
    )
    # ...but not the staff pages of that test.
    assert client.get(f"/quick-test/{test.id}").status_code == 404
