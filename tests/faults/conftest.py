"""The fault and scale-out gates: real servers of their own, stopped, restarted and killed.

A private Redis and a private PostgreSQL cluster (tests/faults/servers.py) and gunicorn nodes, on
ports chosen free when each starts, stopped when the run ends however it ends
(tests/processes.py); the shared servers of the rest of the suite are never touched.
Without redis-server or PostgreSQL's binaries the gates are skipped with one line, except in CI
(CI or REQUIRE_BROWSER set), where that is a failure.
"""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests import processes
from tests.faults import servers

SECRET = "faults-gate-secret"
SELLER, ADMIN = servers.SELLER, servers.ADMIN


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if "tests/faults/" not in str(item.fspath).replace(os.sep, "/"):
        return
    why = servers.missing()
    if why:
        if os.environ.get("CI") or os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(f"fault gates cannot run in CI: {why}")
        pytest.skip(f"fault gates skipped: {why}")


@pytest.fixture(autouse=True)
def _transaction():
    """These tests commit for real in their own PostgreSQL (no rolled-back test transaction)."""
    yield


class Stack:
    """The private servers and helpers around them."""

    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.redis = servers.PrivateRedis(log_dir)
        self.pg = servers.PrivatePostgres()
        self.app = None

    def env(self, **extra) -> dict:
        return servers.app_env(self.pg.url, self.redis.url, SECRET, **extra)

    def node(self, name: str, ports, **kwargs) -> servers.Process:
        return servers.gunicorn_node(name, list(ports), self.env(), self.log_dir, **kwargs)

    def worker(self, name: str, **extra) -> servers.Process:
        return servers.rq_worker(name, self.env(**extra), self.log_dir)

    def scalar(self, sql: str, *params):
        rows = self.pg.execute(sql, params)
        return rows[0][0] if rows else None

    def ensure_up(self) -> None:
        """Put back whatever a test stopped."""
        if not self.redis.running():
            self.redis.start()
        try:
            self.pg.execute("SELECT 1")
        except Exception:
            self.pg.start()


@pytest.fixture(scope="package")
def stack():
    """Up while the gates of this folder run (they run in one worker, one after the other), then
    stopped and their folder removed; recorded so that a killed run's next run removes it."""
    log_dir = Path(tempfile.mkdtemp(prefix="dc-faults-logs-"))
    folder = processes.record("folder", 0, [log_dir])
    made = Stack(log_dir)
    try:  # a set-up that fails half-way stops what it started too
        made.redis.start()
        made.pg.start()
        made.app = servers.seed(made.pg.url, SECRET)
        yield made
    finally:
        made.redis.stop()
        made.pg.destroy()
        shutil.rmtree(log_dir, ignore_errors=True)
        processes.forget(folder)


@pytest.fixture
def up(stack):
    """The stack with both servers running, and running again after the test."""
    stack.ensure_up()
    yield stack
    stack.ensure_up()
