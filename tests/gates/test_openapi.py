"""Gate 3 (issue 36): the API document as served is valid OpenAPI 3.1 under the standard
validator, anonymous and signed in; every default and example in it holds to its own schema; it
states its servers, security schemes and the release's version; and a client generated from it
by openapi-python-client (offline, into the test's tmp_path) signs in, reads GET /api/me and
places a bid through the public market-bid call of the demo data, with no hand edits.

The application is the gates' served one (tests/gates/conftest.py): a real HTTP server with the
demo data, which the fuzzing gate walks with the same document.
"""

import importlib
import json
import pkgutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from http import HTTPStatus
from pathlib import Path

import pytest
import requests
from openapi_spec_validator import OpenAPIV31SpecValidator

from app.demo import DEMO_PASSWORD, demo_links
from tests.helpers import schema_errors

ROOT = Path(__file__).resolve().parents[2]
WHO = ["anonymous", "seller@demo.test"]


def served_document(served, who: str) -> dict:
    headers = {} if who == "anonymous" else served.signed_in(who)
    answer = requests.get(f"{served.url}/api/openapi.json", headers=headers, timeout=30)
    assert answer.status_code == 200
    return answer.json()


@pytest.fixture(scope="module")
def documents(served) -> dict[str, dict]:
    return {who: served_document(served, who) for who in WHO}


@pytest.mark.parametrize("who", WHO)
def test_the_served_document_is_valid_openapi_3_1(documents, who):
    doc = documents[who]
    assert doc["openapi"].startswith("3.1.")
    assert spec_errors(doc) == []


# The keywords under which a schema holds schemas (JSON Schema 2020-12), by the shape they hold.
ONE_SCHEMA = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then")
SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
SCHEMA_MAPS = ("properties", "patternProperties", "$defs")


def schemas(doc: dict) -> Iterator[tuple[str, dict]]:
    """Every schema object of the document, with its JSON pointer: the components, those of
    parameters and bodies, and every schema inside them."""

    def inside(pointer: str, schema) -> Iterator[tuple[str, dict]]:
        if not isinstance(schema, dict):
            return
        yield pointer, schema
        for key in ONE_SCHEMA:
            yield from inside(f"{pointer}/{key}", schema.get(key))
        for key in SCHEMA_LISTS:
            for n, part in enumerate(schema.get(key, [])):
                yield from inside(f"{pointer}/{key}/{n}", part)
        for key in SCHEMA_MAPS:
            for name, part in schema.get(key, {}).items():
                yield from inside(f"{pointer}/{key}/{escape(name)}", part)

    for name, schema in doc["components"]["schemas"].items():
        yield from inside(f"/components/schemas/{escape(name)}", schema)
    for path, item in doc["paths"].items():
        for method, op in item.items():
            at = f"/paths/{escape(path)}/{method}"
            for n, parameter in enumerate(op.get("parameters", [])):
                yield from inside(f"{at}/parameters/{n}/schema", parameter["schema"])
            bodies = [("requestBody", op.get("requestBody", {}))]
            bodies += [(f"responses/{code}", answer) for code, answer in op["responses"].items()]
            for where, body in bodies:
                for media, content in body.get("content", {}).items():
                    if "schema" in content:
                        pointer = f"{at}/{where}/content/{escape(media)}/schema"
                        yield from inside(pointer, content["schema"])


def escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def test_every_default_and_example_holds_to_its_own_schema(documents):
    doc = documents["anonymous"]
    refused, checked = [], 0
    for pointer, schema in schemas(doc):
        values = ([schema["default"]] if "default" in schema else []) + schema.get("examples", [])
        for value in values:
            checked += 1
            refused += schema_errors(doc, pointer, value)
    assert checked, "the document should hold defaults to check"
    assert refused == []


def test_the_document_states_its_release_servers_and_security(served, documents):
    release = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    for doc in documents.values():
        assert doc["info"]["version"] == release
        assert [server["url"] for server in doc["servers"]] == [served.url]
        cookie = served.app.config["SESSION_COOKIE_NAME"]
        schemes = doc["components"]["securitySchemes"]
        assert schemes["session"] == {"type": "apiKey", "in": "cookie", "name": cookie}
        assert schemes["token"]["type"] == "http" and schemes["token"]["scheme"] == "bearer"
        for item in doc["paths"].values():
            for op in item.values():
                # Signed in: the session, or an API token holding the call's scope (if any).
                scope = op.get("x-token-scope")
                token = [{"token": [scope]}] if scope else []
                assert op.get("x-public") or op["security"] == [{"session": []}, *token]


