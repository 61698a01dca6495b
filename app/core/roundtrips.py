"""PostgreSQL: a statement that is a whole unit of work, answered before its commit is durable.

A bid is one call of a function that locks, checks and writes (market_place_bid). Sent the usual
way, the worker waits for the whole of it: the call, then the commit, whose WAL the server must
write to disk before it answers (more than half of the call, bench/PAGES.md round 7). The bid's
answer does not need the commit, only the call's rows, so `call_then_commit` sends the call, a
flush request and the Sync that commits it in one packet (libpq's pipeline mode: the server
runs the call, sends its rows, then commits) and returns the rows at once. The worker builds the
answer while the server writes the commit; the answer is held until the commit is on disk
(`PendingCommit.wait`).

In a request, `defer` leaves that wait to `AnswerWhenDurable`, the WSGI layer around the app: it
holds the answer's status, headers and body until every deferred commit of the request is
durable, and when one fails, the answer becomes the app's answer to that database error (as if
the call itself had failed). The jobs a unit of work queued go to RQ only after its commits are
durable too (app.core.jobs.dispatch waits for them first). Outside a request the wait is at once.

The call runs on a pooled connection of its own, as a transaction of its own, so the caller must
hold no lock it needs and write nothing else in its unit of work. The statement is prepared once
per connection; psycopg's DEALLOCATE ALL (after a failed transaction) may drop it, and then it
is prepared again."""

import select
from collections.abc import Callable, Sequence

from flask import Flask, g, has_request_context, request
from psycopg import errors as pg_errors
from psycopg import pq
from psycopg.adapt import PyFormat, Transformer
from sqlalchemy.exc import DBAPIError

from app.core.errors import REQUEST_ID

_TUPLES_OK = pq.ExecStatus.TUPLES_OK
_COMMAND_OK = pq.ExecStatus.COMMAND_OK
_SYNC = pq.ExecStatus.PIPELINE_SYNC
_NO_SUCH_STATEMENT = b"26000"  # invalid_sql_statement_name
_PREPARED = "prepared_by_call_then_commit"  # in the pooled connection's info: names prepared
_PENDING = "dealercare.pending_commits"  # in the WSGI environ: the request's PendingCommits
_FAILED = "dealercare.commit_failed"  # in the WSGI environ: the first of them that failed


def _wait_for(pgconn, write: bool = False) -> None:
    fd = pgconn.socket
    select.select([fd], [fd] if write else [], [])


def _send(pgconn) -> None:
    """Send everything libpq holds for the server (psycopg's connections are non-blocking)."""
    while pgconn.flush():
        _wait_for(pgconn, write=True)
        pgconn.consume_input()


def _next_result(pgconn):
    """The pipeline's next result (None between two statements' results), waited for."""
    while pgconn.is_busy():
        _wait_for(pgconn)
        pgconn.consume_input()
    return pgconn.get_result()


def _until_sync(pgconn) -> None:
    """After an error: read the rest of the pipeline up to its Sync (PIPELINE_ABORTED results),
    then leave pipeline mode; a connection that broke is left as it is (its error said why)."""
    try:
        while (result := _next_result(pgconn)) is None or result.status != _SYNC:
            pass
        pgconn.exit_pipeline_mode()
    except pg_errors.Error:
        pass


def _database_error(statement: str, orig: Exception) -> DBAPIError:
    """psycopg's error as SQLAlchemy raises it (IntegrityError, OperationalError, …)."""
    return DBAPIError.instance(statement, None, orig, pg_errors.Error)


def _result_error(statement: str, result, conn) -> DBAPIError:
    return _database_error(
        statement, pg_errors.error_from_result(result, encoding=conn.info.encoding)
    )


class PendingCommit:
    """The commit of a call whose rows were read while the server was still making it durable.
    `wait` returns once the commit is on disk, or raises the database's error; then the
    connection goes back to the pool (after a failure it is discarded)."""

    def __init__(self, fairy, statement: str) -> None:
        self._fairy, self._statement = fairy, statement

    def wait(self) -> None:
        fairy, self._fairy = self._fairy, None
        if fairy is None:
            return  # waited for already
        conn = fairy.dbapi_connection
        try:
            try:
                result = _next_result(conn.pgconn)
            except pg_errors.Error as exc:  # the connection broke
                raise _database_error(self._statement, exc) from exc
            if result.status != _SYNC:  # the commit failed: its error, then the Sync
                error = _result_error(self._statement, result, conn)
                _until_sync(conn.pgconn)
                raise error
            conn.pgconn.exit_pipeline_mode()
        except BaseException:
            fairy.invalidate()
            raise
        finally:
            fairy.close()


