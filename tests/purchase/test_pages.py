"""The module's pages and actions: list, create, approval requests, statistics, valuations,
comments with images, the calculation, approval, buying in, and the admin screens."""

import io
import re

import pytest
from PIL import Image
from sqlalchemy import func, select

from app.core.models import Instance
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import FileObject, PreparationItem
from app.purchase.models import (
    Calculator,
    PurchaseAnalysis,
    PurchaseComment,
    PurchasePriority,
    PurchaseValuation,
)
from app.purchase.services import comment_image_owner
from tests.factories import make_user
from tests.helpers import page_text, sign_in


def jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 20, 20)).save(out, "JPEG")
    return out.getvalue()


def count(model, **where) -> int:
    stmt = select(func.count()).select_from(model).execution_options(all_instances=True)
    for name, value in where.items():
        stmt = stmt.where(getattr(model, name) == value)
    return db.session.scalar(stmt)


def test_list_shows_the_instances_analyses_only(signed_in, world, other):
    client, _ = signed_in
    response = client.get("/purchase-analysis/list")
    assert response.status_code == 200
    text = page_text(response)
    assert "XYZ123" in text and text.count("PA-2026-0001") == 1
    assert client.get(f"/purchase-analysis/{world.analysis.id}").status_code == 200
    assert "XYZ123" not in page_text(client.get("/purchase-analysis/list?q=saab"))


def test_the_module_is_needed(client, world):
    sign_in(client, make_user(world.instance, modules=["begcare"], all_divisions=True))
    assert client.get("/purchase-analysis/list").status_code == 404
    assert client.get(f"/purchase-analysis/{world.analysis.id}").status_code == 404


def test_create_saves_vehicle_data_and_inputs(signed_in, world):
    client, token = signed_in
    response = client.post("/purchase-analysis/create", data={
        "csrf_token": token, "division_id": world.divisions[1].id, "regno": "abc 123",
        "brand": "Volvo", "model": "XC40", "model_year": "2022", "mileage": "12 000",
        "fuel_type": "Electric", f"field_{world.field.id}": "Summer",
    })  # fmt: skip
    assert response.status_code == 302
    created = db.session.scalars(
        select(PurchaseAnalysis).where(PurchaseAnalysis.regno == "ABC123")
    ).one()
    assert (created.model, created.mileage, created.model_year) == ("XC40", 12000, 2022)
    assert created.inputs == {str(world.field.id): "Summer"}
    assert created.created_by_id == world.user.id and created.status == "draft"
    assert created.identifier == f"PA-{created.created_at.year}-{created.id:04d}"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"brand": ""}, "brand"),
        ({"model_year": "20x2"}, "model_year"),
        ({"fuel_type": "Steam"}, "fuel_type"),
        ({"field_X": "Autumn"}, "field_X"),
    ],
)
def test_create_refuses_bad_input_keeping_it_and_saving_nothing(signed_in, world, change, field):
    client, token = signed_in
    data = {"csrf_token": token, "division_id": world.divisions[0].id, "regno": "KEPT12",
            "brand": "Volvo", "model": "XC40"}  # fmt: skip
    change = {k.replace("X", str(world.field.id)): v for k, v in change.items()}
    data.update(change)
    before = count(PurchaseAnalysis)
    response = client.post("/purchase-analysis/create", data=data)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert f'id="pa-{field.replace("X", str(world.field.id))}-error"' in html
    assert 'value="KEPT12"' in html
    assert count(PurchaseAnalysis) == before


def test_create_refuses_a_division_of_another_instance(signed_in, world, other):
    client, token = signed_in
    response = client.post("/purchase-analysis/create", data={
        "csrf_token": token, "division_id": other.divisions[0].id, "regno": "ABC123",
        "brand": "Volvo", "model": "XC40"})  # fmt: skip
    assert response.status_code == 422


def test_approval_requests_follow_the_module_option(signed_in, world):
    client, token = signed_in
    client.post(
        f"/purchase-analysis/{world.analysis.id}/status",
        data={"csrf_token": token, "status": "requested"},
    )
    assert "XYZ123" in page_text(client.get("/purchase-analysis/approval-requests"))
    instance = db.session.get(Instance, world.instance.id)
    instance.options = {"purchaseAnalysis": {"showApprovalRequestsList": False}}
    instance.menu_version += 1
    db.session.flush()
    assert client.get("/purchase-analysis/approval-requests").status_code == 404


