"""System messages: global admins write them; every signed-in page polls the active ones."""

from flask import Blueprint

bp = Blueprint("messages", __name__)
api_bp = Blueprint("messages_api", __name__, url_prefix="/api")

# Each area of the feature keeps its views in its own module.
from app.messages import admin, api  # noqa: E402,F401
