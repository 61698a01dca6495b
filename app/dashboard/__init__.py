"""Dashboards: My dashboard and the module dashboards, their widgets and the admins' goals."""

from flask import Blueprint

bp = Blueprint("dashboard", __name__)
api_bp = Blueprint("dashboard_api", __name__, url_prefix="/api")

from app.dashboard import api, routes  # noqa: E402,F401
