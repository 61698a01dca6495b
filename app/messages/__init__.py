"""System messages: global admins write them; every signed-in page polls the active ones."""

from flask import Blueprint

api_bp = Blueprint("messages_api", __name__, url_prefix="/api")

# Each area of the feature keeps its views in its own module (the admin screen is
# app/admin/system_messages.py).
from app.messages import api  # noqa: E402,F401
