"""Entry point for gunicorn and the flask CLI."""

from app import create_app

app = create_app()
