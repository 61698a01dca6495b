"""The signed-in shell, the error and not-found pages, and the app-wide assets and API docs."""

from flask import Blueprint

bp = Blueprint("shell", __name__)

from app.shell import notifications, routes  # noqa: E402,F401
