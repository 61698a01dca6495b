"""Checking a pooled PostgreSQL connection before a request uses it, mostly without a round trip.

SQLAlchemy's `pool_pre_ping` runs SELECT 1 on every checkout: a round trip per request, some 9 %
of a bid's time in a worker under load (bench/PAGES.md, round 4). A server that restarts, or
ends a backend, closes the socket, which then polls readable (its FATAL message, the end of the
stream); a sound idle connection has nothing to read. So a checkout polls the socket, and pings
only when that shows something, or when the connection sat unused longer than IDLE_PING seconds
(a network cut without a FIN shows nothing). A failed ping makes the pool discard the connection
and take another (DisconnectionError), as pool_pre_ping does. tests/faults restart PostgreSQL
under running web processes and check that the next request succeeds."""

import select
import time

import psycopg
from sqlalchemy import event
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.pool import Pool

IDLE_PING = 30.0  # seconds unused after which a checkout pings anyway
_USED = "liveness_used_at"


def _psycopg(dbapi_connection) -> bool:
    return isinstance(dbapi_connection, psycopg.Connection)


def _shows_something(dbapi_connection) -> bool:
    """Whether the idle connection's socket has anything to read, or is closed."""
    try:
        poller = select.poll()
        poller.register(dbapi_connection.fileno(), select.POLLIN | select.POLLERR | select.POLLHUP)
        return bool(poller.poll(0))
    except (OSError, ValueError, AttributeError):  # closed: no socket left
        return True


def _ping(dbapi_connection) -> None:
    """SELECT 1 outside a transaction (as SQLAlchemy's psycopg dialect pings)."""
    autocommit = dbapi_connection.autocommit
    dbapi_connection.autocommit = True
    try:
        dbapi_connection.execute("SELECT 1")
    finally:
        if not dbapi_connection.closed:
            dbapi_connection.autocommit = autocommit


@event.listens_for(Pool, "connect")
def _connected(dbapi_connection, record) -> None:
    record.info[_USED] = time.monotonic()


@event.listens_for(Pool, "checkin")
def _checked_in(dbapi_connection, record) -> None:
    if dbapi_connection is not None:
        record.info[_USED] = time.monotonic()


@event.listens_for(Pool, "checkout")
def _checkout(dbapi_connection, record, proxy) -> None:
    if not _psycopg(dbapi_connection):
        return
    idle = time.monotonic() - record.info.get(_USED, 0.0)
    if idle < IDLE_PING and not _shows_something(dbapi_connection):
        return
    try:
        _ping(dbapi_connection)
    except Exception as exc:  # any failure: this connection is not to be used
        raise DisconnectionError(str(exc)) from exc
