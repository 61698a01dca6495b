"""A call through app.core.roundtrips.call_then_commit (real PostgreSQL): its rows come back
while the server is still writing its commit, PendingCommit.wait returns only once the commit
is durable, a failed commit is raised there and keeps nothing, and the pooled connection serves
the next call whatever happened to the last one."""

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, IntegrityError

from app.core.roundtrips import call_then_commit

# A commit that takes its time or fails: a deferred trigger runs at the commit, not at the call.
PROBE = """
CREATE TABLE roundtrips_probe (n integer PRIMARY KEY, note text);
CREATE FUNCTION roundtrips_probe_commit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.note = 'slow' THEN PERFORM pg_sleep(1); END IF;
  IF NEW.note = 'fail' THEN RAISE EXCEPTION 'refused at the commit'; END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER roundtrips_probe_commit AFTER INSERT ON roundtrips_probe
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION roundtrips_probe_commit();
"""
INSERT = b"INSERT INTO roundtrips_probe VALUES ($1, $2) RETURNING n, note, pg_backend_pid()"


@pytest.fixture
def engine(pg_engine):
    """The one-connection engine, with the probe table."""
    with pg_engine.begin() as connection:
        connection.exec_driver_sql("DROP TABLE IF EXISTS roundtrips_probe")
        connection.exec_driver_sql("DROP FUNCTION IF EXISTS roundtrips_probe_commit")
        connection.exec_driver_sql(PROBE)
    yield pg_engine
    with pg_engine.begin() as connection:
        connection.exec_driver_sql("DROP TABLE roundtrips_probe")
        connection.exec_driver_sql("DROP FUNCTION roundtrips_probe_commit")


def _rows(engine) -> list[int]:
    with engine.connect() as connection:
        return list(connection.scalars(text("SELECT n FROM roundtrips_probe ORDER BY n")))


def _insert(engine, n: int, note: str = ""):
    return call_then_commit(engine, b"roundtrips_insert", INSERT, [n, note], tuple)


def test_the_rows_come_before_the_commit_and_wait_returns_once_it_is_durable(engine, pg_elsewhere):
    rows, pending = _insert(engine, 1, "slow")  # its commit takes a second
    assert [row[:2] for row in rows] == [(1, "slow")]
    assert _rows(pg_elsewhere) == []  # not committed yet
    pending.wait()
    assert _rows(pg_elsewhere) == [1]
    pending.wait()  # once is enough: a second wait does nothing
    rows, pending = _insert(engine, 2)
    pending.wait()
    assert _rows(pg_elsewhere) == [1, 2]


def test_a_commit_that_fails_is_raised_by_wait_and_keeps_nothing(engine, pg_elsewhere):
    rows, pending = _insert(engine, 3, "fail")
    assert [row[:2] for row in rows] == [(3, "fail")]
    with pytest.raises(DBAPIError, match="refused at the commit") as failed:
        pending.wait()
    assert failed.value.orig.sqlstate == "P0001"
    assert _rows(pg_elsewhere) == []
    _rows_, pending = _insert(engine, 4)  # the pool's one connection serves again
    pending.wait()
    assert _rows(pg_elsewhere) == [4]


def test_an_error_of_the_call_is_raised_at_once_as_sqlalchemy_raises_it(engine, pg_elsewhere):
    _insert(engine, 5)[1].wait()
    with pytest.raises(IntegrityError):
        _insert(engine, 5)
    rows, pending = _insert(engine, 6)
    pending.wait()
    assert _rows(pg_elsewhere) == [5, 6]


def test_a_statement_that_psycopg_deallocated_is_prepared_again(engine, pg_elsewhere):
    rows, pending = _insert(engine, 7)
    pending.wait()
    with engine.connect() as connection:  # the same pooled connection
        assert connection.scalar(text("SELECT pg_backend_pid()")) == rows[0][2]
        assert connection.scalar(text("SELECT count(*) FROM pg_prepared_statements")) == 1
        connection.exec_driver_sql("DEALLOCATE ALL")  # as psycopg does after a failed transaction
        connection.commit()
    rows, pending = _insert(engine, 8)
    pending.wait()
    assert _rows(pg_elsewhere) == [7, 8]


def test_a_connection_lost_before_the_commit_is_confirmed_is_raised_and_replaced(
    engine, end_backend, pg_elsewhere
):
    rows, pending = _insert(engine, 9, "slow")
    assert end_backend(rows[0][2])
    with pytest.raises(DBAPIError):
        pending.wait()
    assert _rows(pg_elsewhere) == []  # ended before its commit
    rows, pending = _insert(engine, 10)  # on a new connection
    pending.wait()
    assert _rows(pg_elsewhere) == [10]
