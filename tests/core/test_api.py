"""JSON API conventions: sign-in call, errors, CSRF, headers, the OpenAPI document, and fuzzing."""

import importlib
import importlib.util
import json
import pkgutil
import re
from typing import Annotated

import pytest
from pydantic import WithJsonSchema

import app as app_package
from app.core.api import OPERATIONS, DocumentJsonSchema, RequestJsonSchema, Schema
from tests.conftest import csrf_token
from tests.factories import PASSWORD, make_user
from tests.helpers import html_lang, sign_in, translated


def _load_every_feature() -> None:
    """Import every feature's calls (its api.py), so that OPERATIONS lists them all."""
    for info in pkgutil.iter_modules(app_package.__path__):
        if info.ispkg and importlib.util.find_spec(f"app.{info.name}.api"):
            importlib.import_module(f"app.{info.name}.api")


_load_every_feature()


def api_login(client, body, **headers):
    return client.post("/api/auth/login", json=body, headers=headers)


# --- POST /api/auth/login ----------------------------------------------------------------------


def test_login_call_answers_the_user_and_a_csrf_token(client):
    user = make_user(firstname="Sara", lastname="Lindqvist", roles=["ROLE_USER", "ROLE_X"])
    response = api_login(client, {"email": user.email.upper(), "password": PASSWORD})
    assert response.status_code == 200
    data = response.get_json()
    assert data["user"]["username"] == user.email
    assert data["user"]["firstname"] == "Sara"
    assert data["user"]["roles"] == ["ROLE_USER", "ROLE_X"]
    assert data["user"]["loginType"] == "default"
    assert data["user"]["isAuthenticatedFully"] is True
    assert data["csrfToken"]
    assert client.get("/api/me").get_json()["username"] == user.email
    # the token answered works for a state-changing call
    changed = client.patch(
        "/api/me/options", json={"language": "sv-SE"}, headers={"X-CSRFToken": data["csrfToken"]}
    )
    assert changed.status_code == 200


def test_login_call_with_a_wrong_password_answers_401_with_a_message(client, app):
    user = make_user()
    response = api_login(client, {"email": user.email, "password": "wrong-pass-1!"})
    assert response.status_code == 401
    assert response.get_json() == {"message": translated(app, "INVALID_CREDENTIALS")}
    assert client.get("/api/me").status_code == 401


@pytest.mark.parametrize(
    ("body", "field", "key"),
    [
        ({"email": "", "password": "x"}, "email", "FIELD_REQUIRED"),
        ({"email": "   ", "password": "x"}, "email", "FIELD_REQUIRED"),
        ({"password": "x"}, "email", "FIELD_REQUIRED"),
        ({"email": "a@b.test", "password": ""}, "password", "PASSWORD_REQUIRED"),
        ({"email": "a@b.test"}, "password", "PASSWORD_REQUIRED"),
        ({"email": "a" * 250 + "@b.test", "password": "x"}, "email", "FIELD_TOO_LONG"),
        ({"email": "a@b.test", "password": "x" * 129}, "password", "FIELD_TOO_LONG"),
        ({"email": 12345, "password": "x"}, "email", "INVALID_VALUE"),
        ({"email": ["a@b.test"], "password": "x"}, "email", "INVALID_VALUE"),
        ({"email": None, "password": "x"}, "email", "INVALID_VALUE"),
        ({"email": {"a": 1}, "password": "x"}, "email", "INVALID_VALUE"),
        ({"email": "a@b.test", "password": 12345678}, "password", "INVALID_VALUE"),
        ({"email": "a@b.test", "password": True}, "password", "INVALID_VALUE"),
        ({"email": "a\x00@b.test", "password": "x"}, "email", "INVALID_VALUE"),
        ({"email": "a@b.test", "password": "pass\x00word"}, "password", "INVALID_VALUE"),
    ],
)
def test_login_call_refuses_bad_fields_with_422_and_the_fields_key(client, app, body, field, key):
    response = api_login(client, body)
    assert response.status_code == 422
    data = response.get_json()
    assert data["keys"][field] == key
    assert data["errors"][field] == translated(app, key, max=254 if field == "email" else 128)
    assert data["message"]


