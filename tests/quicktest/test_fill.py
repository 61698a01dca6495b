"""Starting, filling in and finishing a quick test; the test's JSON call; who may see what."""

import re

import pytest
from sqlalchemy import func, select

from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import FileObject, PreparationItem
from app.quicktest.models import StorageContainer, StorageContainerValue
from tests.factories import make_user
from tests.helpers import documented, page_text, sign_in
from tests.quicktest.conftest import (
    demo_storage,
    division,
    finished_tests,
    foreign_test,
    group,
    info,
    instance,
    png,
)


def start(client, token, regno="ABC123", storage=None, division_name="Nordbil Solna", **extra):
    data = {
        "csrf_token": token,
        "regno": regno,
        "storage": str(storage or demo_storage().id),
        "division": str(division(division_name).id),
        **extra,
    }
    return client.post("/quick-test/start", data=data)


def started(response) -> StorageContainer:
    test_id = int(re.search(r"/quick-test/(\d+)/fill", response.headers["Location"]).group(1))
    return db.session.get(StorageContainer, test_id)


def put_value(client, token, test, group_title, info_title, value):
    storage_id = test.storage_id
    return client.put(
        f"/api/preparation-storage-containers/{test.id}/values",
        json={
            "group": group(group_title, storage_id).id,
            "information": info(info_title).id,
            "value": value,
        },
        headers={"X-CSRFToken": token},
    )


@pytest.fixture
def new_test(seller):
    client, token = seller
    response = start(client, token)
    assert response.status_code == 302
    return client, token, started(response)


def test_the_list_shows_the_demo_tests_and_finds_one_by_regno(seller):
    client, _ = seller
    first, second, *_trade_in = finished_tests()
    page = page_text(client.get("/quick-test"))
    assert first.identifier in page and second.identifier in page
    found = page_text(client.get(f"/quick-test?q={first.identifier.lower()}"))
    assert first.identifier in found and second.identifier not in found
    assert "No quick tests found." in page_text(client.get("/quick-test?q=zzz999"))


def test_a_user_without_the_module_gets_403(as_demo):
    client, _ = as_demo("buyer")
    assert client.get("/quick-test").status_code == 403


def test_a_test_starts_by_regno_and_opens_its_first_group(new_test):
    client, _, test = new_test
    assert test.identifier == "ABC123" and test.reported_at is None
    page = client.get(f"/quick-test/{test.id}/fill")
    text = page_text(page)
    assert "Step 1 of 4" in text and "Paint damage" in text
    assert 'accept="image/*" capture="environment"' in page.get_data(as_text=True)


def test_a_bad_regno_is_refused_with_the_input_kept(seller):
    client, token = seller
    before = db.session.scalar(select(func.count()).select_from(StorageContainer))
    response = start(client, token, regno="12 ?!")
    assert response.status_code == 422
    text = page_text(response)
    assert "is not a valid registration number" in text
    assert 'value="12 ?!"' in text
    assert db.session.scalar(select(func.count()).select_from(StorageContainer)) == before


def test_a_storage_or_division_of_another_instance_is_refused(seller):
    client, token = seller
    other = foreign_test()
    assert start(client, token, storage=other.storage_id).status_code == 422
    assert start(client, token, division_name="Fjordauto Bergen").status_code == 422


def test_a_test_starts_from_a_vehicle_and_is_tied_to_it(seller):
    client, token = seller
    activate(instance("Nordbil AB").id)
    item = db.session.scalars(
        select(PreparationItem).where(PreparationItem.state == 4).order_by(PreparationItem.id)
    ).first()
    activate(None)
    form = client.get(f"/quick-test/start?item={item.id}")
    assert item.regno in page_text(form)
    response = start(client, token, regno="", item=str(item.id))
    test = started(response)
    assert test.item_id == item.id and test.identifier == item.regno
    assert test.division_id == item.division_id


def test_a_vehicle_of_another_instance_is_not_found(seller):
    client, token = seller
    activate(instance("Fjordauto AS").id)
    item = db.session.scalars(select(PreparationItem)).first()
    activate(None)
    assert client.get(f"/quick-test/start?item={item.id}").status_code == 404
    assert start(client, token, item=str(item.id)).status_code == 404