def test_statistics_need_a_statistics_role(client, world):
    sign_in(client, world.user)
    assert client.get("/purchase-analysis/statistics").status_code == 403
    for role in ("ROLE_STATISTICS", "ROLE_USER_PA_STATISTICS"):
        user = make_user(
            world.instance,
            roles=["ROLE_USER", role],
            modules=["purchaseAnalysis"],
            all_divisions=True,
        )
        sign_in(client, user)
        response = client.get("/purchase-analysis/statistics")
        assert response.status_code == 200
        assert "Nordbil" not in page_text(response) and world.divisions[0].name in page_text(
            response
        )


def test_a_valuation_is_added_with_user_and_division(signed_in, world):
    client, token = signed_in
    response = client.post(f"/purchase-analysis/{world.analysis.id}/valuation",
                           data={"csrf_token": token, "price_in": "190 000", "price_out": "", "valuation_source": "Auction"})  # fmt: skip
    assert response.status_code == 302
    added = db.session.scalars(
        select(PurchaseValuation).where(PurchaseValuation.source == "Auction")
    ).one()
    assert float(added.price_in) == 190000 and added.price_out is None
    assert (added.user_id, added.division_id) == (world.user.id, world.divisions[0].id)


@pytest.mark.parametrize(
    "data", [{"price_in": "", "price_out": ""}, {"price_in": "lots"}, {"price_in": "-5"}]
)
def test_a_bad_valuation_is_refused(signed_in, world, data):
    client, token = signed_in
    before = count(PurchaseValuation)
    response = client.post(
        f"/purchase-analysis/{world.analysis.id}/valuation", data={"csrf_token": token, **data}
    )
    assert response.status_code == 422
    assert 'id="pa-price_in-error"' in response.get_data(as_text=True)
    assert count(PurchaseValuation) == before


