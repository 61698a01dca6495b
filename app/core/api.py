"""JSON calls: request validation with pydantic, JSON errors, and the OpenAPI document.

Every call is declared with `@api_call(bp, rule, method, body=..., query=..., response=...)`.
The declarations are the single source of both the validation and the published schema.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any, ClassVar, get_args

from flask import Blueprint, current_app, jsonify, request, url_for
from flask_babel import gettext as _
from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, field_validator
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import PydanticCustomError
from werkzeug.exceptions import BadRequest
from werkzeug.routing import IntegerConverter

from app.core.messages import field_message, message
from app.core.scopes import CSRF_HEADER_UNLESS_TOKEN, TOKEN_SCHEME, scope_for
from app.core.webhook_doc import webhooks_document


def holds_nul(value: Any) -> bool:
    """Tell whether a value or anything inside it is text with a NUL character."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(holds_nul(k) or holds_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple | set):
        return any(holds_nul(v) for v in value)
    return False


class Schema(BaseModel):
    """Base of every request and response schema: camelCase on the wire, strict types."""

    # Unknown fields are refused (422 naming each), so that a misspelt or stale field is not
    # silently dropped; the published schema says so (additionalProperties: false).
    model_config = ConfigDict(
        strict=True, populate_by_name=True, str_strip_whitespace=True, extra="forbid"
    )
    # The spec's own key for a missing or empty field, by its name on the wire, where the spec
    # names one (PASSWORD_REQUIRED rather than FIELD_REQUIRED).
    required_keys: ClassVar[dict[str, str]] = {}
    # The key of any other refusal of a field, by its path on the wire, where the form that
    # sends it shows one of its own (PASSWORD_PATTERN rather than INVALID_VALUE); or the key
    # and the field's own message. A path's list indices are written `*`; a field not listed
    # takes its nearest listed parent's (a value inside a listed object or list).
    refused_keys: ClassVar[dict[str, str | tuple[str, Any]]] = {}

    @field_validator("*", mode="before")
    @classmethod
    def _no_nul(cls, value: Any, info: ValidationInfo) -> Any:
        # No one types a NUL, and PostgreSQL cannot store or compare text that holds one. A
        # nested object checks its own fields, and so does each object of a list of them, so
        # that the refusal names the field.
        if isinstance(value, dict) or (isinstance(value, list) and _of_models(cls, info)):
            return value
        if holds_nul(value):
            raise PydanticCustomError("INVALID_VALUE", "INVALID_VALUE")
        return value


def _of_models(model: type[BaseModel], info: ValidationInfo) -> bool:
    """Whether the field being validated is a list of models."""
    field = model.model_fields.get(info.field_name or "")
    args = get_args(field.annotation) if field is not None else ()
    return any(isinstance(arg, type) and issubclass(arg, BaseModel) for arg in args)


@dataclass
class Operation:
    blueprint: Blueprint
    rule: str
    method: str
    endpoint: str
    summary: str
    body: type[BaseModel] | None
    query: type[BaseModel] | None
    response: type[BaseModel] | None
    public: bool
    tag: str
    # Statuses beyond those its shape implies (openapi_document), and the bodies of a call that
    # reads one of several bodies itself.
    errors: tuple[int, ...] = ()
    bodies: tuple[type[BaseModel], ...] = ()
    success: tuple[int, ...] = (200,)
    # The JSON schema of a multipart form body (an upload), which the view reads itself.
    form: dict | None = None


OPERATIONS: list[Operation] = []


