"""Data providers as a dealer meets them, against a real local stub provider (http.server in a
thread): the admin sets one up and tests it, the add-vehicle form fetches brand, model, year,
fuel and colour, a purchase analysis gets its valuation; a provider that fails (500, too slow,
not JSON, missing fields), or an address the guard refuses, leaves the form usable with the
input kept and a clear message; another instance's providers are never used."""

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

import pytest
from sqlalchemy import func, select

import app.preparation  # noqa: F401  (first: the menu's imports form a cycle otherwise)
from app.core import roles as R
from app.core.settings import SettingRow
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import PreparationItem
from app.providers import services as svc
from app.providers import stub
from app.providers.demo import demo_providers
from tests.factories import make_instance
from tests.helpers import page_text, sign_in
from tests.purchase.conftest import make_world

ROLES = ["ROLE_USER", R.ROLE_ADMIN, *R.ALL_TENANT_ROLES, "ROLE_USER_BEGCARE_ADD_VEHICLE"]
GOOD = {"data": {"car": {"make": "Saab", "model": "9-3", "year": 2009, "fuel": "diesel",
                         "paint": "Grön"}}, "prices": [{"low": 90000, "high": 110000, "avg": 100000}]}  # fmt: skip
MAPPING = {"brand": "data.car.make", "model": "data.car.model", "model_year": "data.car.year",
           "fuel_type": "data.car.fuel", "color": "data.car.paint", "price_min": "prices[0].low",
           "price_max": "prices[0].high", "price_avg": "prices[0].avg"}  # fmt: skip


class Stub:
    """A provider on 127.0.0.1 answering by path: /good, /partial, /wrong, /nonsense, /500,
    /slow (held until the test lets it go, beyond the provider's time-out)."""

    def __init__(self):
        self.calls: list[tuple[str, dict]] = []
        self.release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                outer.calls.append((self.path, dict(self.headers)))
                path = self.path.split("?")[0]
                if path == "/slow":
                    outer.release.wait(10)
                status, body = {
                    "/good": (200, json.dumps(GOOD)),
                    "/partial": (200, json.dumps({"data": {"car": {"make": "Saab", "year": "old"}}})),
                    "/wrong": (200, json.dumps({"data": {"car": {"make": ["x"], "year": "soon"}}})),
                    "/nonsense": (200, "<html>not json</html>"),
                    "/500": (500, "{}"),
                }.get(path, (200, json.dumps(GOOD)))  # fmt: skip
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def provider_stub():
    found = Stub()
    yield found
    found.close()


@pytest.fixture
def local_allowed(app, monkeypatch):
    monkeypatch.setitem(app.config, "WEBHOOK_ALLOWED_NETWORKS", "127.0.0.1/32")


@pytest.fixture(autouse=True)
def empty_cache():
    svc._CACHE.clear()
    yield
    svc._CACHE.clear()


def add_provider(instance_id, url, kind="vehicle", **data) -> SettingRow:
    activate(instance_id)
    row = SettingRow(kind=svc.ROW_KIND, name=f"Stub {kind}", data={
        "kind": kind, "url": url, "mapping": MAPPING, "timeout": 1, "cache_minutes": 0,
        "auth_header": "X-Api-Key", "auth_value": "s3cret-value-1234", **data,
    })  # fmt: skip
    db.session.add(row)
    db.session.flush()
    activate(None)
    return row


@pytest.fixture
def world(app):
    return make_world(roles=ROLES)


def fetch(client, token, world, **typed):
    data = {"csrf_token": token, "division_id": str(world.divisions[0].id), "regno": "ab c/1",
            "vin": "", "brand": "", "model": "", "mileage": "12 345", "fetch": "1", **typed}  # fmt: skip
    return client.post("/begcare/manage/vehicle?action=add", data=data)


def field_value(html: str, name: str) -> str:
    for tag in re.findall(r"<input[^>]*>", html):
        if f'name="{name}"' in tag:
            found = re.search(r'\bvalue="([^"]*)"', tag)
            return found.group(1) if found else ""
    return ""


