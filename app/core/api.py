"""JSON calls: request validation with pydantic, JSON errors, and the OpenAPI document.

Every call is declared with `@api_call(bp, rule, method, body=..., query=..., response=...)`.
The declarations are the single source of both the validation and the published schema.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any, ClassVar

from flask import Blueprint, current_app, jsonify, request
from flask_babel import gettext as _
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator
from pydantic_core import PydanticCustomError
from werkzeug.exceptions import BadRequest

from app.core.messages import field_message, message


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

    model_config = ConfigDict(strict=True, populate_by_name=True, str_strip_whitespace=True)
    # The spec's own key for a missing or empty field, by its name on the wire, where the spec
    # names one (PASSWORD_REQUIRED rather than FIELD_REQUIRED).
    required_keys: ClassVar[dict[str, str]] = {}

    @field_validator("*", mode="before")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        # No one types a NUL, and PostgreSQL cannot store or compare text that holds one.
        if holds_nul(value):
            raise PydanticCustomError("INVALID_VALUE", "INVALID_VALUE")
        return value


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
    errors, keys = {}, {}
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "body"
        if field in keys:
            continue
        key, text = field_message(err)
        if key == "FIELD_REQUIRED" and field in required:
            key, text = required[field], message(required[field])
        keys[field], errors[field] = key, text
    first = next(iter(errors.values()), _("The request could not be read."))
    return ApiError(422, first, errors=errors, keys=keys)


def _parse(model: type[BaseModel], data: Any) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, model) from None


def request_json():
    """The request's JSON body, None when it sends none (or another media type); what the
    decoder cannot read (bad syntax, nested too deep: app/core/security.py) is a 400."""
    if not request.is_json or not request.get_data(cache=True):
        return None
    try:
        return request.get_json()
    except BadRequest:
        raise ApiError(400, _("The request body is not valid JSON.")) from None


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
) -> Callable:
    """Declare a JSON call on `bp`; the view receives `body=` and `query=` as parsed models."""

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(**kwargs):
            try:
                if body is not None:
                    data = request_json()
                    if not isinstance(data, dict):
                        raise ApiError(422, _("The request body must be a JSON object."))
                    kwargs["body"] = _parse(body, data)
                if query is not None:
                    kwargs["query"] = _parse(query, _query_dict())
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
            )
        )
        return wrapper

    return decorator


def _openapi_path(rule: str) -> str:
    return re.sub(r"<(?:[a-z]+:)?([a-zA-Z_]+)>", r"{\1}", rule)


def openapi_document() -> dict:
    """Build the OpenAPI 3.1 document from the declared calls and their schemas."""
    components: dict[str, dict] = {}

    def ref(model: type[BaseModel], mode: str) -> dict:
        schema = model.model_json_schema(
            by_alias=True, mode=mode, ref_template="#/components/schemas/{model}"
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
                {"name": arg, "in": "path", "required": True, "schema": {"type": "string"}}
                for arg in sorted(flask_rule.arguments)
            ],
            "responses": {
                "200": {"description": "OK"},
                "422": {"description": "A refused value", "content": _json(ERROR_SCHEMA)},
            },
        }
        if op.query is not None:
            schema = op.query.model_json_schema(by_alias=True)
            required = set(schema.get("required", []))
            for name, prop in schema.get("properties", {}).items():
                item["parameters"].append(
                    {"name": name, "in": "query", "required": name in required, "schema": prop}
                )
        if op.body is not None:
            item["requestBody"] = {"required": True, "content": _json(ref(op.body, "validation"))}
        if op.response is not None:
            item["responses"]["200"]["content"] = _json(ref(op.response, "serialization"))
        if not op.public:
            item["responses"]["401"] = {"description": "Not signed in"}
            item["security"] = [{"session": []}]
        paths.setdefault(path, {})[op.method.lower()] = item
    return {
        "openapi": "3.1.0",
        "info": {
            "title": f"{current_app.config['APP_TITLE']} API",
            "version": current_app.config["APP_VERSION"],
        },
        "paths": dict(sorted(paths.items())),
        "components": {
            "schemas": dict(sorted(components.items())),
            "securitySchemes": {
                "session": {"type": "apiKey", "in": "cookie", "name": "dc_session"}
            },
        },
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
