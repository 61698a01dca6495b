"""A pooled PostgreSQL connection is checked at checkout without a round trip while it is sound
(app.core.liveness); one whose server end is gone is replaced before a request uses it."""

import os
import time

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import QueuePool

from app.config import database_url
from app.core import liveness

URL = os.environ.get("TEST_DATABASE_URL", "")
pytestmark = pytest.mark.skipif(
    not URL.startswith("postgresql"), reason="TEST_DATABASE_URL names no PostgreSQL (CI does)"
)


@pytest.fixture
def engine():
    made = create_engine(database_url(URL), poolclass=QueuePool, pool_size=1, max_overflow=0)
    yield made
    made.dispose()


@pytest.fixture
def pings(monkeypatch):
    seen = []
    real = liveness._ping

    def counted(dbapi_connection):
        seen.append(time.monotonic())
        real(dbapi_connection)

    monkeypatch.setattr(liveness, "_ping", counted)
    return seen


def _backend(engine) -> int:
    with engine.connect() as connection:
        return connection.scalar(text("SELECT pg_backend_pid()"))


def test_a_sound_connection_is_used_without_a_ping(engine, pings):
    first = _backend(engine)
    assert [_backend(engine) for _ in range(5)] == [first] * 5  # the same pooled connection
    assert pings == []


def test_a_connection_idle_for_long_is_pinged(engine, pings, monkeypatch):
    first = _backend(engine)
    monkeypatch.setattr(liveness, "IDLE_PING", 0.0)
    assert _backend(engine) == first
    assert len(pings) == 1


def test_a_connection_whose_backend_ended_is_replaced_before_use(engine, pings):
    first = _backend(engine)
    other = create_engine(database_url(URL))
    try:
        with other.connect() as connection:
            assert connection.scalar(text("SELECT pg_terminate_backend(:pid)"), {"pid": first})
    finally:
        other.dispose()
    time.sleep(0.2)  # the server's message and the end of the stream reach the socket
    second = _backend(engine)  # no error: the pool took a new connection
    assert second != first
    assert len(pings) == 1  # the poll showed the end, the ping confirmed it
