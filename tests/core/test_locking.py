"""SQLite's BEGIN IMMEDIATE waits for the write lock in short steps, up to the busy timeout
(on a clock the test steps: nothing here depends on how fast the machine is)."""

import sqlite3

import pytest

from app.core import locking


@pytest.fixture
def database(tmp_path):
    path = tmp_path / "lock.db"
    with sqlite3.connect(path, isolation_level=None) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE t (n INTEGER)")
    return path


def _connect(path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    connection.execute(f"PRAGMA busy_timeout={locking.BUSY_TIMEOUT_MS}")
    return connection


class Clock:
    """locking's clock and sleep, stepped by the test instead of the wall clock: each pause
    is recorded and moves the clock on, and `on_pause` may act in it (release the lock)."""

    def __init__(self, on_pause=None):
        self.now, self.pauses, self.on_pause = 0.0, [], on_pause

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds
        if self.on_pause:
            self.on_pause(len(self.pauses))


def test_a_waiting_writer_tries_again_in_short_steps_and_takes_the_lock_at_its_release(
    database, monkeypatch
):
    # SQLite's own busy handler would sleep 1, 2, 5, 10 ms ... between tries: a writer slept
    # past the lock's release. Here the tries come 50, 100, then every 200 µs.
    holder, waiter = _connect(database), _connect(database)
    holder.execute("BEGIN IMMEDIATE")
    busy_timeouts = []

    def pause(count: int) -> None:
        busy_timeouts.append(waiter.execute("PRAGMA busy_timeout").fetchone()[0])
        if count == 5:
            holder.execute("COMMIT")  # released during the fifth pause

    clock = Clock(pause)
    monkeypatch.setattr(locking, "time", clock)
    locking.begin_immediate(waiter)
    assert waiter.in_transaction  # it has the lock, at the first try after the release
    assert clock.pauses == [0.00005, 0.0001, 0.0002, 0.0002, 0.0002]
    assert busy_timeouts == [0] * 5  # SQLite's own (coarse) waiting is off meanwhile
    assert waiter.execute("PRAGMA busy_timeout").fetchone() == (locking.BUSY_TIMEOUT_MS,)
    waiter.execute("ROLLBACK")
    holder.close(), waiter.close()


def test_the_wait_ends_with_database_is_locked_and_the_timeout_is_restored(database, monkeypatch):
    monkeypatch.setattr(locking, "BUSY_TIMEOUT_MS", 60)
    holder, waiter = _connect(database), _connect(database)
    holder.execute("BEGIN IMMEDIATE")
    clock = Clock()
    monkeypatch.setattr(locking, "time", clock)
    with pytest.raises(sqlite3.OperationalError, match="database is locked"):
        locking.begin_immediate(waiter)
    # Refused once the busy timeout had passed, not before, and not a step later.
    assert 0.06 < clock.now <= 0.06 + 0.0002
    assert waiter.execute("PRAGMA busy_timeout").fetchone() == (60,)
    assert not waiter.in_transaction
    holder.execute("ROLLBACK")
    locking.begin_immediate(waiter)  # free again: at once
    assert waiter.in_transaction
    waiter.execute("ROLLBACK")
    holder.close(), waiter.close()