def test_a_comment_with_a_real_image_is_stored_and_printed(signed_in, world):
    client, token = signed_in
    response = client.post(
        f"/purchase-analysis/{world.analysis.id}/comment",
        data={
            "csrf_token": token,
            "content": "Scratch on the door",
            "images": (io.BytesIO(jpeg()), "door.jpg"),
        },
        content_type="multipart/form-data",
    )
    assert response.status_code == 302
    comment = db.session.scalars(select(PurchaseComment)).one()
    assert comment.content == "Scratch on the door" and len(comment.images) == 1
    assert comment_image_owner(comment.images[0].file_object_id).id == world.analysis.id
    html = client.get(f"/pdf-preview/purchase-analysis/{world.analysis.id}").get_data(as_text=True)
    assert "Scratch on the door" in html and 'src="data:image/jpeg;base64,' in html
    image = client.get(f"/api/file-objects/{comment.images[0].file.uuid}/binary")
    assert image.status_code == 200 and image.mimetype == "image/jpeg"


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (b"GIF89a fake", "door.jpg"),
        (b"%PDF-1.4 fake document", "doc.pdf"),
        (b"\xff\xd8\xff broken", "door.jpg"),
    ],
)
def test_a_comment_image_is_checked_by_its_content(signed_in, world, data, name):
    client, token = signed_in
    before = (count(PurchaseComment), count(FileObject))
    response = client.post(
        f"/purchase-analysis/{world.analysis.id}/comment",
        data={"csrf_token": token, "content": "kept text", "images": (io.BytesIO(data), name)},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'id="pa-images-error"' in html and "kept text" in html
    assert (count(PurchaseComment), count(FileObject)) == before


def test_the_calculation_is_saved_as_the_latest(signed_in, world):
    client, token = signed_in
    response = client.post(f"/purchase-analysis/{world.analysis.id}/calculation",
                           data={"csrf_token": token, "calculator_id": world.calculator.id, "input_value": "100 000"})  # fmt: skip
    assert response.status_code == 302
    db.session.expire_all()
    calc = db.session.get(PurchaseAnalysis, world.analysis.id).latest_calculation
    assert calc["outputValue"] == 80000.0 and calc["presetPercent"] == 10.0


def test_a_calculator_of_another_instance_is_refused(signed_in, world, other):
    client, token = signed_in
    response = client.post(f"/purchase-analysis/{world.analysis.id}/calculation",
                           data={"csrf_token": token, "calculator_id": other.calculator.id, "input_value": "1"})  # fmt: skip
    assert response.status_code == 422


def test_actions_on_another_instances_analysis_are_404(signed_in, other):
    client, token = signed_in
    for action in ("valuation", "comment", "calculation", "status", "buy"):
        response = client.post(
            f"/purchase-analysis/{other.analysis.id}/{action}", data={"csrf_token": token}
        )
        assert response.status_code == 404, action
    assert client.get(f"/purchase-analysis/{other.analysis.id}").status_code == 404


def test_only_an_admin_approves_and_an_approved_analysis_becomes_an_incoming_vehicle(client, world):
    token = sign_in(client, world.user)
    status = f"/purchase-analysis/{world.analysis.id}/status"
    assert client.post(status, data={"csrf_token": token, "status": "approved"}).status_code == 403
    assert (
        client.post(
            f"/purchase-analysis/{world.analysis.id}/buy", data={"csrf_token": token}
        ).status_code
        == 422
    )
    boss = make_user(world.instance, roles=["ROLE_ADMIN", "ROLE_USER_BEGCARE_ADD_VEHICLE"],
                     modules=["begcare", "purchaseAnalysis"], all_divisions=True)  # fmt: skip
    token = sign_in(client, boss)
    assert client.post(status, data={"csrf_token": token, "status": "approved"}).status_code == 302
    assert (
        client.post(
            f"/purchase-analysis/{world.analysis.id}/buy", data={"csrf_token": token}
        ).status_code
        == 302
    )
    activate(world.instance.id)
    item = db.session.scalars(
        select(PreparationItem).where(PreparationItem.regno == "XYZ123")
    ).one()
    activate(None)
    assert (item.module, item.state, item.model) == ("begcare", 2, "V60")
    assert float(item.purchase_price) == 180000 and float(item.sales_price) == 229000
    # a second time is refused, nothing doubled
    assert (
        client.post(
            f"/purchase-analysis/{world.analysis.id}/buy", data={"csrf_token": token}
        ).status_code
        == 422
    )
    assert count(PreparationItem, regno="XYZ123") == 1


def test_admin_screens_follow_the_menu_roles(client, world):
    plain = make_user(world.instance, modules=["purchaseAnalysis"], all_divisions=True)
    sign_in(client, plain)
    for path in ("/admin/purchase-analysis/purchase-analyses-dynamic-fields",
                 "/admin/purchase-analysis/purchase-analyses-priorities", "/admin/general/calculators"):  # fmt: skip
        assert client.get(path).status_code == 403
    reader = make_user(world.instance, roles=["ROLE_USER", "ROLE_TENANT_CALCULATOR_READ"],
                       modules=["purchaseAnalysis"], all_divisions=True)  # fmt: skip
    token = sign_in(client, reader)
    response = client.get("/admin/general/calculators")
    assert response.status_code == 200 and "Trade-in" in page_text(response)
    assert (
        client.post(
            "/admin/general/calculators/new", data={"csrf_token": token, "title": "x"}
        ).status_code
        == 403
    )


def test_an_admin_adds_a_calculator_and_bad_rows_are_refused(client, world, other):
    admin = make_user(
        world.instance, roles=["ROLE_ADMIN"], modules=["purchaseAnalysis"], all_divisions=True
    )
    token = sign_in(client, admin)
    base = {
        "csrf_token": token,
        "title": "Quick",
        "preset_description": "Margin",
        "preset_percent": "8",
    }
    bad = client.post("/admin/general/calculators/new", data={**base, "rows-0-title": "Tyres", "rows-0-value": "x",
                                                              "rows-0-operator": "-", "rows-0-unit": "currency"})  # fmt: skip
    assert bad.status_code == 422 and 'value="Tyres"' in bad.get_data(as_text=True)
    good = client.post("/admin/general/calculators/new", data={**base, "rows-0-title": "Tyres", "rows-0-value": "6000",
                                                               "rows-0-operator": "-", "rows-0-unit": "currency"})  # fmt: skip
    assert good.status_code == 302
    saved = db.session.scalars(select(Calculator).where(Calculator.title == "Quick")).one()
    assert saved.rows == [{"title": "Tyres", "operator": "-", "value": 6000.0, "unit": "currency"}]
    row = {"rows-0-title": "Tyres", "rows-0-value": "6000", "rows-0-operator": "-",
           "rows-0-unit": "currency"}  # fmt: skip
    edit = f"/admin/general/calculators/{saved.id}/edit"
    wrong = client.post(edit, data={**base, **row, "row_titles_texts-de-DE": "Reifen\nMarge"})
    assert wrong.status_code == 422 and "Write 1 option, on one line" in page_text(wrong)
    right = {**base, **row, "row_titles_texts-de-DE": "Reifen", "title_texts-de-DE": "Schnell"}
    assert client.post(edit, data=right).status_code == 302
    db.session.expire_all()
    saved = db.session.get(Calculator, saved.id)
    assert (saved.title_texts, saved.row_titles_texts) == (
        {"de-DE": "Schnell"},
        {"de-DE": "Reifen"},
    )
    listed = page_text(client.get("/admin/general/calculators?lang=de-DE"))
    assert "Schnell" in listed and "- Reifen (6000.0)" in listed
    # another instance's row: 404 to edit or delete
    assert (
        client.post(
            f"/admin/general/calculators/{other.calculator.id}/delete", data={"csrf_token": token}
        ).status_code
        == 404
    )
    assert (
        client.post(f"/admin/general/calculators/{other.calculator.id}/edit", data=base).status_code
        == 404
    )


def test_a_prioritys_name_is_kept_in_each_language_and_read_in_the_readers(client, world):
    admin = make_user(
        world.instance, roles=["ROLE_ADMIN"], modules=["purchaseAnalysis"], all_divisions=True
    )
    token = sign_in(client, admin)
    path = "/admin/purchase-analysis/purchase-analyses-priorities"
    assert "Name in each language" in page_text(client.get(f"{path}/new"))
    texts = {"name_texts-de-DE": "Dringend", "name_texts-sv-SE": "Brådskande"}
    data = {"csrf_token": token, "name": "Brådskande", "ordering": "1", **texts}
    assert client.post(f"{path}/new", data=data).status_code == 302
    priority = db.session.scalars(
        select(PurchasePriority).where(PurchasePriority.name == "Brådskande")
    ).one()
    assert priority.name_texts == {"de-DE": "Dringend", "sv-SE": "Brådskande"}
    german = page_text(client.get(f"{path}?lang=de-DE"))
    assert "Dringend" in german and "Brådskande" not in german
    form = page_text(client.get("/purchase-analysis/create?lang=de-DE"))
    assert ">Dringend</option>" in form


def test_an_admin_adds_a_priority_and_a_field(client, world):
    admin = make_user(
        world.instance, roles=["ROLE_ADMIN"], modules=["purchaseAnalysis"], all_divisions=True
    )
    token = sign_in(client, admin)
    path = "/admin/purchase-analysis/purchase-analyses-priorities/new"
    assert (
        client.post(path, data={"csrf_token": token, "name": "Urgent", "ordering": "1"}).status_code
        == 302
    )
    assert db.session.scalars(
        select(PurchasePriority).where(PurchasePriority.name == "Urgent")
    ).one()
    path = "/admin/purchase-analysis/purchase-analyses-dynamic-fields/new"
    refused = client.post(
        path, data={"csrf_token": token, "title": "Tyres", "section": "S", "field_type": "select"}
    )
    assert refused.status_code == 422 and 'id="choices-error"' in refused.get_data(as_text=True)
    assert (
        client.post(
            path, data={"csrf_token": token, "title": "Km", "section": "S", "field_type": "mileage"}
        ).status_code
        == 302
    )


ODD = ["²", "99999999999", "--5", "-1", "1e3", "٣", " 7 ", "0x10", "<b>"]


@pytest.mark.parametrize("value", ODD)
def test_odd_ids_and_numbers_never_answer_500(signed_in, world, value):
    client, token = signed_in
    admin = make_user(
        world.instance, roles=["ROLE_ADMIN"], modules=["purchaseAnalysis"], all_divisions=True
    )
    base = f"/purchase-analysis/{world.analysis.id}"
    answers = [
        client.get(f"/purchase-analysis/list?page={value}"),
        client.get(f"/pdf-preview/purchase-analysis/{world.analysis.id}?divisions={value}&itemsPerPage={value}"),
        client.get(f"/api/_preparation-statistics/model-analysis?module=purchaseAnalysis&modelID=volvo|v60&division[]={value}"),
        client.get(f"/api/preparation-items/current-inventory?modelID=volvo|v60&itemsPerPage={value}"),
        client.post(f"{base}/calculation", data={"csrf_token": token, "calculator_id": value, "input_value": value}),
        client.post(f"{base}/valuation", data={"csrf_token": token, "price_in": value}),
        client.post("/purchase-analysis/create", data={"csrf_token": token, "division_id": value, "regno": "ABC123",
                                                       "brand": "a", "model": "b", "model_year": value, "mileage": value}),
    ]  # fmt: skip
    token = sign_in(client, admin)
    answers += [
        client.get(f"/admin/general/calculators?page={value}&q={value}"),
        client.post("/admin/purchase-analysis/purchase-analyses-priorities/new",
                    data={"csrf_token": token, "name": "x", "ordering": value}),
        client.post(f"/admin/general/calculators/{value}/delete", data={"csrf_token": token}),
    ]  # fmt: skip
    assert all(a.status_code < 500 for a in answers), [a.status_code for a in answers]


def test_the_valuation_and_basic_knowledge_are_saved_and_printed(signed_in, world):
    client, token = signed_in
    response = client.post(f"/purchase-analysis/{world.analysis.id}/market", data={
        "csrf_token": token, "priceMin": "150 000", "priceMax": "190000", "priceAvg": "170000",
        "pricePrediction": "", "source": "Auction data", "annualTax": "2 400", "annualMalus": "",
        "chassis": "SUV", "segment": "", "equipment": "Towbar, Heated seats", "trimPackages": "",
    })  # fmt: skip
    assert response.status_code == 302
    db.session.expire_all()
    saved = db.session.get(PurchaseAnalysis, world.analysis.id)
    assert saved.valuation == {
        "priceMin": 150000.0,
        "priceMax": 190000.0,
        "priceAvg": 170000.0,
        "source": "Auction data",
    }
    assert saved.basic == {
        "annualTax": 2400.0,
        "chassis": "SUV",
        "equipment": ["Towbar", "Heated seats"],
    }
    html = client.get(f"/pdf-preview/purchase-analysis/{world.analysis.id}").get_data(as_text=True)
    assert "Auction data" in html and "Heated seats" in html


@pytest.mark.parametrize(
    ("data", "field"),
    [({"priceMin": "200", "priceMax": "100"}, "priceMax"), ({"priceAvg": "cheap"}, "priceAvg"),
     ({"chassis": "x" * 61}, "chassis")],
)  # fmt: skip
def test_a_bad_valuation_keeps_the_old_one(signed_in, world, data, field):
    client, token = signed_in
    response = client.post(
        f"/purchase-analysis/{world.analysis.id}/market", data={"csrf_token": token, **data}
    )
    assert response.status_code == 422
    assert f'id="pa-{field}-error"' in response.get_data(as_text=True)
    db.session.expire_all()
    assert db.session.get(PurchaseAnalysis, world.analysis.id).valuation["priceAvg"] == 220000


def test_a_price_prediction_is_added_in_date_order(signed_in, world):
    client, token = signed_in
    data = {
        "csrf_token": token,
        "prediction_date": "2026-12-01",
        "prediction_price": "225000",
        "prediction_source": "Model",
    }
    assert (
        client.post(f"/purchase-analysis/{world.analysis.id}/prediction", data=data).status_code
        == 302
    )
    db.session.expire_all()
    dates = [
        p["date"] for p in db.session.get(PurchaseAnalysis, world.analysis.id).price_predictions
    ]
    assert dates == ["2026-12-01", "2027-01-01"]
    bad = client.post(f"/purchase-analysis/{world.analysis.id}/prediction",
                      data={**data, "prediction_date": "31.12.2026"})  # fmt: skip
    assert bad.status_code == 422 and 'value="31.12.2026"' in bad.get_data(as_text=True)


def test_an_image_field_takes_a_real_image_and_prints_it(signed_in, world):
    from app.purchase.models import PurchaseDynamicField

    activate(world.instance.id)
    photo = PurchaseDynamicField(title="Photo", section="Condition", field_type="image", ordering=2)
    db.session.add(photo)
    db.session.flush()
    activate(None)
    client, token = signed_in
    data = {
        "csrf_token": token,
        "division_id": world.divisions[0].id,
        "regno": "IMG123",
        "brand": "Volvo",
        "model": "V60",
    }
    before = count(FileObject)
    fake = client.post("/purchase-analysis/create", content_type="multipart/form-data",
                       data={**data, f"field_{photo.id}": (io.BytesIO(b"GIF89a not a jpeg"), "car.jpg")})  # fmt: skip
    assert fake.status_code == 422 and f'id="pa-field_{photo.id}-error"' in fake.get_data(
        as_text=True
    )
    assert count(FileObject) == before
    response = client.post("/purchase-analysis/create", content_type="multipart/form-data",
                           data={**data, f"field_{photo.id}": (io.BytesIO(jpeg()), "car.jpg")})  # fmt: skip
    assert response.status_code == 302
    created = db.session.scalars(
        select(PurchaseAnalysis).where(PurchaseAnalysis.regno == "IMG123")
    ).one()
    assert created.inputs[str(photo.id)]["name"] == "car.jpg"
    html = client.get(f"/pdf-preview/purchase-analysis/{created.id}").get_data(as_text=True)
    assert 'class="pa-input-image" src="data:image/jpeg;base64,' in html
    assert client.get(f"/purchase-analysis/{created.id}").status_code == 200
    image = client.get(f"/api/file-objects/{created.inputs[str(photo.id)]['uuid']}/binary")
    assert image.status_code == 200 and image.mimetype == "image/jpeg"  # the analysis' own


def test_a_uuid_typed_into_a_field_grants_no_file(signed_in, world):
    from app.preparation import files
    from app.purchase.models import PurchaseDynamicField

    client, token = signed_in
    activate(world.instance.id)
    note = PurchaseDynamicField(title="Note", section="Condition", field_type="text", ordering=3)
    db.session.add(note)
    secret = files.store_file(jpeg(), "someone-elses.jpg", None)  # owned by nothing of theirs
    db.session.flush()
    activate(None)
    binary = f"/api/file-objects/{secret.uuid}/binary"
    assert client.get(binary).status_code == 404
    response = client.post(f"/purchase-analysis/{world.analysis.id}/edit", data={
        "csrf_token": token, "division_id": world.divisions[0].id, "regno": "XYZ123",
        "brand": "Volvo", "model": "V60", f"field_{note.id}": secret.uuid,
    })  # fmt: skip
    assert response.status_code == 302
    db.session.expire_all()
    assert secret.uuid in str(db.session.get(PurchaseAnalysis, world.analysis.id).inputs)
    assert client.get(binary).status_code == 404
    html = client.get(f"/pdf-preview/purchase-analysis/{world.analysis.id}").get_data(as_text=True)
    assert "data:image/jpeg;base64," not in html


def test_an_analysis_is_edited_keeping_what_the_form_does_not_change(signed_in, world, other):
    client, token = signed_in
    page = client.get(f"/purchase-analysis/{world.analysis.id}/edit")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'value="XYZ123"' in html and '<option value="Winter" selected>Winter</option>' in html
    response = client.post(f"/purchase-analysis/{world.analysis.id}/edit", data={
        "csrf_token": token, "division_id": world.divisions[1].id, "regno": "XYZ123", "brand": "Volvo",
        "model": "V60", "mileage": "43 500", f"field_{world.field.id}": "Summer",
    })  # fmt: skip
    assert response.status_code == 302
    db.session.expire_all()
    saved = db.session.get(PurchaseAnalysis, world.analysis.id)
    assert (saved.mileage, saved.division_id, saved.model_year) == (
        43500,
        world.divisions[1].id,
        None,
    )
    assert saved.inputs == {str(world.field.id): "Summer"}
    assert saved.valuation["priceAvg"] == 220000  # the valuation is not part of this form
    bad = client.post(
        f"/purchase-analysis/{world.analysis.id}/edit", data={"csrf_token": token, "regno": ""}
    )
    assert bad.status_code == 422
    assert client.get(f"/purchase-analysis/{other.analysis.id}/edit").status_code == 404


def test_an_admin_does_not_approve_their_own_analysis_unless_the_configuration_allows_it(
    client, world
):
    boss = make_user(world.instance, roles=["ROLE_ADMIN", "ROLE_USER"],
                     modules=["begcare", "purchaseAnalysis"], all_divisions=True)  # fmt: skip
    world.analysis.created_by_id = boss.id
    db.session.flush()
    token = sign_in(client, boss)
    page = f"/purchase-analysis/{world.analysis.id}"
    approve = {"csrf_token": token, "status": "approved"}
    assert ">Approve<" not in client.get(page).get_data(as_text=True)
    refused = client.post(f"{page}/status", data=approve)  # straight from draft
    assert refused.status_code == 422
    assert "Another person must approve" in page_text(refused)
    db.session.refresh(world.analysis)
    assert world.analysis.status == "draft" and world.analysis.decided_by_id is None
    # Asked for by someone else, made by the boss: still the boss's own.
    sign_in(client, world.user)
    ask = {"csrf_token": sign_in(client, world.user), "status": "requested"}
    assert client.post(f"{page}/status", data=ask).status_code == 302
    token = sign_in(client, boss)
    assert client.post(f"{page}/status", data={**approve, "csrf_token": token}).status_code == 422
    # A second admin approves it.
    other = make_user(world.instance, roles=["ROLE_ADMIN", "ROLE_USER"],
                      modules=["purchaseAnalysis"], all_divisions=True)  # fmt: skip
    token = sign_in(client, other)
    assert ">Approve<" in client.get(page).get_data(as_text=True)
    assert client.post(f"{page}/status", data={**approve, "csrf_token": token}).status_code == 302
    db.session.refresh(world.analysis)
    assert (world.analysis.status, world.analysis.decided_by_id) == ("approved", other.id)


def test_who_asked_for_approval_does_not_approve_it(client, world):
    boss = make_user(world.instance, roles=["ROLE_ADMIN", "ROLE_USER"],
                     modules=["purchaseAnalysis"], all_divisions=True)  # fmt: skip
    token = sign_in(client, boss)
    status = f"/purchase-analysis/{world.analysis.id}/status"
    assert client.post(status, data={"csrf_token": token, "status": "requested"}).status_code == 302
    assert client.post(status, data={"csrf_token": token, "status": "approved"}).status_code == 422


def test_the_configuration_lets_one_approve_ones_own_analysis(client, world):
    boss = make_user(world.instance, roles=["ROLE_ADMIN", "ROLE_USER"],
                     modules=["purchaseAnalysis"], all_divisions=True)  # fmt: skip
    world.analysis.created_by_id = boss.id
    db.session.flush()
    token = sign_in(client, boss)
    settings = page_text(client.get("/admin/general/configuration"))
    assert "own purchase analysis</label>" in settings  # off by default:
    assert 'name="purchaseAnalysis__allowOwnApproval" type="checkbox" value="y">' in settings
    form = {"csrf_token": token, "purchaseAnalysis__showApprovalRequestsList": "y",
            "purchaseAnalysis__allowOwnApproval": "y"}  # fmt: skip
    assert client.post("/admin/general/configuration", data=form).status_code == 302
    status = f"/purchase-analysis/{world.analysis.id}/status"
    assert client.post(status, data={"csrf_token": token, "status": "approved"}).status_code == 302
    db.session.refresh(world.analysis)
    assert (world.analysis.status, world.analysis.decided_by_id) == ("approved", boss.id)


def test_the_analysis_page_names_each_section_and_source_once(signed_in, world):
    """Issue 37: market prices, price forecasts and valuations are named for what they are, and
    no two fields (or ids) on the page share a label."""
    client, token = signed_in
    html = client.get(f"/purchase-analysis/{world.analysis.id}").get_data(as_text=True)
    headings = re.findall(r"<h2[^>]*>([^<]+)</h2>", html)
    assert {"Market prices", "Price forecasts", "Valuations"} <= set(headings)
    labels = [" ".join(t.split()) for t in re.findall(r"<label for=\"pa-[^\"]+\">([^<]+)", html)]
    assert len(labels) == len(set(labels)), labels
    assert {"Market price source", "Forecast source", "Valuation source"} <= set(labels)
    ids = re.findall(r'\sid="(pa-[^"]+)"', html)
    assert len(ids) == len(set(ids))
    # A valuation refused for its source keeps its input there, not in the market prices' form.
    response = client.post(
        f"/purchase-analysis/{world.analysis.id}/valuation",
        data={"csrf_token": token, "price_in": "1", "valuation_source": "x" * 101},
    )
    assert response.status_code == 422
    text = response.get_data(as_text=True)
    assert 'id="pa-valuation_source-error"' in text
    assert 'value="Market"' in text  # the market price source is the stored one