@pytest.mark.parametrize("raw", ["[]", '"text"', "null", "5", "true", ""])
def test_login_call_refuses_a_body_that_is_not_a_json_object(client, raw):
    response = client.post("/api/auth/login", data=raw, content_type="application/json")
    assert response.status_code == 422
    assert response.get_json()["message"]


def test_a_body_the_json_decoder_cannot_read_is_a_400(client):
    response = client.post("/api/auth/login", data="{bad json", content_type="application/json")
    assert response.status_code == 400
    assert response.get_json()["message"]


def test_login_call_refuses_a_form_encoded_body(client):
    user = make_user()
    response = client.post("/api/auth/login", data={"email": user.email, "password": PASSWORD})
    assert response.status_code == 422
    assert response.get_json()["message"]
    assert client.get("/api/me").status_code == 401


def test_login_call_refuses_another_origin(client, app):
    user = make_user()
    body = {"email": user.email, "password": PASSWORD}
    response = api_login(client, body, Origin="https://evil.test")
    assert response.status_code == 403
    assert response.get_json() == {"message": translated(app, "ERROR.FORBIDDEN")}
    assert client.get("/api/me").status_code == 401
    assert api_login(client, body, Origin="http://localhost").status_code == 200


def test_login_call_flood_is_refused_with_retry_after(client, app):
    user = make_user()
    free = app.config["LOGIN_THROTTLE"]["pair"]["free"]
    body = {"email": user.email, "password": "wrong-pass-1!"}
    assert [api_login(client, body).status_code for _ in range(free)] == [401] * free
    refused = api_login(client, {"email": user.email, "password": PASSWORD})
    assert refused.status_code == 429
    retry = int(refused.headers["Retry-After"])
    assert retry >= 1
    assert refused.get_json() == {"message": translated(app, "TOO_MANY_ATTEMPTS", seconds=retry)}
    assert client.get("/api/me").status_code == 401


# --- the signed-in user ------------------------------------------------------------------------


def test_me_answers_401_with_a_message_when_signed_out(client, app):
    response = client.get("/api/me")
    assert response.status_code == 401
    assert response.is_json
    assert response.get_json()["message"] == translated(app, "Sign in to continue.")


def test_me_answers_the_signed_in_user(client):
    user = make_user(options={"language": "da-DK"})
    sign_in(client, user)
    data = client.get("/api/me").get_json()
    assert data["id"] == user.id
    assert data["options"] == {"language": "da-DK"}
    assert data["isLoggedIn"] is True


def test_options_call_needs_the_csrf_header(client):
    user = make_user()
    sign_in(client, user)
    response = client.patch("/api/me/options", json={"language": "sv-SE"})
    assert response.status_code == 400
    assert response.get_json()["message"]
    assert client.get("/api/me").get_json()["options"] == {}


def test_options_call_refuses_an_unknown_language_with_its_key(client):
    user = make_user()
    token = sign_in(client, user)
    response = client.patch(
        "/api/me/options", json={"language": "xx-XX"}, headers={"X-CSRFToken": token}
    )
    assert response.status_code == 422
    assert response.get_json()["keys"] == {"language": "INVALID_VALUE"}


def test_options_call_refuses_a_landing_page_off_the_site(client):
    user = make_user()
    token = sign_in(client, user)
    for page in ("https://evil.test/", "//evil.test/x", "begcare"):
        response = client.patch(
            "/api/me/options", json={"landingPage": page}, headers={"X-CSRFToken": token}
        )
        assert response.status_code == 422
        assert response.get_json()["keys"] == {"landingPage": "INVALID_VALUE"}


