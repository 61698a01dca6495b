"""Serialise writers on one row: `SELECT ... FOR UPDATE` on PostgreSQL; on SQLite, where
SQLAlchemy drops FOR UPDATE, the transaction is begun with `BEGIN IMMEDIATE`, which takes the
database's write lock up front (waiting up to busy_timeout) so no two writers read the same
state and both write on it.

Every other SQLite transaction begins lazily: it reads in autocommit and takes the write lock
just before its first write (lock_before_write), so no transaction is ever refused the upgrade
from reading to writing."""

import re
import sqlite3
import time
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar

from sqlalchemy import Select

from app.extensions import db

_immediate: ContextVar[bool] = ContextVar("sqlite_begin_immediate", default=False)


def begin_statement() -> str:
    """The BEGIN the SQLite begin hook emits: IMMEDIATE once after `locked()` asked for it."""
    if _immediate.get():
        _immediate.set(False)
        return "BEGIN IMMEDIATE"
    return "BEGIN"


BUSY_TIMEOUT_MS = 10_000  # how long a write waits for another's lock (PRAGMA busy_timeout)
_FIRST_PAUSE, _LONGEST_PAUSE = 0.00005, 0.0002  # seconds between BEGIN IMMEDIATE's tries


def begin_immediate(dbapi_connection: sqlite3.Connection) -> None:
    """BEGIN IMMEDIATE on a raw SQLite connection, waiting for the write lock in short steps.

    SQLite's own busy handler sleeps 1, 2, 5, 10, 15 ms ... between tries; a bid holds the lock
    for about a millisecond (its commit's fsync included), so a second writer slept past the
    lock's release while its worker sat idle. A failed BEGIN IMMEDIATE has taken no lock and
    may simply be tried again: from 50 µs between tries, doubling up to 200 µs (a try costs
    some 10 µs), for at most the busy timeout; then "database is locked" as before."""
    dbapi_connection.execute("PRAGMA busy_timeout=0")
    try:
        pause, deadline = _FIRST_PAUSE, time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                dbapi_connection.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if exc.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, _LONGEST_PAUSE)
    finally:
        dbapi_connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")


# What a statement does to an SQLite transaction begun lazily (see lock_before_write): these
# read or end one; anything else writes (INSERT, UPDATE, DELETE, SAVEPOINT, DDL ...), and a
# statement that is not known to only read is taken for a write (the lock early: safe).
_READS = frozenset(("SELECT", "PRAGMA", "EXPLAIN", "VALUES"))
_ENDS = frozenset(("BEGIN", "COMMIT", "END", "ROLLBACK", "RELEASE"))
_WRITE_WORD = re.compile(r"\b(INSERT|UPDATE|DELETE|REPLACE)\b", re.IGNORECASE)


def lock_before_write(connection, dbapi_connection: sqlite3.Connection, statement: str) -> None:
    """SQLite: before the first write of a transaction begun without the write lock, take it
    (BEGIN IMMEDIATE, waiting as begin_immediate does).

    Such a transaction (the begin hook emits no BEGIN for it) reads in autocommit, each
    statement on the latest commit, as PostgreSQL's READ COMMITTED does. A plain BEGIN would
    instead pin the first read's snapshot, and its first write after another connection's
    commit would be refused at once, "database is locked" (SQLITE_BUSY_SNAPSHOT: no wait helps,
    busy_timeout is not consulted): a sign-in while the scheduler committed answered 500.
    A transaction that writes now always begins with the write lock, so it can only wait."""
    if dbapi_connection.in_transaction:  # begun already (IMMEDIATE, or a test's outer BEGIN)
        return
    word = statement.lstrip()[:12].split(None, 1)[0].upper() if statement.strip() else ""
    if word in _READS or word in _ENDS or (word == "WITH" and not _WRITE_WORD.search(statement)):
        return
    begin_immediate(dbapi_connection)
    connection.info["write_locked"] = True


def _write_locked(session) -> bool:
    """Whether the session's transaction (SQLite) began with the write lock."""
    return session.in_transaction() and session.connection().info.get("write_locked", False)


@contextmanager
def immediate():
    """On SQLite, the transaction begun inside the block takes the write lock up front (a
    read-only transaction already open is ended first; one that holds the lock goes on);
    elsewhere nothing changes. A unit of work that reads and then writes cannot then be refused
    its write ("database is locked") because another connection committed after its read began."""
    session = db.session()
    if db.engine.dialect.name != "sqlite" or _write_locked(session):
        yield
        return
    if session.in_transaction():
        session.commit()
    token = _immediate.set(True)
    try:
        yield
    finally:
        _immediate.reset(token)


def locked(statement: Select, params: dict | None = None, of=None):
    """Run `statement` (with `params`) holding a write lock on what it selects until the
    transaction ends (`of`: only on these tables' rows, e.g. beside an outer join).

    Nothing may be pending in the session: on SQLite a read-only transaction already open is
    ended first, so that the next one starts with the write lock."""
    session = db.session()
    if db.engine.dialect.name != "sqlite":
        statement, lock = statement.with_for_update(of=of), nullcontext()
    elif session.new or session.dirty or session.deleted:
        raise RuntimeError("locked() needs a session without pending changes")
    else:
        lock = immediate()
    with lock:
        return session.execute(statement, params)
