"""The user's own pages: My settings (language, landing page, time zone, password)."""

from flask import Blueprint

bp = Blueprint("account", __name__)

from app.account import api, routes  # noqa: E402, F401
