"""Statistics per module: throughput, days per state and station, stock days."""

from app.preparation import api_bp, bp  # noqa: F401
