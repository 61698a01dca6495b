"""My events: the dated things a user takes part in, by day and week, and their calendar feed."""

from flask import Blueprint

bp = Blueprint("events", __name__)

from app.events import routes  # noqa: E402, F401
