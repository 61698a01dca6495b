"""Custom lists, seen markers and the dynamic lists under My lists."""

from app.preparation import api_bp, bp  # noqa: F401
