"""The ceilings for any page: bare Flask apps that read a few rows and render them with Jinja.

`/bare` reads 12 vehicles with a text query. `/fortunes` is TechEmpower's fortunes test:
Flask + the SQLAlchemy ORM read the 12 rows of the `fortune` table, add one at request time,
sort them by message and render them escaped with `render_template` and a template file
(bench/templates/), as TechEmpower's Flask test does: Flask's Jinja environment compiles it once per
process, so a request pays for rendering only (the `fortune` table lives only in the benchmark
database; bench/pages.py creates it). Until issue 29 both pages called `render_template_string`,
which compiles the template on every request: about 4.4 ms of CPU per request on the shared
machine, as much as the rest of the page, which inflated every ratio in bench/PAGES.md before
round 9.
"""

import os

from flask import Flask, render_template
from sqlalchemy import Integer, String, create_engine, select, text
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from app.config import database_url

FORTUNES = [
    "fortune: No such file or directory",
    "A computer scientist is someone who fixes things that aren't broken.",
    "After enough decimal places, nobody gives a damn.",
    "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1",
    "A computer program does what you tell it to do, not what you want it to do.",
    "Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen",
    "Any program that runs right is obsolete.",
    "A list is only as strong as its weakest link. — Donald Knuth",
    "Feature: A bug with seniority.",
    "Computers make very fast, very accurate mistakes.",
    '<script>alert("This should not be displayed in a browser alert box.");</script>',
    "フレームワークのベンチマーク",
]


class Base(DeclarativeBase):
    pass


class Fortune(Base):
    __tablename__ = "fortune"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message: Mapped[str] = mapped_column(String(2048))


app = Flask(__name__)
engine = None


def _engine():
    global engine
    if engine is None:  # connect after the fork, like the real app
        engine = create_engine(database_url(os.environ.get("DATABASE_URL")))
    return engine


def create_fortunes(url: str) -> None:
    """The `fortune` table with TechEmpower's 12 rows (idempotent)."""
    eng = create_engine(database_url(url))
    Base.metadata.create_all(eng)
    with Session(eng) as session:
        if not session.scalar(select(Fortune.id).limit(1)):
            session.add_all(Fortune(id=n, message=m) for n, m in enumerate(FORTUNES, 1))
            session.commit()
    eng.dispose()


@app.get("/bare")
def bare():
    with _engine().connect() as conn:
        rows = conn.execute(
            text("SELECT regno, brand, model FROM preparation_item ORDER BY id LIMIT 12")
        ).all()
    return render_template("bare.html", rows=rows)


@app.get("/fortunes")
def fortunes():
    with Session(_engine()) as session:
        rows = list(session.scalars(select(Fortune)))
    rows.append(Fortune(id=0, message="Additional fortune added at request time."))
    rows.sort(key=lambda f: f.message)
    return render_template("fortunes.html", fortunes=rows)


@app.get("/login")
def ready():
    return "ok"
