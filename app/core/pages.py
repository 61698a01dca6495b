"""Page access: every view needs a signed-in user unless it is declared public."""

from collections.abc import Callable

from flask import Flask, abort, current_app, request
from flask_login import current_user
from werkzeug.routing import IntegerConverter

from app.core.tenancy import activate


def public_page(view: Callable) -> Callable:
    """Declare a view reachable without signing in (public links carry their own tokens)."""
    view.is_public = True  # type: ignore[attr-defined]
    return view


def is_public(endpoint: str | None) -> bool:
    if endpoint is None or endpoint == "static":
        return True
    view = current_app.view_functions.get(endpoint)
    return bool(getattr(view, "is_public", False))


class IdConverter(IntegerConverter):
    """`<int:...>` limited to what an id column holds: a huge number is a 404, not a 500."""

    def __init__(self, map, *args, **kwargs) -> None:
        kwargs.setdefault("max", 2**63 - 1)
        super().__init__(map, *args, **kwargs)


def init_app(app: Flask) -> None:
    app.url_map.converters["int"] = IdConverter

    @app.before_request
    def _require_login():
        if current_user.is_authenticated:
            activate(current_user.active_instance_id)
        elif not is_public(request.endpoint):
            abort(401)
