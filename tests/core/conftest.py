"""Fixtures for the tests of app.core that need a real PostgreSQL server (TEST_DATABASE_URL;
CI has one): they skip without it."""

import os
import time

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import QueuePool

from app.config import database_url
from tests.conftest import postgresql_url

PG_URL = os.environ.get("TEST_DATABASE_URL", "")


def _postgresql_url() -> str:
    """This process's main test database (the app fixture makes it; under pytest-xdist each
    worker has its own)."""
    if not PG_URL.startswith("postgresql"):
        pytest.skip("TEST_DATABASE_URL names no PostgreSQL (CI does)")
    return database_url(postgresql_url())


@pytest.fixture
def pg_engine():
    """An engine whose pool holds one connection: each checkout is the same one until it is
    replaced."""
    made = create_engine(_postgresql_url(), poolclass=QueuePool, pool_size=1, max_overflow=0)
    yield made
    made.dispose()


@pytest.fixture
def pg_elsewhere():
    """Another engine on the same database: connections apart from pg_engine's."""
    made = create_engine(_postgresql_url())
    yield made
    made.dispose()


@pytest.fixture
def end_backend(pg_elsewhere):
    """end_backend(pid): end a server process from another connection, as a restart or an
    administrator would, and return once it has ended (it has sent its goodbye and left the
    server's list of backends: a state, not a pause of some length)."""

    def end(pid: int) -> bool:
        with pg_elsewhere.connect() as connection:
            ended = connection.scalar(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        while ended:
            with pg_elsewhere.connect() as connection:
                listed = connection.scalar(
                    text("SELECT count(*) FROM pg_stat_activity WHERE pid = :pid"), {"pid": pid}
                )
            if not listed:
                break
            time.sleep(0.05)
        return ended

    return end