class ApiError(Exception):
    """An error answer with a JSON body (spec 01 section 8: error, message or alertUrl)."""

    def __init__(
        self, status: int, message: str, headers: dict | None = None, **extra: Any
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra
        self.headers = headers or {}

    def response(self):
        resp = jsonify({"message": self.message, **self.extra})
        resp.status_code = self.status
        resp.headers.update(self.headers)
        return resp


def validation_error(exc: ValidationError, model: type[BaseModel] | None = None) -> ApiError:
    """Turn pydantic's errors into a 422 with a translated message and key per field."""
    required = getattr(model, "required_keys", {})
    refused = getattr(model, "refused_keys", {})
    errors, keys = {}, {}
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "body"
        if field in keys:
            continue
        key, text = field_message(err)
        own = _refusal(refused, err["loc"])
        if key == "FIELD_REQUIRED" and field in required:
            key, text = required[field], message(required[field])
        elif isinstance(own, tuple):
            key, text = own[0], str(own[1])
        elif own is not None:
            key, text = own, message(own)
        keys[field], errors[field] = key, text
    first = next(iter(errors.values()), _("The request could not be read."))
    return ApiError(422, first, errors=errors, keys=keys)


def _refusal(refused: dict, loc: tuple):
    """The refused_keys entry of a field at `loc` (as written, or with its list indices as
    `*`): its own, or its nearest listed parent's."""
    exact = [str(part) for part in loc]
    starred = ["*" if isinstance(part, int) else str(part) for part in loc]
    while exact:
        for path in (exact, starred):
            if (found := refused.get(".".join(path))) is not None:
                return found
        exact, starred = exact[:-1], starred[:-1]
    return None


def parse_data(model: type[BaseModel], data: Any) -> BaseModel:
    """`data` as `model`; a refused value is the API's 422 naming its field (validation_error)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, model) from None


def parse_body(model: type[BaseModel]) -> BaseModel:
    """The request's body as `model`, for a view that first checks what its path names (a 404
    comes before a refused value); its api_call lists the model in `bodies=`."""
    return parse_data(model, json_object())


def json_object() -> dict:
    """The request's JSON body, which must be an object; anything else (no body, another media
    type, a list) is a 422 that names the body as the refused field."""
    data = request_json()
    if not isinstance(data, dict):
        text = _("The request body must be a JSON object.")
        raise ApiError(422, text, errors={"body": text}, keys={"body": "INVALID_VALUE"})
    return data


def request_json():
    """The request's JSON body, None when it sends none (or another media type); what the
    decoder cannot read (bad syntax, nested too deep: app/core/security.py) is a 400. Whole
    numbers written with a fraction (576.0) are read as integers."""
    if not request.is_json or not request.get_data(cache=True):
        return None
    try:
        return _whole_numbers(request.get_json())
    except BadRequest:
        raise ApiError(400, _("The request body is not valid JSON.")) from None


def _whole_numbers(value):
    """A number without a fraction is an integer to JSON Schema (576.0 is one), so the published
    `"type": "integer"` takes it; the strict models would refuse the float."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_whole_numbers(item) for item in value]
    return value


def _query_dict() -> dict:
    result: dict[str, Any] = {}
    for key in request.args:
        values = request.args.getlist(key)
        name = key[:-2] if key.endswith("[]") else key
        result[name] = values if key.endswith("[]") or len(values) > 1 else values[0]
    return result


def api_call(
    bp: Blueprint,
    rule: str,
    method: str = "GET",
    *,
    body: type[BaseModel] | None = None,
    query: type[BaseModel] | None = None,
    response: type[BaseModel] | None = None,
    public: bool = False,
    summary: str = "",
    errors: tuple[int, ...] = (),
    bodies: tuple[type[BaseModel], ...] = (),
    success: tuple[int, ...] = (200,),
    form: dict | None = None,
) -> Callable:
    """Declare a JSON call on `bp`; the view receives `body=` and `query=` as parsed models.

    `errors` names the statuses the view answers beyond those its declaration implies (see
    `statuses`); `bodies` documents the bodies of a call that picks its body model itself;
    `success` its success statuses; `form` documents a multipart upload the view reads itself."""

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(**kwargs):
            try:
                if body is not None:
                    kwargs["body"] = parse_data(body, json_object())
                if query is not None:
                    kwargs["query"] = parse_data(query, _query_dict())
                result = view(**kwargs)
            except ApiError as exc:
                return exc.response()
            if isinstance(result, BaseModel):
                return jsonify(result.model_dump(mode="json", by_alias=True))
            return result

        wrapper.is_public = public  # type: ignore[attr-defined]
        endpoint = view.__name__
        bp.add_url_rule(rule, endpoint, wrapper, methods=[method])
        OPERATIONS.append(
            Operation(
                bp,
                rule,
                method,
                f"{bp.name}.{endpoint}",
                summary or (view.__doc__ or "").strip(),
                body,
                query,
                response,
                public,
                bp.name,
                tuple(errors),
                tuple(bodies),
                tuple(success),
                form,
            )
        )
        return wrapper

    return decorator


