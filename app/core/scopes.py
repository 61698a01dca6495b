"""What an API token may call: one scope per area of the JSON API, to read (GET) or to write
(every other method). A call outside every area (signing in, acting as someone, switching the
instance) takes no token at all; a public call needs none.

The areas are named here, by the blueprint that serves their calls (a few calls by their own
endpoint), so that the OpenAPI document (app/core/api.py) and the token check
(app/auth/tokens.py) read one table; a new blueprint's calls take no token until it is named.
"""

from flask_babel import lazy_gettext as _l

AREAS = {
    "vehicles": _l("Vehicles and their files"),
    "purchase": _l("Purchase analyses and stock figures"),
    "quicktest": _l("Quick tests"),
    "dashboards": _l("Dashboards and widgets"),
    "ranking": _l("Tier ranking"),
    "messages": _l("System messages"),
    "users": _l("Users"),
    "account": _l("The token's own account"),
}

BY_BLUEPRINT = {
    "preparation_api": "vehicles",
    "purchase_api": "purchase",
    "quicktest_api": "quicktest",
    "dashboard_api": "dashboards",
    "ranking_api": "ranking",
    "messages_api": "messages",
}

# Calls whose area is not their blueprint's; None: no token, whatever its scopes.
BY_ENDPOINT: dict[str, str | None] = {
    "auth_api.me": "account",
    "auth_api.update_options": "account",
    "shell_api.my_instances": "account",
    "shell_api.menu_counts": "account",
    "shell_api.users_detailed_list": "users",
    "shell_api.change_active_instance": None,
    "shell_api.impersonate": None,
}

READ, WRITE = "read", "write"


def scope_for(endpoint: str, method: str, public: bool = False) -> str | None:
    """The scope a token needs for a call ("vehicles:read"), None when no token may make it."""
    if public:
        return None
    blueprint = endpoint.partition(".")[0]
    area = BY_ENDPOINT[endpoint] if endpoint in BY_ENDPOINT else BY_BLUEPRINT.get(blueprint)
    if area is None:
        return None
    return f"{area}:{READ if method in ('GET', 'HEAD') else WRITE}"


def every_scope() -> list[tuple[str, str, object]]:
    """(scope, area, the area's name) for every scope a token can hold, by area."""
    return [
        (f"{area}:{kind}", area, name) for area, name in AREAS.items() for kind in (READ, WRITE)
    ]


# An API token (Administration > API users): sent without the session cookie, so its calls
# carry no CSRF token either; each call names the scope it needs (x-token-scope).
TOKEN_SCHEME = {
    "type": "http",
    "scheme": "bearer",
    "description": "An API token, sent as `Authorization: Bearer <token>` and without the session"
    " cookie (then no X-CSRFToken either). Each call names the scope the token must hold (its"
    " security requirement and x-token-scope); the token acts with its own rights, in its own"
    " instance, and is rate-limited (429 with Retry-After).",
}

# A call an API token may make: the header is required with the session cookie only.
CSRF_HEADER_UNLESS_TOKEN = {
    "name": "X-CSRFToken",
    "in": "header",
    "required": False,
    "schema": {"type": "string"},
    "description": "The CSRF token of the caller's session (a page's meta csrf-token), bound to"
    " the session cookie: required with the session cookie, not read with an API token",
}