def test_values_are_saved_one_by_one_and_shown_in_the_divisions_format(new_test):
    client, token, test = new_test
    response = put_value(client, token, test, "Teknik", "Mätarställning", "123 456")
    assert response.status_code == 200
    assert response.json["value"] == "123456"
    assert response.json["text"] == "123\xa0456 km"
    assert put_value(client, token, test, "Exteriör", "Lackskador", "Små").status_code == 200
    assert put_value(client, token, test, "Interiör", "Rökfri", "1").json["text"] == "Yes"
    amount = put_value(client, token, test, "Värdering", "Uppskattad reparationskostnad", "4500,5")
    assert amount.json["text"] == "4\xa0500,50\xa0kr"
    # An empty value clears the field.
    assert put_value(client, token, test, "Exteriör", "Lackskador", "").json["value"] is None
    review = page_text(client.get(f"/quick-test/{test.id}/review"))
    assert "123\xa0456 km" in review and "Yes" in review


@pytest.mark.parametrize(
    ("info_title", "group_title", "value", "message"),
    [
        ("Mätarställning", "Teknik", "12.5", "Enter the mileage as a whole number, 0 or more."),
        ("Mätarställning", "Teknik", "-3", "Enter the mileage as a whole number, 0 or more."),
        ("Mönsterdjup sommardäck (mm)", "Exteriör", "abc", "Enter a number."),
        ("Mönsterdjup sommardäck (mm)", "Exteriör", "1e400", "Enter a number."),
        ("Lackskador", "Exteriör", "Enorma", "Choose one of the options."),
        ("Senaste service", "Teknik", "31/12/2026", "Enter a date as year-month-day, e.g. 2026-05-31."),
        ("Jämförbar annons", "Värdering", "javascript:alert(1)", "Enter a web address starting with http:// or https://."),
        ("Rökfri", "Interiör", "kanske", "Answer yes or no."),
        ("Felkoder", "Teknik", "x" * 256, "Use at most 255 characters."),
        ("Bild framifrån", "Exteriör", "text", "Add an image with the camera or a file."),
    ],
)  # fmt: skip
def test_a_bad_value_is_refused_with_its_message_and_nothing_saved(
    new_test, info_title, group_title, value, message
):
    client, token, test = new_test
    response = put_value(client, token, test, group_title, info_title, value)
    assert response.status_code == 422
    assert response.json["message"] == message
    assert not db.session.scalars(
        select(StorageContainerValue).where(StorageContainerValue.container_id == test.id)
    ).all()


def test_a_field_of_another_storage_or_a_malformed_body_is_refused(new_test):
    client, token, test = new_test
    other = foreign_test()
    response = client.put(
        f"/api/preparation-storage-containers/{test.id}/values",
        json={"group": group("Generelt", other.storage_id).id, "information": info("Merknad").id},
        headers={"X-CSRFToken": token},
    )
    assert response.status_code == 404
    response = client.put(
        f"/api/preparation-storage-containers/{test.id}/values",
        json={"group": "x", "information": 1},
        headers={"X-CSRFToken": token},
    )
    assert response.status_code == 422


def test_the_step_form_saves_without_the_script_and_keeps_bad_input(new_test):
    client, token, test = new_test
    exterior = group("Exteriör", test.storage_id)
    lack = f"v-{exterior.id}-{info('Lackskador').id}"
    depth = f"v-{exterior.id}-{info('Mönsterdjup sommardäck (mm)').id}"
    bad = client.post(
        f"/quick-test/{test.id}/fill?step=1",
        data={"csrf_token": token, lack: "Små", depth: "djup", "go": "next"},
    )
    assert bad.status_code == 422
    assert "Enter a number." in page_text(bad) and 'value="djup"' in page_text(bad)
    assert not db.session.scalars(
        select(StorageContainerValue).where(StorageContainerValue.container_id == test.id)
    ).all()
    good = client.post(
        f"/quick-test/{test.id}/fill?step=1",
        data={"csrf_token": token, lack: "Små", depth: "6,5", "go": "next"},
    )
    assert good.status_code == 302 and good.headers["Location"].endswith("step=2")
    values = {
        v.value
        for v in db.session.scalars(
            select(StorageContainerValue).where(StorageContainerValue.container_id == test.id)
        )
    }
    assert values == {"Små", "6.5"}