STATUS_TEXT = {
    200: "OK",
    201: "Created",
    204: "Done, nothing to answer",
    400: "The request could not be read: not valid JSON, a NUL character, or a missing or stale"
    " CSRF token",
    401: "Not signed in",
    403: "Not allowed for this user",
    404: "Not found, or not the caller's to know",
    409: "In conflict with the current state",
    422: "A refused value (per field: errors and keys)",
    414: "The address is too long (answered by the HTTP server, without a JSON body)",
    429: "Too many requests (Retry-After)",
}


def statuses(op: Operation, path_args: bool) -> list[int]:
    """Every status a call answers: its successes, and the errors its shape implies (a body:
    400 and 422; any input: 422; a path argument: 404; a state change: 400 for the CSRF
    token; signed in: 401 and 403; public or open to API tokens: 429 for the rate limit), plus
    its own `errors`."""
    codes = set(op.success) | set(op.errors) | {400}  # 400: also a NUL in the query (security.py)
    has_body = op.body is not None or bool(op.bodies)
    if has_body or op.query is not None or path_args:
        codes.add(422)
    if path_args:
        codes.add(404)
    if path_args or op.query is not None:
        codes.add(414)
    if op.public or scope_for(op.endpoint, op.method) is not None:
        codes.add(429)  # public: per address; with an API token: per token
    if not op.public:
        codes.update((401, 403))
    return sorted(codes)


def _csrf_exempt(endpoint: str) -> bool:
    view = current_app.view_functions.get(endpoint)
    csrf = current_app.extensions.get("csrf")
    if view is None or csrf is None:
        return False
    return f"{view.__module__}.{view.__name__}" in csrf._exempt_views


def _path_schema(rule, arg: str) -> dict:
    """An `<int:…>` argument is a whole number within an Integer column (security.py)."""
    converter = rule._converters.get(arg)
    if isinstance(converter, IntegerConverter):
        return {"type": "integer", "minimum": 0, "maximum": converter.max}
    return {"type": "string"}


def _openapi_path(rule: str) -> str:
    return re.sub(r"<(?:[a-z]+:)?([a-zA-Z_]+)>", r"{\1}", rule)


def admits_null(schema: dict) -> bool:
    """Whether a JSON schema takes null (a `$ref` is not followed: taken as refusing it)."""
    checks = []
    if "type" in schema:
        kind = schema["type"]
        checks.append(kind == "null" or (isinstance(kind, list) and "null" in kind))
    if "enum" in schema:
        checks.append(None in schema["enum"])
    if "const" in schema:
        checks.append(schema["const"] is None)
    for key, join in (("anyOf", any), ("oneOf", any), ("allOf", all)):
        if key in schema:
            checks.append(join(admits_null(part) for part in schema[key]))
    if "$ref" in schema or "not" in schema:
        checks.append(False)
    return all(checks)


class DocumentJsonSchema(GenerateJsonSchema):
    """Every schema of the document holds its own default. A field that is optional with None
    for "not given", whose published schema names only what may be sent (WithJsonSchema), gets
    no default: pydantic would write `"default": null` beside a type that refuses null, and the
    document would not be valid OpenAPI (client generators stop there). Absent says the same."""

    def default_schema(self, schema):
        result = super().default_schema(schema)
        if "default" in result and result["default"] is None and not admits_null(result):
            result = {key: value for key, value in result.items() if key != "default"}
        return result


class RequestJsonSchema(DocumentJsonSchema):
    """The published schema of what a call reads says what Schema refuses: text holds no NUL,
    and text that must not be empty must hold more than white space (it is stripped first)."""

    def str_schema(self, schema):
        result = super().str_schema(schema)
        if "pattern" not in result:
            if schema.get("min_length"):
                result["pattern"] = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"
            else:
                result["pattern"] = "^[^\\u0000]*$"
        return result


