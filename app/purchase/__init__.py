"""Purchase analyses: the module /purchase-analysis, its admin screens, calls and print view."""

from flask import Blueprint

bp = Blueprint("purchase", __name__)
api_bp = Blueprint("purchase_api", __name__, url_prefix="/api")

from app.purchase import admin, api, print_view, routes  # noqa: E402,F401
