"""The psycopg connection that the app's engines use on PostgreSQL (registered in app/__init__.py
for every engine, the tests' own included)."""

import psycopg
from psycopg.pq import PipelineStatus, TransactionStatus
from sqlalchemy import text


class Connection(psycopg.Connection):
    """psycopg's connection, except that rolling back a transaction that is not in error keeps
    the statements prepared on the server.

    psycopg prepares a statement after its fifth run, and forgets all its prepared statements
    at every ROLLBACK. Every read-only request ends with one (so does every refused bid), so
    PostgreSQL parsed and planned nearly every statement of every page on every request
    (bench/PAGES.md, rounds 5 and 6). The server keeps prepared statements across a ROLLBACK.
    psycopg's clearing is needed only after an error, when a statement sent in the failed
    transaction may not have been prepared. That case keeps psycopg's own rollback, and so does
    a connection in pipeline mode. Only public API is used (`pgconn`'s statuses, `execute`'s
    `prepare`): SQLAlchemy drives these connections and never opens psycopg's own transaction
    blocks (`Connection.transaction()`), inside which psycopg refuses a rollback.
    tests/core/test_prepared.py checks all three cases."""

    def rollback(self) -> None:
        if (
            self.pgconn.transaction_status == TransactionStatus.INTRANS
            and self.pgconn.pipeline_status == PipelineStatus.OFF
        ):
            self.execute("ROLLBACK", prepare=False)
        else:
            super().rollback()


def plan_for_parameters(session) -> None:
    """Plan the rest of the session's transaction's statements for their own parameters, not
    with a generic plan (PostgreSQL; `SET LOCAL` ends with the transaction).

    The statements stay prepared across requests (above), and after five runs of a prepared
    statement PostgreSQL may plan it once for any parameters. Where the parameters decide the
    plan, that generic plan is wrong: it cannot see a search's LIKE pattern, and at 1,000,000
    vehicles the overview's search took 260 ms from its eleventh run instead of 37 ms
    (bench/SCALE.md). Statements whose plan does not depend on the values keep the generic
    plan and save the planning."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SET LOCAL plan_cache_mode = force_custom_plan"))