def call_then_commit(
    engine, name: bytes, query: bytes, params: Sequence, make_row: Callable
) -> tuple[list, PendingCommit]:
    """Run `query` (its parameters `$1`, `$2`, …) as a transaction of its own on a pooled
    connection of its own; return its rows, made by `make_row` from each row's values, as soon
    as the server ran it, and the PendingCommit that says when its commit is durable. The
    statement is prepared on the connection as `name`. An error of the statement itself is
    raised here, as SQLAlchemy raises it; nothing of it stays."""
    statement = query.decode()
    fairy = engine.raw_connection()
    conn = fairy.dbapi_connection
    try:
        prepared = fairy.info.setdefault(_PREPARED, set())
        transformer = Transformer(conn)
        values = transformer.dump_sequence(params, [PyFormat.TEXT] * len(params))
        call = (conn, transformer, name, query, statement, values, make_row, prepared)
        rows = _call(*call)
        if rows is None:  # its prepared statement was gone: prepared again
            rows = _call(*call)
        if rows is None:
            raise _database_error(statement, pg_errors.InvalidSqlStatementName(name.decode()))
    except DBAPIError:  # the statement's error: the connection serves again, unless it broke
        if conn.pgconn.status == pq.ConnStatus.BAD:
            fairy.invalidate()
        fairy.close()
        raise
    except BaseException as exc:
        fairy.invalidate()
        fairy.close()
        if isinstance(exc, pg_errors.Error):  # the connection broke
            raise _database_error(statement, exc) from exc
        raise
    return rows, PendingCommit(fairy, statement)


def _call(conn, transformer, name, query, statement, values, make_row, prepared) -> list | None:
    """One try: the rows, or None when the prepared statement was gone (the pipeline ended)."""
    pgconn = conn.pgconn
    pgconn.enter_pipeline_mode()
    preparing = name not in prepared
    if preparing:
        pgconn.send_prepare(name, query)
    pgconn.send_query_prepared(name, values)
    pgconn.send_flush_request()  # its rows come before the commit
    pgconn.pipeline_sync()  # the end of the implicit transaction: the commit
    _send(pgconn)
    if preparing:
        result = _next_result(pgconn)
        if result.status != _COMMAND_OK:
            error = _result_error(statement, result, conn)
            _until_sync(pgconn)
            raise error
        _next_result(pgconn)  # the end of the prepare's results
        prepared.add(name)
    result = _next_result(pgconn)
    if result.status != _TUPLES_OK:
        gone = result.error_field(pq.DiagnosticField.SQLSTATE) == _NO_SUCH_STATEMENT
        error = None if gone else _result_error(statement, result, conn)
        _until_sync(pgconn)
        if gone:
            prepared.discard(name)
            return None
        raise error
    _next_result(pgconn)  # the end of the call's results; the Sync's is PendingCommit's
    transformer.set_pgresult(result)
    return [transformer.load_row(i, make_row) for i in range(result.ntuples)]


# --- In a request: the answer waits for the commit --------------------------------------------


def defer(pending: PendingCommit) -> None:
    """In a request: the answer is held until `pending` is durable (AnswerWhenDurable);
    elsewhere: wait now."""
    if has_request_context():
        request.environ.setdefault(_PENDING, []).append(pending)
    else:
        pending.wait()


def wait_deferred() -> bool:
    """Wait now for the current request's deferred commits (app.core.jobs: before their
    jobs go). False when one failed: the answer is then that failure's (AnswerWhenDurable)."""
    return _wait_all(request.environ) if has_request_context() else True


def _wait_all(environ: dict) -> bool:
    """Wait for each deferred commit once (all of them, so each connection goes back); the
    first failure is kept for the answer."""
    for pending in environ.pop(_PENDING, None) or ():
        try:
            pending.wait()
        except Exception as exc:
            environ.setdefault(_FAILED, exc)
    return _FAILED not in environ


class AnswerWhenDurable:
    """WSGI layer around the app: the answer (status, headers, body) leaves only when the
    request's deferred commits are durable. When one failed, the answer is the app's answer to
    that error instead, as its error handlers give it (app.core.errors)."""

    def __init__(self, app: Flask, wsgi_app) -> None:
        self.app, self.wsgi_app = app, wsgi_app

    def __call__(self, environ, start_response):
        held = []

        def hold(status, headers, exc_info=None):
            held[:] = (status, headers, exc_info)
            return _no_write

        try:
            body = self.wsgi_app(environ, hold)
        except BaseException:  # (a test's propagated error) the connections still go back
            _wait_all(environ)
            raise
        if (_PENDING in environ or _FAILED in environ) and not _wait_all(environ):
            if hasattr(body, "close"):
                body.close()
            return self._failed(environ, environ.pop(_FAILED))(environ, start_response)
        start_response(*held)
        return body

    def _failed(self, environ, exc: Exception):
        """The app's answer to `exc`, in a request context of its own on the same request."""
        app = self.app
        with app.request_context(environ):
            g.request_id = environ.get(REQUEST_ID)
            return app.finalize_request(app.handle_user_exception(exc), from_error_handler=True)


def _no_write(_data: bytes) -> None:
    raise RuntimeError("the app writes its answer as a body, not through write()")


def init_app(app: Flask) -> None:
    app.wsgi_app = AnswerWhenDurable(app, app.wsgi_app)  # type: ignore[method-assign]
