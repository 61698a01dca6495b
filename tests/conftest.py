"""Test fixtures: migrated databases copied from the run's templates, a rolled-back transaction
per test.

With TEST_DATABASE_URL (PostgreSQL) and REDIS_URL set, the tests use those real servers;
without them temporary SQLite files and inline jobs. Under pytest-xdist (`make test`) every
worker has databases and a Redis database number of its own.
"""

import fcntl
import json
import logging
import os
import re
import shutil
import socket
import threading
import uuid
import zlib
from collections import OrderedDict
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from flask.globals import _cv_app
from flask.testing import FlaskClient
from flask_migrate import upgrade
from flask_sqlalchemy.session import _app_ctx_id
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.orm import scoped_session, sessionmaker

from app import create_app
from app.extensions import db
from tests import processes

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL")
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1", ... under pytest-xdist


def _worker_redis_url(url: str | None) -> str | None:
    """Under pytest-xdist each worker has a Redis database of its own: REDIS_URL's number for
    gw0, one less for gw1, and so on (CI's 15 gives 15, 14, ...)."""
    if not (url and WORKER):
        return url
    parts = urlsplit(url)
    number = int(parts.path.strip("/") or 0) - int(WORKER.removeprefix("gw"))
    return urlunsplit(parts._replace(path=f"/{number % 16}"))


if os.environ.get("REDIS_URL"):  # (before the tests' modules read it)
    os.environ["REDIS_URL"] = _worker_redis_url(os.environ["REDIS_URL"])
REDIS_URL = os.environ.get("REDIS_URL")


def pytest_addoption(parser):
    parser.addoption(
        "--timed",
        action="store_true",
        help="also run the tests marked timed, which pass or fail on wall-clock time "
        "(`make lighthouse`); `make test` leaves them out",
    )


# Tests that share something costly, or that cannot share the machine with each other, run in
# one pytest-xdist worker (`make test` runs with --dist loadgroup): the fault and scale-out gates
# (private servers they stop and kill), the accessibility walk (made once for the two gates that
# read it), and each module with a fixture of module scope (a server or app of its own, the
# fuzzer's three runs at once); tests/test_xdist_groups.py holds the list to the modules.
XDIST_GROUPS = {
    "tests/faults/": "faults",
    "tests/browser/test_a11y.py": "a11y-walk",
    "tests/browser/test_budgets.py": "a11y-walk",
}
XDIST_MODULES = (
    "tests/auth/test_concurrent_writer.py",
    "tests/bookings/test_booking_race.py",
    "tests/browser/test_admin_onboarding.py",
    "tests/core/test_errors.py",
    "tests/core/test_i18n.py",
    "tests/gates/test_fuzz.py",
    "tests/gates/test_language.py",
    "tests/gates/test_openapi.py",
    "tests/mail/test_delivery_race.py",
    "tests/market/test_bid_race.py",
    "tests/preparation/test_move_race.py",
    "tests/scale/test_plans.py",
    "tests/shell/test_chat_widget.py",
    "tests/test_processes.py",
)


# The work that takes longest goes out first (longest first: what is left at the end is the
# many short tests, which even the workers out), in this order, ahead of every other test: the
# migrations walked down and up on both databases, the 100k plan test, the accessibility walk,
# the gates (fuzzing, the sweeps, the language gate), the fault gates, the browser journeys.
LONG_FIRST = (
    "tests/test_migrations.py",
    "tests/scale/",
    "a11y-walk",
    "tests/gates/",
    "faults",
    "tests/browser/",
)


def long_first(scope: str) -> int:
    """Where a unit of work (a group, or one test) goes in the order of LONG_FIRST."""
    for rank, prefix in enumerate(LONG_FIRST):
        if scope.startswith(prefix):
            return rank
    return len(LONG_FIRST)


