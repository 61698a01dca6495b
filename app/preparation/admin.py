"""Admin screens of the module: states, state buttons, stations, packages, groups, locations."""

from app.preparation import api_bp, bp  # noqa: F401
