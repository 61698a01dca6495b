"""The messages blueprints with their views attached (imported by create_app only, so that the
models can be imported without the shell)."""

from app.messages import admin, api, api_bp, bp  # noqa: F401

__all__ = ["api_bp", "bp"]
