"""The ceiling for any page: a bare Flask app that reads 12 rows and renders them with Jinja."""

import os

from flask import Flask, render_template_string
from sqlalchemy import create_engine, text

from app.config import database_url

TEMPLATE = """<!doctype html><html lang="en"><head><title>Bare</title></head><body><main><ul>
{% for row in rows %}<li>{{ row.regno }} {{ row.brand }} {{ row.model }}</li>{% endfor %}
</ul></main></body></html>"""

app = Flask(__name__)
engine = None


@app.get("/bare")
def bare():
    global engine
    if engine is None:  # connect after the fork, like the real app
        engine = create_engine(database_url(os.environ.get("DATABASE_URL")))
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT regno, brand, model FROM preparation_item ORDER BY id LIMIT 12")
        ).all()
    return render_template_string(TEMPLATE, rows=rows)


@app.get("/login")
def ready():
    return "ok"
