"""Quick tests: storage templates, filling in a test on a phone, its public view and print."""

from flask import Blueprint

bp = Blueprint("quicktest", __name__)
api_bp = Blueprint("quicktest_api", __name__, url_prefix="/api")

from app.quicktest import admin, api, public, routes  # noqa: E402,F401