def test_an_image_is_checked_by_content_and_served_under_the_test(new_test):
    client, token, test = new_test
    exterior = group("Exteriör", test.storage_id)
    response = client.post(
        f"/api/preparation-storage-containers/{test.id}/images",
        data={"group": str(exterior.id), "information": str(info("Bild framifrån").id),
              "file": (__import__("io").BytesIO(png()), "front.png")},
        headers={"X-CSRFToken": token},
    )  # fmt: skip
    assert response.status_code == 201
    small = client.get(response.json["fileObject"]["smallUrl"])
    assert small.status_code == 200 and small.mimetype == "image/jpeg"
    assert small.headers["X-Content-Type-Options"] == "nosniff"
    # A group photo (the group takes photos) may be added too.
    photo = client.post(
        f"/api/preparation-storage-containers/{test.id}/images",
        data={"group": str(exterior.id), "file": (__import__("io").BytesIO(png()), "x.png")},
        headers={"X-CSRFToken": token},
    )
    assert photo.status_code == 201


@pytest.mark.parametrize(
    ("data", "name", "message"),
    [
        (b"not an image at all", "photo.jpg", "Only JPEG, PNG and WebP images and PDF documents can be uploaded."),
        (b"%PDF-1.4\n%%EOF\n", "doc.pdf", "Only JPEG, PNG and WebP images can be added."),
        (b"\x89PNG\r\n\x1a\nbroken", "broken.png", "The file is not a valid image."),
        (None, "forged.pdf", "The file name ends in .pdf but the file is a PNG file."),
    ],
)  # fmt: skip
def test_a_wrong_file_is_refused_and_nothing_stored(new_test, data, name, message):
    import io

    client, token, test = new_test
    files_before = db.session.scalar(select(func.count()).select_from(FileObject))
    response = client.post(
        f"/api/preparation-storage-containers/{test.id}/images",
        data={"group": str(group("Exteriör", test.storage_id).id),
              "information": str(info("Bild framifrån").id),
              "file": (io.BytesIO(data if data is not None else png()), name)},
        headers={"X-CSRFToken": token},
    )  # fmt: skip
    assert response.status_code == 422
    assert response.json["message"] == message
    assert db.session.scalar(select(func.count()).select_from(FileObject)) == files_before


def test_a_group_without_photos_takes_none(new_test):
    import io

    client, token, test = new_test
    response = client.post(
        f"/api/preparation-storage-containers/{test.id}/images",
        data={"group": str(group("Interiör", test.storage_id).id),
              "file": (io.BytesIO(png()), "x.png")},
        headers={"X-CSRFToken": token},
    )  # fmt: skip
    assert response.status_code == 422
    assert response.json["message"] == "This group takes no images."


def test_finishing_reports_the_test_once_and_locks_it(new_test):
    client, token, test = new_test
    assert client.get(f"/quick-test/{test.id}/review").status_code == 200
    response = client.post(f"/quick-test/{test.id}/finish", data={"csrf_token": token})
    assert response.status_code == 302
    db.session.refresh(test)
    reported = test.reported_at
    assert reported is not None
    client.post(f"/quick-test/{test.id}/finish", data={"csrf_token": token})
    db.session.refresh(test)
    assert test.reported_at == reported
    locked = put_value(client, token, test, "Exteriör", "Lackskador", "Små")
    assert locked.status_code == 409
    page = page_text(client.get(f"/quick-test/{test.id}"))
    assert f"/quick-test/view/{test.uuid}" in page and "Print" in page
    assert client.get(f"/quick-test/{test.id}/fill").status_code == 302


def test_the_uuid_is_128_random_bits(new_test):
    _, _, test = new_test
    assert re.fullmatch(r"[0-9a-f]{32}", test.uuid)


