"""Item manage pages (stations-manage, stations-utilize), station vehicles, files and comments."""

from app.preparation import api_bp, bp  # noqa: F401
