"""A statement run alone (app.core.roundtrips.execute_alone) is its own transaction only when
nothing has begun on the connection; a connection it leaves broken never goes back to the pool
in autocommit, where the next unit of work would lose its atomicity."""

import os

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import QueuePool

from app.config import database_url
from app.core.roundtrips import execute_alone

URL = os.environ.get("TEST_DATABASE_URL", "")
pytestmark = pytest.mark.skipif(
    not URL.startswith("postgresql"), reason="TEST_DATABASE_URL names no PostgreSQL (CI does)"
)


@pytest.fixture
def engine():
    made = create_engine(database_url(URL), poolclass=QueuePool, pool_size=1, max_overflow=0)
    with made.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE IF NOT EXISTS roundtrips_probe (n integer)")
        connection.exec_driver_sql("DELETE FROM roundtrips_probe")
    yield made
    with made.begin() as connection:
        connection.exec_driver_sql("DROP TABLE roundtrips_probe")
    made.dispose()


def _rows(engine) -> list[int]:
    with engine.connect() as connection:
        return list(connection.scalars(text("SELECT n FROM roundtrips_probe ORDER BY n")))


def test_alone_it_is_committed_when_it_returns(engine):
    other = create_engine(database_url(URL))
    try:
        with engine.connect() as connection:
            result, committed = execute_alone(
                connection, text("INSERT INTO roundtrips_probe VALUES (1) RETURNING n"), {}
            )
            assert (result.scalar_one(), committed) == (1, True)
            # Seen by another connection before this one commits or ends.
            with other.connect() as elsewhere:
                assert list(elsewhere.scalars(text("SELECT n FROM roundtrips_probe"))) == [1]
            assert connection.connection.dbapi_connection.autocommit is False
    finally:
        other.dispose()


def test_after_another_statement_it_stays_in_that_transaction(engine):
    with engine.connect() as connection:
        connection.execute(text("SELECT 1"))
        _result, committed = execute_alone(
            connection, text("INSERT INTO roundtrips_probe VALUES (2)"), {}
        )
        assert committed is False
        connection.rollback()
    assert _rows(engine) == []


def test_a_connection_broken_while_alone_is_not_pooled_in_autocommit(engine):
    with engine.connect() as connection:
        backend = connection.scalar(text("SELECT pg_backend_pid()"))
        connection.rollback()
        killer = create_engine(database_url(URL))
        try:
            with killer.connect() as other:
                other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": backend})
        finally:
            killer.dispose()
        with pytest.raises(DBAPIError):
            execute_alone(connection, text("INSERT INTO roundtrips_probe VALUES (3)"), {})
    with engine.connect() as connection:  # a new connection, in transactions as usual
        assert connection.scalar(text("SELECT pg_backend_pid()")) != backend
        assert connection.connection.dbapi_connection.autocommit is False
        connection.execute(text("INSERT INTO roundtrips_probe VALUES (4)"))
        connection.rollback()
    assert _rows(engine) == []
