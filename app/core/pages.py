"""Page access: every view needs a signed-in user unless it is declared public."""

from collections.abc import Callable

from flask import Flask, abort, current_app, request
from flask_login import current_user

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


def init_app(app: Flask) -> None:
    @app.before_request
    def _require_login():
        if current_user.is_authenticated:
            activate(current_user.active_instance_id)
        elif not is_public(request.endpoint):
            abort(401)
