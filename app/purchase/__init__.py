"""Purchase analyses: the module /purchase-analysis, its calls and print view (the admin screens
are app/admin/purchase.py)."""

from flask import Blueprint

bp = Blueprint("purchase", __name__)
api_bp = Blueprint("purchase_api", __name__, url_prefix="/api")

from app.purchase import api, print_view, routes  # noqa: E402,F401