# --- a client generated from the document ----------------------------------------------------


def spec_errors(doc: dict) -> list[str]:
    """The validator's errors, each with the schema it applied (its path says none)."""
    return [
        f"{error.message} (under {json.dumps(error.schema)[:200]})"
        for error in OpenAPIV31SpecValidator(doc).iter_errors()
    ]


@contextmanager
def generated_client(url: str, where: Path):
    """The package openapi-python-client generates from the document at `url`, imported; every
    module of it is imported, so that one that does not build fails here. As an integrator's
    generator does (openapi-generator, for one), the document is validated first: this one
    would generate from an invalid document without a word."""
    doc = requests.get(url, timeout=30).json()
    assert spec_errors(doc) == [], "the generator stops at an invalid document"
    config = where / "generator.yaml"
    config.write_text("post_hooks: []\n")  # no ruff formatting of the generated code
    package = "dealercare_client"
    command = [str(Path(sys.executable).with_name("openapi-python-client")), "generate"]
    command += ["--url", url, "--meta", "none", "--output-path", str(where / package)]
    command += ["--config", str(config)]
    run = subprocess.run(command, cwd=where, capture_output=True, text=True)  # noqa: S603 - our tool
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Warning" not in run.stdout + run.stderr, run.stdout + run.stderr
    sys.path.insert(0, str(where))
    try:
        root = importlib.import_module(package)
        for module in pkgutil.walk_packages(root.__path__, f"{package}."):
            importlib.import_module(module.name)
        yield root
    finally:
        sys.path.remove(str(where))
        for name in [name for name in sys.modules if name.split(".")[0] == package]:
            del sys.modules[name]


def test_a_generated_client_signs_in_reads_me_and_places_a_bid(served, tmp_path):
    with served.app.app_context():
        link = demo_links()["bid"]  # /market-bid/bid/<group>/<advert>/<user>, buyer@demo.test's
    hashes = tuple(link.rsplit("/", 3)[1:])
    with generated_client(f"{served.url}/api/openapi.json", tmp_path) as package:
        modules = package.__name__
        models = importlib.import_module(f"{modules}.models")
        login = importlib.import_module(f"{modules}.api.auth_api.auth_api_login")
        me = importlib.import_module(f"{modules}.api.auth_api.auth_api_me")
        market = f"{modules}.api.market_api.market_api_market"
        bid_request = importlib.import_module(f"{market}_bid_request")
        currencies = importlib.import_module(f"{market}_advert_currencies")
        place = importlib.import_module(f"{market}_bid_place")
        base_url = requests.get(f"{served.url}/api/openapi.json", timeout=30).json()["servers"]

        with package.Client(base_url=base_url[0]["url"], raise_on_unexpected_status=True) as client:
            body = models.LoginBody(email="buyer@demo.test", password=DEMO_PASSWORD)
            signed_in = login.sync(client=client, body=body)
            assert isinstance(signed_in, models.LoginOut), signed_in
            # The session travels in the cookie the client keeps (the document's security scheme).
            user = me.sync(client=client)
            assert isinstance(user, models.MeOut), user
            assert user.username == "buyer@demo.test"
            assert "market" in user.modules

            # The next bid in the bidder's currency: the advert's, or at the seller's rate.
            request = json.loads(bid_request.sync_detailed("bid", *hashes, client=client).content)
            table = json.loads(currencies.sync_detailed(*hashes, client=client).content)
            mine = request["activeGroupCurrency"]
            rates = {rate["currency"]: rate["nextBid"] for rate in table["exchangeRates"]}
            next_bid = table["nextBid"] if mine == table["currency"] else rates[mine]
            placed = place.sync_detailed(
                *hashes,
                client=client,
                body=models.BidBody(bid=next_bid, request_key="generated-client-1"),
                x_csrf_token=signed_in.csrf_token,
            )
            assert placed.status_code == HTTPStatus.CREATED, placed.content
            answer = placed.parsed  # read through the document's schema of the answer
            assert isinstance(answer, models.BidPlaced), answer
            assert (answer.bid.bid, answer.bid.currency) == (next_bid, mine)
            assert answer.leading is True
