"""Issue 18, defect 9: Cache-Control no-store on signed-in and public-link JSON and on private
file downloads; Allow on every 405; an API document that lists every status a call answers and
every request body, and no body value the server refuses."""

# ruff: noqa: F811  (the shared demo fixtures are imported by name)
import pytest

from app.core.tenancy import activate
from app.extensions import db
from app.market.models import AdvertImage
from app.preparation import files as file_services
from tests.helpers import sign_in
from tests.market._common import make_advert, nordbil
from tests.market._invite import make_invite
from tests.preparation.manage_helpers import image_bytes
from tests.shell.conftest import as_demo, demo_user  # noqa: F401


def test_signed_in_json_is_never_stored(as_demo):
    client, _ = as_demo("seller")
    response = client.get("/api/me")
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    assert client.get("/api/me/instances").headers["Cache-Control"] == "no-store"


def test_public_link_json_is_never_stored(demo_app, demo_client):
    invite = make_invite(demo_app)
    response = demo_client.get(f"/api/_public/instance-invites/{invite.hash}")
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    missing = demo_client.get("/api/_public/instance-invites/nope")
    assert missing.headers["Cache-Control"] == "no-store"


def test_private_file_downloads_are_never_stored(as_demo):
    group = nordbil()
    advert = make_advert(group, "draft")
    activate(group.instance_id)
    file = file_services.store_file(image_bytes(), "car.png", None)
    db.session.flush()
    image = AdvertImage(advert_id=advert.id, file_object_id=file.id, position=0)
    db.session.add(image)
    db.session.flush()
    activate(None)
    client, _ = as_demo("seller")
    for path in (
        f"/api/file-objects/{file.uuid}/binary",
        f"/market/adverts/{advert.id}/images/{image.id}",
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.headers["Cache-Control"] == "no-store", path


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("delete", "/api/me", {"GET"}),
        ("put", "/api/auth/login", {"POST"}),
        ("get", "/api/_public/instance-invites/x/accept-invite", {"PUT"}),
        ("post", "/api/me/options", {"PATCH"}),
    ],
)
def test_a_405_says_which_methods_are_allowed(client, method, path, allowed):
    response = getattr(client, method)(path)
    assert response.status_code == 405
    methods = {m.strip() for m in response.headers["Allow"].split(",")}
    assert allowed <= methods
    assert methods - allowed <= {"HEAD", "OPTIONS"}


def test_an_unknown_api_path_is_a_json_404(client):
    response = client.post("/api/no-such-call")
    assert response.status_code == 404 and response.is_json


def test_the_document_lists_every_request_body(client):
    doc = client.get("/api/openapi.json").get_json()
    update = doc["paths"]["/api/_public/market-bid/{action}/{group_hash}/{advert_hash}/{user_hash}"]
    bodies = update["put"]["requestBody"]["content"]["application/json"]["schema"]["oneOf"]
    assert {b["$ref"].rsplit("/", 1)[1] for b in bodies} == {"AllocateBody", "StatusBody"}
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method in ("post", "put", "patch"):
                assert "requestBody" in op or path.endswith(
                    (
                        "deny-invite",
                        "/impersonate/{user_id}",
                        "change-active-instance/{instance_id}",
                        "/dashboard-widgets/{widget_id}/copy",
                        "/system-messages/{message_id}/viewed",
                    )
                ), (method, path)
    upload = doc["paths"]["/api/preparation-storage-containers/{test_id}/images"]["post"]
    form = upload["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert form["properties"]["file"] == {"type": "string", "format": "binary"}


def test_the_document_refuses_no_value_it_publishes(client):
    schemas = client.get("/api/openapi.json").get_json()["components"]["schemas"]
    bid = schemas["BidBody"]["properties"]["bid"]
    assert bid["type"] == "integer" and bid["minimum"] == 1 and "anyOf" not in bid
    allocate = schemas["AllocateBody"]["properties"]
    assert allocate["allocatedSalesPrice"]["type"] == "integer"
    assert "enum" in schemas["StatusBody"]["properties"]["status"]


def test_the_document_lists_every_status_a_call_answers(client):
    doc = client.get("/api/openapi.json").get_json()
    paths = doc["paths"]
    assert {"200", "400", "401", "403", "422", "429"} <= set(
        paths["/api/auth/login"]["post"]["responses"]
    )
    invite = paths["/api/_public/instance-invites/{invite_hash}/accept-invite"]["put"]["responses"]
    assert {"200", "400", "404", "409", "422", "429"} <= set(invite)
    bid = paths["/api/_public/market-bid/{group_hash}/{advert_hash}/{user_hash}"]["post"]
    assert {"200", "201", "404", "422", "429"} <= set(bid["responses"])
    for item in paths.values():
        for op in item.values():
            if op.get("x-public"):
                assert "429" in op["responses"]
            else:
                assert {"401", "403"} <= set(op["responses"]) and op["security"]
    seen = paths["/api/preparation-custom-list-seen/{seen_id}"]["delete"]["responses"]
    assert "204" in seen and "200" not in seen
    # A state-changing call names the CSRF header it needs.
    options = paths["/api/me/options"]["patch"]
    assert any(p["name"] == "X-CSRFToken" and p["in"] == "header" for p in options["parameters"])


def test_signing_in_again_is_possible_after_the_document_was_read(demo_client):
    sign_in(demo_client, demo_user("seller@demo.test"))
    assert demo_client.get("/api/openapi.json").status_code == 200
