"""The vehicle import: preview with per-row errors, the job, idempotency, the counters."""

import io

import pytest
from openpyxl import Workbook
from sqlalchemy import func, select

from app.admin import imports
from app.admin.models import ImportRun
from app.core import roles as R
from app.core.models import Division
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import ItemStateCount, ItemStateEvent, PreparationItem
from app.preparation.services import recount
from tests.factories import make_instance, make_user
from tests.helpers import page_text, sign_in

HEADER = "regno;vin;brand;model;model_year;mileage;state;division;sales_price\n"


def csv_file(division: str, n: int = 20, extra: str = "") -> bytes:
    lines = [HEADER]
    for i in range(n):
        lines.append(
            f"ABC{i:02d}{i % 10};;Volvo;V60;2020;{1000 + i};{'parked' if i % 2 else ''};{division};199 900\n"
        )
    return ("".join(lines) + extra).encode()


def setup_admin():
    instance = make_instance()
    user = make_user(instance, roles=["ROLE_USER", R.ROLE_ADMIN], all_divisions=True)
    activate(instance.id)
    division = db.session.scalars(select(Division).order_by(Division.id)).first()
    return user, division


def upload(client, token, content: bytes, name="cars.csv", module="begcare"):
    return client.post(
        "/admin/general/import",
        data={"csrf_token": token, "module": module, "file": (io.BytesIO(content), name)},
        content_type="multipart/form-data",
    )


def counters(instance_id):
    return {
        (c.division_id, c.state): c.count
        for c in db.session.scalars(select(ItemStateCount).where(ItemStateCount.count != 0))
    }


def test_preview_then_import_then_reimport_changes_nothing(client):
    user, division = setup_admin()
    token = sign_in(client, user)
    bad_rows = (
        "XX;;Volvo;V60;;;;{d};\nDEF456;123;;V70;;;;{d};\nGHI789;;Saab;9-3;;;flying;Nowhere;\n"
    )
    content = csv_file(division.name, 20, bad_rows.format(d=division.name))
    preview = upload(client, token, content)
    assert preview.status_code == 302
    run_url = preview.headers["Location"]
    text = page_text(client.get(run_url))
    assert "Import 20 vehicles" in text
    assert "XX is not a valid registration number here" in text  # Sverige: ABC123
    assert "A VIN has 17 characters" in text and "Enter the brand." in text
    assert "Division Nowhere is not one of the instance" in text
    assert db.session.scalar(select(func.count()).select_from(PreparationItem)) == 0

    run_id = int(run_url.rsplit("/", 1)[1])
    started = client.post(f"{run_url}/start", data={"csrf_token": token})
    assert started.status_code == 302
    db.session.expire_all()
    run = db.session.get(ImportRun, run_id)
    assert (run.status, run.created, run.failed, run.unchanged) == ("done", 20, 3, 0)
    assert client.get(f"{run_url}/progress").json["percent"] == 100
    items = db.session.scalars(select(PreparationItem)).all()
    assert len(items) == 20 and {i.module for i in items} == {"begcare"}
    assert sorted({i.state for i in items}) == [2, 5]
    assert str(items[0].sales_price) == "199900.00"
    assert db.session.scalar(select(func.count()).select_from(ItemStateEvent)) == 20
    before = counters(user.active_instance_id)
    assert before == {(division.id, 2): 10, (division.id, 5): 10}
    recount(user.active_instance_id)  # the counters the import kept equal a full recount
    assert counters(user.active_instance_id) == before

    again = upload(client, token, content)
    text = page_text(client.get(again.headers["Location"]))
    assert "There is nothing new to import in this file." in text
    assert db.session.scalar(select(func.count()).select_from(PreparationItem)) == 20


def test_xlsx_and_swedish_errors(client):
    user, division = setup_admin()
    token = sign_in(client, user)
    book = Workbook()
    sheet = book.active
    sheet.append(["Regno", "VIN", "Brand", "Model", "Division"])
    sheet.append(["ABC123", "YV1ZW72V1J1234567", "Volvo", "XC60", division.name])
    sheet.append(["ABC124", "", "", "XC60", division.name])
    data = io.BytesIO()
    book.save(data)
    client.set_cookie("language", "sv-SE")
    response = upload(client, token, data.getvalue(), "cars.xlsx", "newcare")
    text = page_text(client.get(response.headers["Location"]))
    assert "Ange märke." in text  # the row's error in the reader's language
    assert "Importera 1 fordon" in text


def test_unreadable_file_is_refused_with_the_input_kept(client):
    user, _division = setup_admin()
    token = sign_in(client, user)
    response = upload(client, token, b"hello", "cars.pdf")
    assert response.status_code == 422
    assert "Choose a CSV or XLSX file." in page_text(response)
    response = upload(client, token, b"name;colour\nx;y\n", "cars.csv")
    assert "needs a column regno or vin" in page_text(response)


def test_other_instances_run_is_404_and_readers_cannot_import(client):
    user, division = setup_admin()
    token = sign_in(client, user)
    run_url = upload(client, token, csv_file(division.name, 2)).headers["Location"]
    other = make_user(make_instance(), roles=["ROLE_USER", R.ROLE_ADMIN])
    token2 = sign_in(client, other)
    assert client.get(run_url).status_code == 404
    assert client.post(f"{run_url}/start", data={"csrf_token": token2}).status_code == 404
    reader = make_user(make_instance(), roles=["ROLE_USER", R.tenant_read("IMPORT")])
    token3 = sign_in(client, reader)
    assert client.get("/admin/general/import").status_code == 200
    assert upload(client, token3, csv_file("x", 1)).status_code == 403


def test_an_import_that_breaks_off_is_marked_failed_and_its_chunk_is_not_kept(client, monkeypatch):
    user, division = setup_admin()
    token = sign_in(client, user)
    run_url = upload(client, token, csv_file(division.name, 5)).headers["Location"]
    run_id = int(run_url.rsplit("/", 1)[1])
    run = db.session.get(ImportRun, run_id)
    run.status = "queued"
    db.session.commit()

    def broken(*args):
        raise RuntimeError("the counters' table is locked")

    monkeypatch.setattr(imports, "_bump", broken)
    with pytest.raises(RuntimeError):
        imports.run_import(run_id)
    db.session.expire_all()
    run = db.session.get(ImportRun, run_id)
    assert run.status == "failed" and run.finished_at is not None
    assert db.session.scalar(select(func.count()).select_from(PreparationItem)) == 0
    assert client.get(f"{run_url}/progress").json["status"] == "failed"
