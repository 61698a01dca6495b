"""A pooled PostgreSQL connection is checked at checkout without a round trip while it is sound
(app.core.liveness); one whose server end is gone is replaced before a request uses it."""

import time

import pytest
from sqlalchemy import text

from app.core import liveness


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


def test_a_sound_connection_is_used_without_a_ping(pg_engine, pings):
    first = _backend(pg_engine)
    assert [_backend(pg_engine) for _ in range(5)] == [first] * 5  # the same pooled connection
    assert pings == []


def test_a_connection_idle_for_long_is_pinged(pg_engine, pings, monkeypatch):
    first = _backend(pg_engine)
    monkeypatch.setattr(liveness, "IDLE_PING", 0.0)
    assert _backend(pg_engine) == first
    assert len(pings) == 1


def test_a_connection_whose_backend_ended_is_replaced_before_use(pg_engine, pings, end_backend):
    first = _backend(pg_engine)
    assert end_backend(first)  # ended: its message and the end of the stream are on the socket
    second = _backend(pg_engine)  # no error: the pool took a new connection
    assert second != first
    assert len(pings) == 1  # the poll showed the end, the ping confirmed it
