"""Outgoing e-mail: every message is stored, then sent by a job."""

from flask import Blueprint

bp = Blueprint("mail", __name__)

from app.mail import routes  # noqa: E402,F401
