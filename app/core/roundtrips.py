"""PostgreSQL: one statement as a transaction of its own, in one round trip.

psycopg opens a transaction by sending BEGIN and waiting for its answer before the first
statement, and ends it with COMMIT: two round trips besides the statement's own, each of which
under load also waits for the server's backend to be scheduled (bench/PAGES.md, round 5: a
tenth of a bid's time in a worker). A statement that is a whole unit of work by itself (a
function that locks, checks and writes) can run in autocommit instead: the server wraps it in
its own transaction, committed when it ends. That is only so when nothing else has run in the
unit of work yet; inside a transaction already begun (a statement before it, or a test's outer
transaction) it runs in that transaction as usual."""

from psycopg import Connection as PsycopgConnection
from psycopg import Error
from psycopg.pq import TransactionStatus
from sqlalchemy.engine import Connection, CursorResult


def execute_alone(connection: Connection, statement, params: dict) -> tuple[CursorResult, bool]:
    """Execute `statement` on `connection` (a session's); when the connection has no open
    transaction, as a transaction of its own, committed when it ends. Returns the result (its
    rows already received) and whether it was committed so."""
    raw = connection.connection.dbapi_connection
    if (
        not isinstance(raw, PsycopgConnection)
        or raw.autocommit
        or raw.info.transaction_status != TransactionStatus.IDLE
    ):
        return connection.execute(statement, params), False
    raw.autocommit = True  # psycopg allows the switch only outside a transaction: here
    try:
        return connection.execute(statement, params), True
    finally:
        try:
            raw.autocommit = False
        except Error:  # closed or broken: it must not go back to the pool in autocommit
            connection.invalidate()
