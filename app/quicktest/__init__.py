"""Quick tests: filling in a test on a phone, its public view and print (the storage templates'
admin screens are app/admin/quicktest.py)."""

from flask import Blueprint

bp = Blueprint("quicktest", __name__)
api_bp = Blueprint("quicktest_api", __name__, url_prefix="/api")

from app.quicktest import api, public, routes  # noqa: E402,F401
