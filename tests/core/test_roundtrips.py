"""A statement run alone (app.core.roundtrips.execute_alone) is its own transaction only when
nothing has begun on the connection; a connection it leaves broken never goes back to the pool
in autocommit, where the next unit of work would lose its atomicity."""

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from app.core.roundtrips import execute_alone


@pytest.fixture
def engine(pg_engine):
    """The one-connection engine, with an empty probe table."""
    with pg_engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE IF NOT EXISTS roundtrips_probe (n integer)")
        connection.exec_driver_sql("DELETE FROM roundtrips_probe")
    yield pg_engine
    with pg_engine.begin() as connection:
        connection.exec_driver_sql("DROP TABLE roundtrips_probe")


def _rows(engine) -> list[int]:
    with engine.connect() as connection:
        return list(connection.scalars(text("SELECT n FROM roundtrips_probe ORDER BY n")))


def test_alone_it_is_committed_when_it_returns(engine, pg_elsewhere):
    with engine.connect() as connection:
        result, committed = execute_alone(
            connection, text("INSERT INTO roundtrips_probe VALUES (1) RETURNING n"), {}
        )
        assert (result.scalar_one(), committed) == (1, True)
        # Seen by another connection before this one commits or ends.
        assert _rows(pg_elsewhere) == [1]
        assert connection.connection.dbapi_connection.autocommit is False


def test_after_another_statement_it_stays_in_that_transaction(engine):
    with engine.connect() as connection:
        connection.execute(text("SELECT 1"))
        _result, committed = execute_alone(
            connection, text("INSERT INTO roundtrips_probe VALUES (2)"), {}
        )
        assert committed is False
        connection.rollback()
    assert _rows(engine) == []


def test_a_connection_broken_while_alone_is_not_pooled_in_autocommit(engine, end_backend):
    with engine.connect() as connection:
        backend = connection.scalar(text("SELECT pg_backend_pid()"))
        connection.rollback()
        assert end_backend(backend)
        with pytest.raises(DBAPIError):
            execute_alone(connection, text("INSERT INTO roundtrips_probe VALUES (3)"), {})
    with engine.connect() as connection:  # a new connection, in transactions as usual
        assert connection.scalar(text("SELECT pg_backend_pid()")) != backend
        assert connection.connection.dbapi_connection.autocommit is False
        connection.execute(text("INSERT INTO roundtrips_probe VALUES (4)"))
        connection.rollback()
    assert _rows(engine) == []
