"""On PostgreSQL the app's connection (app.core.pgconnection.Connection) keeps the statements
prepared on the server across a ROLLBACK that follows no error, so a read-only request's
statements are planned once per connection instead of on every request. After an error it
forgets them, as psycopg does. A rollback still undoes what its transaction wrote."""

import pytest
from psycopg.pq import TransactionStatus
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from app.core.pgconnection import Connection, plan_for_parameters

PROBE = text("SELECT n FROM prepared_probe WHERE n = :n")


@pytest.fixture
def engine(pg_engine):
    """The one-connection engine, with a probe table holding one row (1)."""
    with pg_engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE IF NOT EXISTS prepared_probe (n integer)")
        connection.exec_driver_sql("DELETE FROM prepared_probe")
        connection.exec_driver_sql("INSERT INTO prepared_probe VALUES (1)")
    yield pg_engine
    with pg_engine.begin() as connection:
        connection.exec_driver_sql("DROP TABLE prepared_probe")


def _probe_prepared(connection) -> bool:
    """Whether the server holds the probe's statement prepared for this connection."""
    statements = connection.scalars(text("SELECT statement FROM pg_prepared_statements"))
    return any("prepared_probe" in statement for statement in statements)


def _read_and_roll_back(connection, times: int) -> None:
    """The probe read in `times` read-only transactions, each ended by a rollback, as a
    read-only request ends."""
    for _ in range(times):
        assert connection.execute(PROBE, {"n": 1}).all() == [(1,)]
        connection.rollback()


def test_the_app_connects_with_its_connection(engine):
    with engine.connect() as connection:
        assert isinstance(connection.connection.dbapi_connection, Connection)


def test_a_rollback_after_no_error_keeps_the_prepared_statements(engine):
    with engine.connect() as connection:
        # psycopg prepares a statement at its fifth run; it used to forget the count and
        # every prepared statement at each rollback, so this read was never prepared.
        _read_and_roll_back(connection, 6)
        assert _probe_prepared(connection)
        connection.rollback()
        assert connection.execute(PROBE, {"n": 1}).all() == [(1,)]  # still runs, prepared


def test_a_rollback_after_an_error_forgets_them(engine):
    with engine.connect() as connection:
        _read_and_roll_back(connection, 6)
        with pytest.raises(DBAPIError):
            connection.execute(text("SELECT 1 / 0"))
        raw = connection.connection.dbapi_connection
        assert raw.info.transaction_status == TransactionStatus.INERROR
        connection.rollback()
        assert raw.info.transaction_status == TransactionStatus.IDLE
        assert not _probe_prepared(connection)
        connection.rollback()
        assert connection.execute(PROBE, {"n": 1}).all() == [(1,)]


def test_a_rollback_still_undoes_the_transactions_writes(engine, pg_elsewhere):
    with engine.connect() as connection:
        _read_and_roll_back(connection, 6)
        connection.execute(text("INSERT INTO prepared_probe VALUES (2)"))
        raw = connection.connection.dbapi_connection
        assert raw.info.transaction_status == TransactionStatus.INTRANS
        connection.rollback()
        assert raw.info.transaction_status == TransactionStatus.IDLE
        assert connection.scalars(text("SELECT n FROM prepared_probe ORDER BY n")).all() == [1]
    with pg_elsewhere.connect() as elsewhere:
        assert elsewhere.scalars(text("SELECT n FROM prepared_probe")).all() == [1]


def _plans(connection, marker: str) -> tuple[int, int]:
    """(generic, custom) plans the server used for the prepared statement holding `marker`."""
    return connection.execute(
        text(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements "
            "WHERE statement LIKE :marker AND statement NOT LIKE '%pg_prepared_statements%'"
        ),
        {"marker": f"%{marker}%"},
    ).one()


def test_a_transaction_can_have_its_statements_planned_for_their_parameters(engine):
    """Kept prepared, a statement gets PostgreSQL's generic plan after a few runs, whatever its
    parameters; after plan_for_parameters the rest of that transaction plans each run for its
    own (the overview's search: its LIKE pattern decides whether the trigram index serves)."""
    generic = text("SELECT n FROM prepared_probe WHERE n = :n AND 'as generic' <> ''")
    own = text("SELECT n FROM prepared_probe WHERE n = :n AND 'as its own' <> ''")
    with engine.connect() as connection, Session(bind=connection) as session:
        for _ in range(12):
            assert session.execute(generic, {"n": 1}).all() == [(1,)]
            session.rollback()
            plan_for_parameters(session)
            assert session.execute(own, {"n": 1}).all() == [(1,)]
            session.rollback()
        assert _plans(connection, "as generic")[0] > 0
        assert _plans(connection, "as its own") == (0, 12 - 5)  # psycopg prepares from run 6
        assert connection.exec_driver_sql("SHOW plan_cache_mode").scalar() == "auto"
