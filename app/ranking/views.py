"""The ranking blueprints with their views attached (imported by create_app only, so that the
models can be imported without the shell)."""

from app.ranking import admin, api, api_bp, bp, routes  # noqa: F401

__all__ = ["api_bp", "bp"]