def openapi_document() -> dict:
    """Build the OpenAPI 3.1 document from the declared calls and their schemas."""
    components: dict[str, dict] = {}

    def ref(model: type[BaseModel], mode: str) -> dict:
        schema = model.model_json_schema(
            by_alias=True,
            mode=mode,
            ref_template="#/components/schemas/{model}",
            schema_generator=RequestJsonSchema if mode == "validation" else DocumentJsonSchema,
        )
        components.update(schema.pop("$defs", {}))
        components[model.__name__] = schema
        return {"$ref": f"#/components/schemas/{model.__name__}"}

    paths: dict[str, dict] = {}
    rules = {r.endpoint: r for r in current_app.url_map.iter_rules()}
    for op in OPERATIONS:
        flask_rule = rules.get(op.endpoint)
        if flask_rule is None:
            continue
        path = _openapi_path(flask_rule.rule)
        item: dict[str, Any] = {
            "summary": op.summary,
            "tags": [op.tag],
            "operationId": op.endpoint.replace(".", "_"),
            "parameters": [
                {
                    "name": arg,
                    "in": "path",
                    "required": True,
                    "schema": _path_schema(flask_rule, arg),
                }
                for arg in sorted(flask_rule.arguments)
            ],
            "responses": {
                str(code): {"description": STATUS_TEXT.get(code, "")}
                | ({} if code < 300 or code == 414 else {"content": _json(ERROR_SCHEMA)})
                for code in statuses(op, bool(flask_rule.arguments))
            },
        }
        needs_csrf = op.method != "GET" and not _csrf_exempt(op.endpoint)
        if needs_csrf and scope_for(op.endpoint, op.method, op.public) is not None:
            item["parameters"].append(CSRF_HEADER_UNLESS_TOKEN)  # a token call sends no cookie
        elif needs_csrf:
            item["parameters"].append(CSRF_HEADER)
        if op.query is not None:
            schema = op.query.model_json_schema(by_alias=True, schema_generator=RequestJsonSchema)
            required = set(schema.get("required", []))
            for name, prop in schema.get("properties", {}).items():
                item["parameters"].append(
                    {"name": name, "in": "query", "required": name in required, "schema": prop}
                )
        if op.body is not None:
            item["requestBody"] = {"required": True, "content": _json(ref(op.body, "validation"))}
        elif op.bodies:
            schema = {"oneOf": [ref(model, "validation") for model in op.bodies]}
            item["requestBody"] = {"required": True, "content": _json(schema)}
        elif op.form is not None:
            content = {"multipart/form-data": {"schema": op.form}}
            item["requestBody"] = {"required": True, "content": content}
        if op.response is not None:
            answer = _json(ref(op.response, "serialization"))
            for code in sorted(set(op.success) - {204}):  # 204: no body
                item["responses"][str(code)]["content"] = answer
        if not op.public:
            # Signed in with the session cookie, or with an API token holding the call's scope.
            item["security"] = [{"session": []}]
            if (scope := scope_for(op.endpoint, op.method)) is not None:
                item["security"].append({"token": [scope]})
                item["x-token-scope"] = scope
        if op.public:
            item["x-public"] = True
        paths.setdefault(path, {})[op.method.lower()] = item
    return {
        "openapi": "3.1.0",
        "webhooks": webhooks_document(ref),
        "info": {
            "title": f"{current_app.config['APP_TITLE']} API",
            "version": current_app.config["APP_VERSION"],
        },
        # The site that serves the document: its paths are the calls' whole paths.
        "servers": [{"url": url_for("shell.root", _external=True).rstrip("/")}],
        "paths": dict(sorted(paths.items())),
        "components": {
            "schemas": dict(sorted(components.items())),
            "securitySchemes": {
                "session": {"type": "apiKey", "in": "cookie", "name": "dc_session"},
                "token": TOKEN_SCHEME,
            },
        },
    }


# A state-changing call carries the page's CSRF token (GET /assets/config.json's page, or any
# page's <meta name="csrf-token">), bound to the session cookie.
CSRF_HEADER = {
    "name": "X-CSRFToken",
    "in": "header",
    "required": True,
    "description": "The CSRF token of the caller's session, signed in or not (a page's meta"
    " csrf-token); it is bound to the session cookie, which a public call then sends too",
    "schema": {"type": "string"},
}

ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "message": {"type": "string"},
        "error": {"type": "string"},
        "alertUrl": {"type": "string"},
        "errors": {"type": "object", "additionalProperties": {"type": "string"}},
        "keys": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}


def _json(schema: dict) -> dict:
    return {"application/json": {"schema": schema}}
