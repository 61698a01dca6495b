"""Test fixtures: one migrated database per run, a rolled-back transaction per test.

With TEST_DATABASE_URL (PostgreSQL) and REDIS_URL set, the tests use those real servers;
without them a temporary SQLite file and inline jobs.
"""

import os
import re
from pathlib import Path

import pytest
from flask.globals import _cv_app
from flask.testing import FlaskClient
from flask_migrate import upgrade
from flask_sqlalchemy.session import _app_ctx_id
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.orm import scoped_session, sessionmaker

from app import create_app
from app.extensions import db
from tests.processes import pytest_configure, pytest_unconfigure  # noqa: F401 - the hooks

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL")
REDIS_URL = os.environ.get("REDIS_URL")


def pytest_addoption(parser):
    parser.addoption(
        "--timed",
        action="store_true",
        help="also run the tests marked timed, which pass or fail on wall-clock time "
        "(`make lighthouse`); `make test` leaves them out",
    )


def pytest_collection_modifyitems(config, items):
    """Nothing in a plain run passes or fails on wall-clock time: the tests marked `timed`
    (Lighthouse's scores, paint times) are left out unless --timed is given."""
    if config.getoption("--timed"):
        return
    timed = [item for item in items if item.get_closest_marker("timed")]
    if timed:
        config.hook.pytest_deselected(items=timed)
        items[:] = [item for item in items if not item.get_closest_marker("timed")]


def _engine(url: str):
    return create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))


def ensure_database(url: str) -> None:
    """Create a PostgreSQL database when it does not exist yet (the role may create them)."""
    name = make_url(url).database
    admin = _engine(str(make_url(url).set(database="postgres")))
    with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        exists = conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name})
        if exists.first() is None:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()


def reset_database(url: str) -> None:
    """Empty a PostgreSQL test database (its public schema) before migrating it."""
    ensure_database(url)
    engine = _engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def database_url(tmp_path_factory, name: str) -> str:
    if TEST_DATABASE_URL:
        url = (
            TEST_DATABASE_URL
            if name == "main"
            else re.sub(r"/([^/?]+)(\?|$)", rf"/\1_{name}\2", TEST_DATABASE_URL)
        )
        reset_database(url)
        return url
    return f"sqlite:///{tmp_path_factory.mktemp(name) / 'test.db'}"


class RequestClient(FlaskClient):
    """A test client whose every request gets its own application context (and so its own `g`
    and database session), as in production, even while the test holds one for its own work."""

    def open(self, *args, **kwargs):
        token = _cv_app.set(None)
        try:
            return super().open(*args, **kwargs)
        finally:
            _cv_app.reset(token)


def make_app(url: str, **overrides):
    config = {
        "TESTING": True,
        "SECRET_KEY": "test-secret-key",
        "SQLALCHEMY_DATABASE_URI": url,
        "REDIS_URL": None,  # inline jobs; tests/core/test_jobs.py uses Redis itself
        "MAIL_URL": None,
        # Every test client calls from 127.0.0.1: the public rate limit would carry over from
        # one test to the next (the fuzzing of public calls alone passes 120 a minute). Tests
        # of the limit set their own.
        "PUBLIC_RATE_LIMIT": "1000000/60",
        **overrides,
    }
    app = create_app(config)
    app.test_client_class = RequestClient
    with app.app_context():
        upgrade()
    _APPS.append(app)
    return app


# Every app made for the tests, kept until the run ends and then closed: a pool collected with
# its connections open is a ResourceWarning, which fails whatever test happens to be running.
_APPS: list = []


@pytest.fixture(scope="session", autouse=True)
def _close_every_pool():
    yield
    for made in _APPS:
        with made.app_context():
            for engine in db.engines.values():
                engine.dispose()


@pytest.fixture(scope="session")
def app(tmp_path_factory):
    return make_app(database_url(tmp_path_factory, "main"))


@pytest.fixture(scope="session")
def demo_app(tmp_path_factory):
    """A second app whose database holds the demo data set (committed once per run)."""
    from app.demo import load_demo_data

    app = make_app(database_url(tmp_path_factory, "demo"))
    with app.app_context():
        load_demo_data()
        db.session.remove()
    return app


@pytest.fixture
def demo_client(demo_app):
    return demo_app.test_client()


@pytest.fixture(autouse=True)
def _transaction(request, app):
    """Run each test inside a transaction that is rolled back at its end (on the demo database
    for tests that use it)."""
    if {"live_server", "served"} & set(request.fixturenames):  # served apps commit for real
        yield
        return
    if "demo_app" in request.fixturenames:
        app = request.getfixturevalue("demo_app")
    with app.app_context():
        connection = db.engine.connect()
        outer = connection.begin()
        raw = connection.connection.dbapi_connection
        if connection.dialect.name == "sqlite" and not raw.in_transaction:
            # pysqlite opens its transaction only at the first write: a request's SAVEPOINT
            # before that would be outermost, and its RELEASE a real commit that outlives the test.
            connection.exec_driver_sql("BEGIN")
        original = db.session
        # Flask-SQLAlchemy's own Session picks its engine itself, so bind plain sessions.
        factory = sessionmaker(bind=connection, join_transaction_mode="create_savepoint")
        db.session = scoped_session(factory, scopefunc=_app_ctx_id)
        try:
            yield
        finally:
            db.session.remove()
            db.session = original
            outer.rollback()
            connection.close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def ctx(app):
    with app.test_request_context():
        yield


def csrf_token(client, path: str = "/login") -> str:
    """Open a page and return the CSRF token from its meta tag."""
    html = client.get(path).get_data(as_text=True)
    match = re.search(r'<meta name="csrf-token" content="([^"]+)"', html)
    assert match, f"{path} carries no csrf-token meta"
    return match.group(1)


ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


@pytest.fixture
def smtp_server():
    """An SMTP stub server (tests/mail/_smtp.py) on a free port for the test."""
    from tests.mail._smtp import smtp_stub

    with smtp_stub() as server:
        yield server


@pytest.fixture
def rq_queue(app, monkeypatch):
    """A queue of the test's own in the real Redis (tests/core/_rq.py), removed afterwards."""
    from tests.core._rq import private_queue

    with private_queue(app, monkeypatch) as queue:
        yield queue