def test_options_call_saves_the_language_for_the_next_page(client):
    user = make_user()
    token = sign_in(client, user)
    response = client.patch(
        "/api/me/options", json={"language": "sv"}, headers={"X-CSRFToken": token}
    )
    assert response.status_code == 200
    assert response.get_json()["options"]["language"] == "sv-SE"
    page = client.get("/user", headers={"Accept-Language": "de-DE"})
    assert html_lang(page) == "sv-SE"
    assert page.headers["X-Cc-Language"] == "sv-SE"


# --- headers on every answer ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/login",
        "/api/me",
        "/api/openapi.json",
        "/assets/config.json",
        "/assets/i18n/xx.json",
        "/error/NOT_FOUND",
        "/no/such/page",
        "/api/no/such/call",
        "/reset-password/unknown",
    ],
)
def test_every_answer_carries_language_and_version(client, app, path):
    response = client.get(path, headers={"Accept-Language": "fi-FI"})
    assert response.headers["X-Cc-Language"] == "fi-FI"
    version = response.headers["X-Cc-Version"]
    assert version.startswith(app.config["APP_VERSION"] + "+")


def test_signed_in_answers_carry_the_users_language(client):
    user = make_user(options={"language": "nl-NL"})
    sign_in(client, user)
    assert client.get("/api/me").headers["X-Cc-Language"] == "nl-NL"


# --- the OpenAPI document ----------------------------------------------------------------------


def openapi_path(rule: str) -> str:
    return re.sub(r"<(?:[a-z]+:)?([a-zA-Z_]+)>", r"{\1}", rule)


def test_openapi_document_lists_every_declared_call(client, app):
    doc = client.get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.")
    rules = {rule.endpoint: rule.rule for rule in app.url_map.iter_rules()}
    assert OPERATIONS
    for op in OPERATIONS:
        path = openapi_path(rules[op.endpoint])
        assert path in doc["paths"], f"{op.endpoint} is missing from the OpenAPI document"
        assert op.method.lower() in doc["paths"][path], f"{op.method} {path} is missing"


def test_every_json_call_is_declared_through_api_call(app):
    declared = {op.endpoint for op in OPERATIONS}
    undeclared = [
        f"{rule.rule} ({rule.endpoint})"
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/api/")
        and rule.endpoint not in declared
        and rule.endpoint != "shell.openapi_json"
    ]
    assert not undeclared, f"JSON calls missing from the OpenAPI document: {undeclared}"