def xdist_group(nodeid: str) -> str | None:
    """The group a test runs in, or None for a test any worker may take."""
    path = nodeid.split("::", 1)[0]
    for prefix, group in XDIST_GROUPS.items():
        if path.startswith(prefix):
            return group
    return path if path in XDIST_MODULES else None


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """--dist loadgroup by XDIST_GROUPS. (pytest-xdist 3.8's own loadgroup reads the groups from
    node ids it changes on the workers, which pytest 9.2 no longer lets it change:
    pytest-dev/pytest-xdist#1386.)"""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Grouped(LoadScopeScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return xdist_group(nodeid) or nodeid

        def _assign_work_unit(self, node) -> None:
            if not self.ordered:  # (the first call: the queue is whole, nothing handed out yet)
                units = sorted(self.workqueue.items(), key=lambda unit: long_first(unit[0]))
                self.workqueue = OrderedDict(units)
                self.ordered = True
            super()._assign_work_unit(node)

    return Grouped(config, log)


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


# --- databases ----------------------------------------------------------------------------------
#
# Every database of the run is copied from one of two templates the run makes once: "empty" (the
# migrations applied) and "demo" (with the demo data set too). Migrating takes seconds and the
# demo data most of a minute; a copy takes a fraction of a second, so a session fixture that
# needs a database of its own (and each pytest-xdist worker its own of each) costs little.
# Under pytest-xdist each worker has databases of its own: TEST_DATABASE_URL's names get the
# worker's id (dealercare_test_gw0, dealercare_test_browser_gw1, ...), created here (the role may
# create databases); the templates are shared by the workers of a run.

# Every database a run makes carries the run's marker as its comment (JSON: the run's id, the
# host and the process that owns the run: pytest-xdist's controller, or the lone pytest). The run
# drops its databases when it ends, also when interrupted; a run killed outright cannot, and the
# next run drops the databases whose owner is gone (by their marker, never by their name).

_RUN: dict = {}  # "id", "owner", "owner_started", "host": the same in every worker of one run
MARKER = "dealercare-test-run"


def pytest_configure(config):
    workerinput = getattr(config, "workerinput", None)
    if workerinput:
        _RUN["id"] = workerinput["testrunuid"]
    else:  # (pytest-xdist's controller hands its workers this id)
        _RUN["id"] = getattr(config.option, "testrunuid", None) or uuid.uuid4().hex
        if hasattr(config.option, "testrunuid"):
            config.option.testrunuid = _RUN["id"]
    owner = workerinput.get("dealercare_owner", os.getppid()) if workerinput else os.getpid()
    _RUN.update(owner=owner, owner_started=processes.started_at(owner), host=socket.gethostname())
    processes.pytest_configure(config)
    if TEST_DATABASE_URL and not workerinput:
        _drop_databases(_left_by_a_killed_run)


# pytest-xdist's controller runs no test: while its workers start and collect, it makes the run's
# templates (the demo data takes the longest), which the workers would otherwise wait for.
def pytest_sessionstart(session):
    config = session.config
    if not hasattr(config, "workerinput") and getattr(config.option, "dist", "no") != "no":
        _start_templates(config)


def _start_templates(config):
    tmp_path_factory = config._tmp_path_factory  # (made here, not in two threads at once)
    tmp_path_factory.getbasetemp()

    def make() -> None:
        logging.disable(logging.INFO)  # (the migrations' log, which no capture hides here)
        try:
            if TEST_DATABASE_URL:
                _postgresql_template("demo")
            else:
                _sqlite_template(tmp_path_factory, "demo")
        except Exception:  # noqa: S110 - the worker that needs it makes it, and reports why not
            pass
        finally:
            logging.disable(logging.NOTSET)

    threading.Thread(target=make, name="templates", daemon=True).start()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist's controller tells each worker which process owns the run."""
    node.workerinput["dealercare_owner"] = os.getpid()


def pytest_unconfigure(config):
    """Whatever server this run started and no finalizer stopped (an interrupted set-up), and,
    in the process that owns the run, every database the run made."""
    processes.stop_all()
    if TEST_DATABASE_URL and not hasattr(config, "workerinput") and _RUN:
        _drop_databases(lambda run: run.get("id") == _RUN["id"])


def _marker(**extra) -> str:
    return json.dumps({MARKER: _RUN["id"], **{k: v for k, v in _RUN.items() if k != "id"}, **extra})


def _run_of(comment: str | None) -> dict | None:
    """The run a database's comment names ({"id", "owner", ...}), or None for a database that
    is no test run's."""
    try:
        run = json.loads(comment or "")
    except ValueError:
        return None
    if not isinstance(run, dict) or MARKER not in run:
        return None
    return {**run, "id": run[MARKER]}


def _left_by_a_killed_run(run: dict) -> bool:
    """A run of this host whose owning process is gone (a process of that id now is another)."""
    if run.get("host") != socket.gethostname() or run.get("id") == _RUN["id"]:
        return False
    owner = run.get("owner")
    return not (isinstance(owner, int) and processes.started_at(owner) == run.get("owner_started"))


def _mark(conn, name: str, **extra) -> None:
    marker = _marker(**extra).replace("'", "''")
    conn.execute(text(f"COMMENT ON DATABASE \"{name}\" IS '{marker}'"))


def _drop_databases(which) -> None:
    """Drop the test runs' databases for whose run `which(run)` holds; quietly nothing when the
    server cannot be reached (the tests that need it say so)."""
    try:
        with _postgresql_admin("dealercare-test-templates") as conn:
            rows = conn.execute(
                text("SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database")
            ).all()
            for name, comment in rows:
                run = _run_of(comment)
                if run is not None and which(run):
                    conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    except OperationalError:
        return


def postgresql_url(name: str = "main", worker: str | None = None) -> str:
    """TEST_DATABASE_URL's database for `name` in this process: suffixed _name (nothing for
    main) and, under pytest-xdist, with the worker's id."""
    worker = WORKER if worker is None else worker
    suffix = "".join(f"_{part}" for part in (name != "main" and name, worker) if part)
    return re.sub(r"/([^/?]+)(\?|$)", rf"/\1{suffix}\2", TEST_DATABASE_URL, count=1)


@contextmanager
def _postgresql_admin(lock: str):
    """A connection to the server's postgres database holding an advisory lock named `lock`
    (the processes of a run take turns to make and copy each template: one lock per template,
    so that copies of the empty one go on while the demo one is being made)."""
    admin = _engine(str(make_url(TEST_DATABASE_URL).set(database="postgres")))
    try:
        with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            key = zlib.crc32(lock.encode())
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": key})
            try:
                yield conn
            finally:
                # After an interruption (Ctrl-C, SIGTERM) the connection may be unusable: the
                # lock goes with it, and the interruption, not this, is what the run reports.
                with suppress(SQLAlchemyError):
                    conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
    finally:
        admin.dispose()


def _fill(url: str, demo: bool) -> None:
    """Migrate the database at `url` (and load the demo data), then close every connection."""
    from app.demo import load_demo_data

    app = make_app(url)
    with app.app_context():
        if demo:
            assert load_demo_data(), "a new template database should start empty"
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()


def _postgresql_template(kind: str) -> str:
    """The name of this run's template database of `kind`, made by the first process that asks."""
    name = make_url(postgresql_url(f"template_{kind}", worker="")).database
    empty = _postgresql_template("empty") if kind == "demo" else None  # (before the lock)
    with _postgresql_admin(f"dealercare-test-template-{kind}") as conn:
        made = conn.scalar(
            text(
                "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = :n"
            ),
            {"n": name},
        )
        run = _run_of(made) or {}
        if run.get("id") == _RUN["id"] and run.get("made"):
            return name
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{empty}"' if empty else "")))
        _mark(conn, name, made=False)  # (the run's, also when it ends before it is whole)
        _fill(postgresql_url(f"template_{kind}", worker=""), demo=kind == "demo")
        _mark(conn, name, made=True)
    return name


def _sqlite_template(tmp_path_factory, kind: str) -> Path:
    """This run's template SQLite file of `kind`, in the folder the run's workers share."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if WORKER else base
    template = shared / f"template-{kind}.db"
    empty = _sqlite_template(tmp_path_factory, "empty") if kind == "demo" else None
    with open(shared / f"template-{kind}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not template.exists():
            making = shared / f"making-{kind}.db"
            making.unlink(missing_ok=True)  # what a failed attempt left
            if empty:
                shutil.copyfile(empty, making)
            _fill(f"sqlite:///{making}", demo=kind == "demo")
            making.rename(template)
    return template


def database_url(tmp_path_factory, name: str, demo: bool = False) -> str:
    """A database of its own for `name`, migrated (and holding the demo data with `demo`),
    copied from the run's template: TEST_DATABASE_URL's database suffixed _name (see
    postgresql_url), or a SQLite file."""
    kind = "demo" if demo else "empty"
    if TEST_DATABASE_URL:
        url = postgresql_url(name)
        target = make_url(url).database
        template = _postgresql_template(kind)
        with _postgresql_admin(f"dealercare-test-template-{kind}") as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{target}" WITH (FORCE)'))
            conn.execute(text(f'CREATE DATABASE "{target}" TEMPLATE "{template}"'))
            _mark(conn, target)
        return url
    path = tmp_path_factory.mktemp(name) / "test.db"
    shutil.copyfile(_sqlite_template(tmp_path_factory, kind), path)
    return f"sqlite:///{path}"


def ensure_database(url: str) -> None:
    """Create a PostgreSQL database when it does not exist yet (the role may create them)."""
    name = make_url(url).database
    admin = _engine(str(make_url(url).set(database="postgres")))
    with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        exists = conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name})
        if exists.first() is None:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        _mark(conn, name)  # (this run's now, to drop when it ends)
    admin.dispose()


def reset_database(url: str) -> None:
    """Empty a PostgreSQL test database (its public schema) before migrating it."""
    ensure_database(url)
    engine = _engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


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
    """A second app whose database holds the demo data set (a copy of the run's template)."""
    return make_app(database_url(tmp_path_factory, "demo", demo=True))


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
