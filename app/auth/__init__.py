"""Sign-in, sign-out and password reset: pages and JSON calls."""

from flask import Blueprint

bp = Blueprint("auth", __name__)
api_bp = Blueprint("auth_api", __name__, url_prefix="/api")

from app.auth import api, routes  # noqa: E402,F401