def test_add_vehicle_fetch_fills_brand_model_year_fuel_and_colour(
    client, world, provider_stub, local_allowed
):
    add_provider(world.instance.id, provider_stub.base + "/good?regno={regno}&vin={vin}")
    token = sign_in(client, world.user)
    form = client.get("/begcare/manage/vehicle?action=add")
    assert "Fetch from provider" in page_text(form)
    answer = fetch(client, token, world)
    html = page_text(answer)
    assert answer.status_code == 200
    assert "Filled from Stub vehicle." in html
    assert field_value(html, "brand") == "Saab" and field_value(html, "model") == "9-3"
    assert field_value(html, "model_year") == "2009" and field_value(html, "color") == "Grön"
    assert '<option selected value="Diesel">' in html  # "diesel" matched to our fuel type
    assert field_value(html, "mileage") == "12 345"  # what was typed is kept
    # The registration number went URL-encoded, with the auth header; nothing was saved.
    path, headers = provider_stub.calls[0]
    assert "regno=ab%20c%2F1" in path and unquote(path).endswith("regno=ab c/1&vin=")
    assert headers["X-Api-Key"] == "s3cret-value-1234"
    activate(world.instance.id)
    assert db.session.scalar(select(func.count(PreparationItem.id))) == len(world.sold)


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/500", "The provider answered with an error (HTTP 500)."),
        ("/slow", "The provider did not answer within 1 seconds."),
        ("/nonsense", "The provider's answer is not JSON."),
        ("/wrong", "The provider's answer lacks the expected fields: Brand, Model, Model year"),
    ],
)
def test_a_failing_provider_leaves_the_form_usable_with_the_input_kept(
    client, world, provider_stub, local_allowed, path, message
):
    add_provider(world.instance.id, provider_stub.base + path + "?regno={regno}")
    token = sign_in(client, world.user)
    answer = fetch(client, token, world, brand="Volvo", model="V70")
    provider_stub.release.set()
    html = page_text(answer)
    assert answer.status_code == 200
    assert message in html
    assert field_value(html, "brand") == "Volvo" and field_value(html, "model") == "V70"
    assert field_value(html, "regno") == "ab c/1"


def test_a_partial_answer_fills_what_it_has_and_names_the_rest(
    client, world, provider_stub, local_allowed
):
    add_provider(world.instance.id, provider_stub.base + "/partial?regno={regno}")
    token = sign_in(client, world.user)
    html = page_text(fetch(client, token, world, model="V70"))
    assert field_value(html, "brand") == "Saab" and field_value(html, "model") == "V70"
    assert "Not in its answer: Model, Model year, Fuel type, Colour." in html


def test_loopback_is_refused_unless_allowed(client, world, provider_stub):
    add_provider(world.instance.id, provider_stub.base + "/good?regno={regno}")
    token = sign_in(client, world.user)
    html = page_text(fetch(client, token, world))
    assert "The provider's address is not allowed" in html
    assert provider_stub.calls == []  # never called


def test_without_a_provider_the_button_is_not_offered_and_a_post_says_why(client, world):
    token = sign_in(client, world.user)
    assert "Fetch from provider" not in page_text(client.get("/begcare/manage/vehicle?action=add"))
    html = page_text(fetch(client, token, world))
    assert "No vehicle data provider is set up." in html


def test_another_instances_provider_is_never_used(client, world, provider_stub, local_allowed):
    other = make_instance()
    add_provider(other.id, provider_stub.base + "/good?regno={regno}")
    add_provider(other.id, provider_stub.base + "/good?brand={brand}", kind="valuation")
    token = sign_in(client, world.user)
    assert "No vehicle data provider is set up." in page_text(fetch(client, token, world))
    answer = client.post(
        f"/purchase-analysis/{world.analysis.id}/get-valuation", data={"csrf_token": token}
    )
    assert "No valuation provider is set up." in page_text(answer)
    assert provider_stub.calls == []


def test_answers_are_cached_per_provider_and_settings(app, world, provider_stub, local_allowed):
    row = add_provider(world.instance.id, provider_stub.base + "/good?regno={regno}",
                       cache_minutes=10)  # fmt: skip
    with app.test_request_context():
        activate(world.instance.id)
        first = svc.look_up("vehicle", {"regno": "ABC123"})
        assert svc.look_up("vehicle", {"regno": "ABC123"}) == first
        assert len(provider_stub.calls) == 1  # the second came from the cache
        svc.look_up("vehicle", {"regno": "XYZ999"})
        assert len(provider_stub.calls) == 2  # another question is asked
        row.data = {**row.data, "mapping": {"brand": "data.car.make"}}
        db.session.flush()
        assert svc.look_up("vehicle", {"regno": "ABC123"}).values == {"brand": "Saab"}
        assert len(provider_stub.calls) == 3  # changed settings: not the old answer


def test_purchase_analysis_gets_its_valuation_with_the_source_named(
    client, world, provider_stub, local_allowed
):
    add_provider(world.instance.id, provider_stub.base + "/good?b={brand}&m={model}&y={year}&km={mileage}",
                 kind="valuation")  # fmt: skip
    token = sign_in(client, world.user)
    url = f"/purchase-analysis/{world.analysis.id}"
    assert "Get valuation" in page_text(client.get(url))
    answer = client.post(f"{url}/get-valuation", data={"csrf_token": token, "annualTax": "4100"})
    html = page_text(answer)
    assert answer.status_code == 200
    assert field_value(html, "priceMin") == "90000" and field_value(html, "priceAvg") == "100000"
    assert field_value(html, "source") == "Stub valuation"
    assert field_value(html, "annualTax") == "4100"  # typed, kept
    assert "b=Volvo&m=V60&y=2021&km=42000" in provider_stub.calls[0][0]
    # Saving it keeps it, with its source.
    saved = client.post(f"{url}/market", data={
        "csrf_token": token, "priceMin": "90000", "priceMax": "110000", "priceAvg": "100000",
        "source": "Stub valuation"})  # fmt: skip
    assert saved.status_code == 302
    db.session.refresh(world.analysis)
    assert world.analysis.valuation["source"] == "Stub valuation"