def test_a_finished_test_shows_on_its_vehicles_page(seller):
    client, _ = seller
    test = finished_tests()[0]
    item = db.session.get(PreparationItem, test.item_id)
    page = page_text(client.get(f"/{item.module}/{item.id}", follow_redirects=True))
    assert "Quick tests" in page and f"/quick-test/{test.id}" in page


def test_the_call_answers_the_test_with_storage_values_and_division(seller):
    client, _ = seller
    test = finished_tests()[0]
    data = client.get(f"/api/preparation-storage-containers/{test.id}").json
    assert data["identifier"] == test.identifier
    assert data["division"]["name"] == "Nordbil Solna"
    assert data["division"]["region"]["country"]["locale"] == "sv-SE"
    assert data["storage"]["title"] == "Quick test, used vehicle"  # in the reader's language
    assert [g["title"] for g in data["storage"]["groups"]] == [
        "Exterior",
        "Interior",
        "Technical",
        "Valuation",
    ]
    assert data["storage"]["groups"][2]["children"][0]["title"] == "Brakes"
    assert data["user"] == {"firstname": "Sara", "lastname": "Lindqvist"}
    images = [v for v in data["values"] if v["type"] == "image"]
    assert len(images) == 3
    assert client.get(images[0]["fileObject"]["url"]).mimetype == "image/jpeg"


def test_another_instances_test_is_not_found_anywhere(seller):
    client, token = seller
    other = foreign_test()
    for path in (
        f"/quick-test/{other.id}",
        f"/quick-test/{other.id}/fill",
        f"/quick-test/{other.id}/review",
        f"/pdf-preview/quick-test/{other.id}",
        f"/api/preparation-storage-containers/{other.id}",
    ):
        assert client.get(path).status_code == 404, path
    assert (
        client.post(f"/quick-test/{other.id}/finish", data={"csrf_token": token}).status_code == 404
    )


def test_a_test_in_a_division_outside_the_users_rights_is_not_found(demo_client):
    user = make_user(
        instance("Nordbil AB"), modules=["quickTest"], divisions=[division("Nordbil Solna")]
    )
    sign_in(demo_client, user)
    outside = next(t for t in finished_tests() if t.division_id != division("Nordbil Solna").id)
    inside = next(t for t in finished_tests() if t.division_id == division("Nordbil Solna").id)
    assert demo_client.get(f"/quick-test/{outside.id}").status_code == 404
    assert demo_client.get(f"/api/preparation-storage-containers/{outside.id}").status_code == 404
    assert demo_client.get(f"/quick-test/{inside.id}").status_code == 200
    assert outside.identifier not in page_text(demo_client.get("/quick-test"))


def test_the_pages_need_a_signed_in_user(client):
    assert client.get("/quick-test").status_code == 302
    assert client.get("/pdf-preview/quick-test/1").status_code == 302
    assert client.get("/api/preparation-storage-containers/1").status_code == 401


def test_the_file_owner_rule_follows_the_test(demo_app):
    """For the per-owner file registry: a quick-test image is readable by who may see its test."""
    from app.quicktest.access import can_read_file

    test = finished_tests()[0]
    file_id = db.session.scalars(
        select(StorageContainerValue.file_object_id)
        .where(StorageContainerValue.container_id == test.id)
        .where(StorageContainerValue.file_object_id.is_not(None))
        .execution_options(all_instances=True)
    ).first()
    seller = make_user(
        instance("Nordbil AB"), modules=["quickTest"], divisions=[division("Nordbil Solna")]
    )
    outsider = make_user(
        instance("Nordbil AB"), modules=["quickTest"], divisions=[division("Nordbil Borås")]
    )
    no_module = make_user(instance("Nordbil AB"), modules=["begcare"], all_divisions=True)
    for user, expected in ((seller, True), (outsider, False), (no_module, False)):
        with demo_app.test_request_context():
            from flask import g
            from flask_login import login_user

            g.pop("viewer", None)  # the test's app context (and its g) outlives each request
            login_user(user)
            activate(user.active_instance_id)
            assert can_read_file(file_id) is expected, (user.email, user.divisions, user.modules)
            assert can_read_file(-1) is None


