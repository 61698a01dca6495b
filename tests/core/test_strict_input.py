# ruff: noqa: F811  (the shared demo fixtures are imported by name)
"""Issue 18, defect 5: every integer from a form or query is read by one strict rule (ASCII
digits within the column's range, else 422 naming the field), and whatever the JSON decoder
cannot read is a 400, never a 500."""

import pytest
from sqlalchemy import func, select

from app.core.numbers import BadInteger, parse_int
from app.extensions import db
from app.preparation.models import PreparationItem
from tests.conftest import csrf_token
from tests.helpers import page_text
from tests.preparation.manage_helpers import demo_item, in_seller_instance
from tests.preparation.test_items import vehicle_form
from tests.shell.conftest import as_demo, demo_user  # noqa: F401

DEEP = "[" * 1000 + "]" * 1000
DEEP_OBJECT = '{"a":' * 1000 + "1" + "}" * 1000


@pytest.mark.parametrize(
    ("raw", "ok"),
    [
        ("0", True),
        ("42", True),
        ("2147483647", True),
        ("2147483648", False),
        (str(2**63), False),
        ("-1", False),
        ("+1", False),
        (" 1", False),
        ("1_000", False),
        ("١٢", False),  # Arabic-Indic digits, which int() would take
        ("１２", False),  # full-width digits
        ("", False),
        ("abc", False),
        ("1e3", False),
    ],
)
def test_the_strict_rule(raw, ok):
    if ok:
        assert parse_int(raw, "n") == int(raw)
    else:
        with pytest.raises(BadInteger) as info:
            parse_int(raw, "n")
        assert info.value.field == "n"


@pytest.mark.parametrize("body", [DEEP, DEEP_OBJECT, '{"email": "a@b.test", "x": ' + DEEP + "}"])
def test_deep_json_on_the_anonymous_login_call_is_a_400(client, body):
    response = client.post(
        "/api/auth/login",
        data=body,
        headers={"Content-Type": "application/json", "Origin": "http://localhost"},
    )
    assert response.status_code == 400
    assert response.get_json()["message"]


def test_deep_json_on_a_signed_in_call_is_a_400(as_demo):
    client, token = as_demo("seller")
    response = client.patch(
        "/api/me/options",
        data=DEEP_OBJECT,
        headers={"Content-Type": "application/json", "X-CSRFToken": token},
    )
    assert response.status_code == 400


def test_a_non_numeric_package_is_refused_on_its_field(as_demo):
    client, token = as_demo("seller")
    in_seller_instance()
    count = db.session.scalar(select(func.count()).select_from(PreparationItem))
    response = client.post(
        "/begcare/manage/vehicle?action=add&lang=en-GB",
        data=vehicle_form(token, package_id="abc"),
    )
    assert response.status_code == 422
    assert 'id="package_id-error"' in page_text(response)
    assert db.session.scalar(select(func.count()).select_from(PreparationItem)) == count


@pytest.mark.parametrize("value", [str(2**63), "99999999999999999999", "٣", "-4", "4.0"])
def test_a_state_out_of_range_is_a_422_naming_the_field(as_demo, value):
    client, token = as_demo("seller")
    item = demo_item(state=4)
    response = client.post(
        f"/begcare/items/{item.id}/move", data={"to_state": value, "csrf_token": token}
    )
    assert response.status_code == 422
    assert "to_state" in page_text(response) or "State" in page_text(response)
    db.session.expire_all()
    assert db.session.get(PreparationItem, item.id).state == 4


@pytest.mark.parametrize(
    "query",
    [
        "enum[state]=" + str(2**63),
        "enum[state]=٣",
        "advancedFilter[mileageFrom]=" + "9" * 30,
        "modelYear=１２",
        "page=" + str(2**63),
    ],
)
def test_overview_integers_out_of_range_are_refused(as_demo, query):
    client, _token = as_demo("seller")
    response = client.get(f"/begcare/overview?{query}")
    assert response.status_code in (200, 422), response.status_code


def test_a_path_id_beyond_the_column_is_not_found(as_demo):
    client, _token = as_demo("seller")
    assert client.get(f"/begcare/items/incoming/{2**63}").status_code == 404
    client.get("/error")
    assert csrf_token(client, "/error")


@pytest.mark.parametrize("method", ["get", "put", "delete"])
def test_a_path_id_beyond_the_column_names_nothing_for_every_method(as_demo, method):
    # Found by schemathesis: PUT /api/dashboard-widgets/2147483648 answered 405 (the GET rule
    # matched the path and only the range check of the PUT rule refused it): it names nothing.
    client, token = as_demo("seller")
    for path in ("/api/dashboard-widgets/2147483648", f"/api/dashboard-widgets/{2**63}"):
        answer = getattr(client, method)(path, json={}, headers={"X-CSRFToken": token})
        assert answer.status_code == 404
    assert (
        client.put(
            "/api/dashboard-widgets/2147483647", json={}, headers={"X-CSRFToken": token}
        ).status_code
        == 404
    )


# Found by the fuzzing gate (issue 15): unknown fields were silently dropped, and a body of
# another media type was refused without naming a field.
def test_an_unknown_field_is_refused_naming_it(as_demo):
    client, token = as_demo("seller")
    response = client.patch(
        "/api/me/options",
        json={"timeZone": "Europe/Stockholm", "timezone": "Europe/Oslo"},
        headers={"X-CSRFToken": token},
    )
    assert response.status_code == 422
    assert response.get_json()["keys"] == {"timezone": "INVALID_VALUE"}
    assert response.get_json()["errors"]["timezone"]
    doc = client.get("/api/openapi.json").get_json()
    assert doc["components"]["schemas"]["OptionsBody"]["additionalProperties"] is False


def test_a_body_that_is_not_a_json_object_names_the_body(client):
    response = client.post(
        "/api/auth/login",
        data='{"email": "a@b.se", "password": "x"}',
        headers={"Content-Type": "text/plain", "Origin": "http://localhost"},
    )
    assert response.status_code == 422
    assert response.get_json()["keys"] == {"body": "INVALID_VALUE"}
    assert response.get_json()["message"] == response.get_json()["errors"]["body"]


# Found by the isolation sweep (issue 15): saving a value of a quick test the user may not see
# read the body first and answered 422; the test is found first, so it is a 404.
def test_a_value_of_a_test_in_another_division_is_not_found(demo_client):
    from app.quicktest.models import StorageContainer
    from tests.gates.test_isolation import one_division_user
    from tests.helpers import sign_in

    user = one_division_user()  # every module, Nordbil Göteborg only
    token = sign_in(demo_client, user)
    test = db.session.scalars(
        select(StorageContainer)
        .where(StorageContainer.division_id != user.divisions[0].id)
        .execution_options(all_instances=True)
        .limit(1)
    ).one()
    response = demo_client.put(
        f"/api/preparation-storage-containers/{test.id}/values",
        json={},
        headers={"X-CSRFToken": token},
    )
    assert response.status_code == 404
