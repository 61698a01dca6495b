"""Vehicle preparation (begcare and newcare, one implementation with the module as a value)."""

from flask import Blueprint

bp = Blueprint("preparation", __name__)
api_bp = Blueprint("preparation_api", __name__, url_prefix="/api")

# Each area of the feature keeps its views in its own module; menu and viewer_parts add
# to the shell's menu and the viewer.
from app.preparation import (  # noqa: E402,F401
    admin,
    menu,
    routes_items,
    routes_lists,
    routes_locations,
    routes_manage,
    routes_overview,
    routes_recon,
    routes_salespeople,
    routes_specification,
    routes_statistics,
    routes_tags,
    viewer_parts,
)
