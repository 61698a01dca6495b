"""Items: add, edit, move and archive; the state lists and the overview."""

from app.preparation import api_bp, bp  # noqa: F401