def test_a_failing_valuation_provider_keeps_what_was_typed(
    client, world, provider_stub, local_allowed
):
    add_provider(world.instance.id, provider_stub.base + "/500?b={brand}", kind="valuation")
    token = sign_in(client, world.user)
    answer = client.post(
        f"/purchase-analysis/{world.analysis.id}/get-valuation",
        data={"csrf_token": token, "priceMin": "123456", "source": "Mine"},
    )
    html = page_text(answer)
    assert answer.status_code == 422
    assert "The provider answered with an error (HTTP 500)." in html
    assert field_value(html, "priceMin") == "123456" and field_value(html, "source") == "Mine"


def test_admin_sets_up_a_provider_the_secret_masked_and_tests_it(
    client, world, provider_stub, local_allowed
):
    token = sign_in(client, world.user)
    form = {"csrf_token": token, "name": "Registry", "kind": "vehicle",
            "url": provider_stub.base + "/good?regno={regno}", "auth_header": "X-Api-Key",
            "auth_value": "top-secret-abcdef-9876", "map_brand": "data.car.make",
            "map_model": "data.car.model", "map_model_year": "data.car.year", "timeout": "3",
            "cache_minutes": "0", "active": "y"}  # fmt: skip
    # Refusals keep the input: an unknown placeholder, a bad path, a time-out out of bounds.
    refused = client.post("/admin/general/providers/new", data={
        **form, "url": "https://x.test/{plate}", "map_color": "a..b", "timeout": "99"})  # fmt: skip
    text = page_text(refused)
    assert refused.status_code == 422
    assert "Unknown placeholder {plate}" in text and "Write the path with dots" in text
    assert "Enter a whole number from 1 to 30." in text and "a..b" in text
    assert client.post("/admin/general/providers/new", data=form).status_code == 302
    activate(world.instance.id)
    row = db.session.scalars(select(SettingRow).where(SettingRow.kind == "provider")).one()
    assert row.data["auth_value"] == "top-secret-abcdef-9876"
    listing = page_text(client.get("/admin/general/providers"))
    assert "X-Api-Key: ••••9876" in listing and "top-secret" not in listing
    edit = page_text(client.get(f"/admin/general/providers/{row.id}/edit"))
    assert "top-secret" not in edit and "••••9876" in edit
    # Saved again without a value: the secret is kept.
    assert client.post(f"/admin/general/providers/{row.id}/edit",
                       data={**form, "auth_value": ""}).status_code == 302  # fmt: skip
    db.session.refresh(row)
    assert row.data["auth_value"] == "top-secret-abcdef-9876"
    history = page_text(client.get(f"/admin/general/providers/{row.id}/history"))
    assert "top-secret" not in history
    # Test: the mapped answer, or a clear error.
    tested = client.post(f"/admin/general/providers/{row.id}/test",
                         data={"csrf_token": token, "regno": "ABC123", "vin": ""})  # fmt: skip
    text = page_text(tested)
    assert tested.status_code == 200 and "these fields would be filled" in text
    assert 'data-field="brand">Saab<' in text and 'data-field="model_year">2009<' in text
    assert "Not in the answer" in text  # fuel and colour are not mapped
    row.data = {**row.data, "url": provider_stub.base + "/nonsense?r={regno}"}
    db.session.commit()
    tested = client.post(f"/admin/general/providers/{row.id}/test",
                         data={"csrf_token": token, "regno": "ABC123", "vin": ""})  # fmt: skip
    assert tested.status_code == 422 and "not JSON" in page_text(tested)


def test_the_demo_provider_answers_the_demo_datas_providers(app, world, local_allowed):
    server = stub.server(0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_port
        with app.test_request_context():
            activate(world.instance.id)
            for row in demo_providers():
                row.data["url"] = row.data["url"].replace(f":{stub.PORT}/", f":{port}/")
                db.session.add(row)
            db.session.flush()
            vehicle = svc.look_up("vehicle", {"regno": "ABC123"})
            assert set(vehicle.values) == set(svc.FIELDS["vehicle"]) and not vehicle.problems
            value = svc.look_up("valuation", {"brand": "Volvo", "model": "XC60", "year": 2021,
                                              "mileage": 45000})  # fmt: skip
            assert value.values["price_min"] < value.values["price_avg"] < value.values["price_max"]
            with pytest.raises(svc.ProviderError, match="HTTP 404"):
                svc.look_up("vehicle", {"regno": "NOTFOUND1"})
    finally:
        server.shutdown()
        server.server_close()