def test_openapi_document_describes_request_and_response_bodies(client):
    doc = client.get("/api/openapi.json").get_json()
    schemas = doc["components"]["schemas"]
    login = doc["paths"]["/api/auth/login"]["post"]
    body_ref = login["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    assert body_ref == "#/components/schemas/LoginBody"
    assert set(schemas["LoginBody"]["properties"]) == {"email", "password"}
    assert set(schemas["LoginBody"]["required"]) == {"email", "password"}
    answer = login["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert answer == "#/components/schemas/LoginOut"
    assert {"user", "csrfToken"} <= set(schemas["LoginOut"]["properties"])

    reset = doc["paths"]["/api/auth/reset-password/{token}"]
    assert {"get", "post"} <= set(reset)
    assert reset["post"]["parameters"][0]["name"] == "token"
    reset_body = schemas["ResetBody"]["properties"]
    assert {"password", "verifyPassword"} <= set(reset_body)

    me = doc["paths"]["/api/me"]["get"]
    assert "401" in me["responses"]
    assert "401" in login["responses"]  # a wrong e-mail or password


def test_openapi_document_names_every_referenced_schema(client):
    raw = client.get("/api/openapi.json").get_data(as_text=True)
    doc = json.loads(raw)
    for name in re.findall(r'"#/components/schemas/([^"]+)"', raw):
        assert name in doc["components"]["schemas"], f"{name} is referenced but not defined"


class _Optional(Schema):
    # Published as what may be sent (WithJsonSchema), optional with None for "not given".
    sent: Annotated[int | None, WithJsonSchema({"type": "integer", "minimum": 1})] = None
    nullable: int | None = None
    counted: int = 3


@pytest.mark.parametrize("generator", [DocumentJsonSchema, RequestJsonSchema])
def test_a_published_default_holds_to_its_own_schema(generator):
    """Issue 36: `"default": null` beside a type that refuses null is invalid OpenAPI (client
    generators stop there): such a field is published without a default; a field that takes
    null, or a default of its type, keeps it."""
    properties = _Optional.model_json_schema(schema_generator=generator)["properties"]
    assert properties["sent"] == {"type": "integer", "minimum": 1, "title": "Sent"}
    assert properties["nullable"]["default"] is None
    assert {"type": "null"} in properties["nullable"]["anyOf"]
    assert properties["counted"]["default"] == 3


# --- fuzzing: no call answers 500 ----------------------------------------------------------------

GARBAGE_VALUES = [
    None,
    True,
    -1,
    1e308,
    "",
    " ",
    "x" * 10_000,
    "\x00\ud7ff",
    "' OR 1=1 --",
    "<script>alert(1)</script>",
    [],
    [1, "a", None],
    {},
    {"$ne": 1},
]
GARBAGE_RAW = ["", "null", "[]", "{", '{"a":', "5", '"s"', "\xff\xfe", "{}" * 1000]
GARBAGE_PATH = ["x", "0", "-1", "9" * 30, "%00", "..%2F..", "x" * 300, "%E2%82", "a b"]
GARBAGE_QUERY = "page=-1&page=x&limit=999999999&a[]=1&a[]=&%00=%00&q=" + "z" * 3000


def _properties(schema_model) -> list[str]:
    if schema_model is None:
        return ["a"]
    names = list(schema_model.model_json_schema(by_alias=True).get("properties", {}))
    return names or ["a"]


def _bodies(op) -> list:
    names = _properties(op.body)
    bodies: list = [{name: value for name in names} for value in GARBAGE_VALUES]
    bodies += [{name: value} for name in names for value in GARBAGE_VALUES[:6]]
    return bodies


def _paths(op, rule: str) -> list[str]:
    if "<" not in rule:
        return [rule]
    return [re.sub(r"<[^>]+>", value, rule) for value in GARBAGE_PATH]


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: f"{op.method} {op.rule}")
def test_no_call_answers_500_to_garbage(app, op):
    rule = next(r.rule for r in app.url_map.iter_rules() if r.endpoint == op.endpoint)
    signed_in = app.test_client()
    user = make_user()
    token = sign_in(signed_in, user)
    anonymous = app.test_client()
    anonymous_token = csrf_token(anonymous)
    sends_body = op.method in ("POST", "PUT", "PATCH", "DELETE")
    failures = []
    for client, csrf in ((anonymous, anonymous_token), (signed_in, token)):
        headers = {"X-CSRFToken": csrf}
        paths = _paths(op, rule)
        answers = []
        for path in paths:  # every odd path value, with and without an odd query
            answers.append((path, client.open(path, method=op.method, headers=headers)))
            query = f"{path}?{GARBAGE_QUERY}"
            answers.append((path, client.open(query, method=op.method, headers=headers)))
        if sends_body:  # every odd body, on one of them
            for body in _bodies(op):
                answers.append(
                    (paths[0], client.open(paths[0], method=op.method, json=body, headers=headers))
                )
            for raw in GARBAGE_RAW:
                answer = client.open(
                    paths[0],
                    method=op.method,
                    data=raw,
                    content_type="application/json",
                    headers=headers,
                )
                answers.append((paths[0], answer))
        failures += [(path, r.status_code) for path, r in answers if r.status_code >= 500]
        not_json = [path for path, r in answers if not r.is_json]
        assert not not_json, f"{op.method} {not_json[0]} answered a non-JSON body"
    assert not failures, f"{op.method} {rule} answered 5xx: {failures[:5]}"