def test_the_vehicle_page_shows_no_quick_tests_without_the_module(demo_client):
    test = finished_tests()[0]
    item = db.session.get(PreparationItem, test.item_id)
    user = make_user(instance("Nordbil AB"), modules=["begcare"], all_divisions=True)
    sign_in(demo_client, user)
    page = page_text(demo_client.get(f"/{item.module}/{item.id}", follow_redirects=True))
    assert item.regno in page
    assert "Start a quick test" not in page and f"/quick-test/{test.id}" not in page


def test_image_and_value_answers_are_the_documented_ones(new_test):
    # Found by schemathesis: the 201, 204 and 409 of these calls were missing from the document.
    client, token, test = new_test
    base = f"/api/preparation-storage-containers/{test.id}"
    template = "/api/preparation-storage-containers/{test_id}"
    exterior = group("Exteriör", test.storage_id)
    added = client.post(
        f"{base}/images",
        data={"group": str(exterior.id), "file": (__import__("io").BytesIO(png()), "x.png")},
        headers={"X-CSRFToken": token},
    )
    assert added.status_code == 201 in documented(client, "post", f"{template}/images")
    removed = client.delete(f"{base}/images/{added.json['id']}", headers={"X-CSRFToken": token})
    assert (
        removed.status_code
        == 204
        in documented(client, "delete", f"{template}/images/{{value_id}}")
    )
    client.post(f"/quick-test/{test.id}/finish", data={"csrf_token": token})
    locked = [
        (put_value(client, token, test, "Exteriör", "Lackskador", "Små"), "put", "/values"),
        (
            client.post(
                f"{base}/images",
                data={
                    "group": str(exterior.id),
                    "file": (__import__("io").BytesIO(png()), "y.png"),
                },
                headers={"X-CSRFToken": token},
            ),
            "post",
            "/images",
        ),
        (
            client.delete(f"{base}/images/{added.json['id']}", headers={"X-CSRFToken": token}),
            "delete",
            "/images/{value_id}",
        ),
    ]
    for answer, method, suffix in locked:
        assert answer.status_code == 409
        assert 409 in documented(client, method, template + suffix)


def test_an_id_written_as_a_whole_float_is_the_integer_the_document_allows(new_test):
    # Found by schemathesis: JSON Schema's "integer" takes 576.0; the call refused it (422).
    client, token, test = new_test
    answer = client.put(
        f"/api/preparation-storage-containers/{test.id}/values",
        json={
            "group": float(group("Exteriör", test.storage_id).id),
            "information": float(info("Lackskador").id),
            "value": "Små",
        },
        headers={"X-CSRFToken": token},
    )
    assert answer.status_code == 200 and answer.json["value"] == "Små"
    half = client.put(
        f"/api/preparation-storage-containers/{test.id}/values",
        json={"group": 1.5, "information": 1, "value": "Små"},
        headers={"X-CSRFToken": token},
    )
    assert half.status_code == 422 and "group" in half.json["errors"]


def test_an_image_form_part_the_server_cannot_read_is_outside_the_document(new_test):
    # Found by schemathesis: a part named `a\` (the backslash escapes the closing quote) was
    # valid by the document but cannot be read (400).
    client, token, test = new_test
    answer = client.post(
        f"/api/preparation-storage-containers/{test.id}/images",
        data=(
            b'--b\r\nContent-Disposition: form-data; name="a\\"\r\n\r\n[]\r\n'
            b'--b\r\nContent-Disposition: form-data; name="group"\r\n\r\n1\r\n--b--\r\n'
        ),
        headers={"Content-Type": "multipart/form-data; boundary=b", "X-CSRFToken": token},
    )
    assert answer.status_code == 400
    doc = client.get("/api/openapi.json").get_json()
    call = doc["paths"]["/api/preparation-storage-containers/{test_id}/images"]["post"]
    form = call["requestBody"]["content"]["multipart/form-data"]["schema"]
    names = re.compile(form["propertyNames"]["pattern"])
    assert names.match("group") and not names.match("a\\") and not names.match('a"')
    assert not re.match(form["additionalProperties"]["pattern"], "x\x00")
