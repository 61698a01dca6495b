"""A fixed-window limit per client address for public calls and pages.

The address is the client's as the trusted reverse proxies report it (TRUSTED_PROXIES, README
"Deployment"). With REDIS_URL the count is shared by every worker (INCR + EXPIRE); without it
the limit is per process: each gunicorn worker counts for itself, so an address may make up to
the limit times the number of workers (stated in the README). While Redis cannot be reached,
the count falls back to the process's own, so public pages still answer (tests/faults).

The busiest public calls (a bid, the advert state the bid page polls) are named with
`count_early`: their INCR is sent to Redis as their request starts, and its answer read when
the view checks the limit, so Redis answers while the request's CSRF, session and locale work
runs instead of the worker waiting for it. What is counted and refused is the same."""

import contextlib
import logging
import threading
import time
from dataclasses import dataclass

from flask import Flask, current_app, g, request
from flask_babel import gettext as _
from redis.exceptions import RedisError
from werkzeug.exceptions import TooManyRequests

from app.core.jobs import redis_connection

log = logging.getLogger(__name__)
_lock = threading.Lock()
_local: dict[str, int] = {}  # without Redis: this process's count per counter name


def _rule(setting: str = "PUBLIC_RATE_LIMIT") -> tuple[int, int]:
    """A limit setting ("120/60": 120 requests per 60 seconds) as (count, seconds)."""
    count, _sep, seconds = str(current_app.config[setting]).partition("/")
    return int(count), int(seconds or 60)


_EARLY: set[str] = set()  # endpoints whose count is sent as their request starts


def count_early(*endpoints: str) -> None:
    """Send these endpoints' count to Redis as their request starts (their views call
    check_public_rate first thing, whatever the request)."""
    _EARLY.update(endpoints)


def _counter(seconds: int, who: str | None = None) -> str:
    """The Redis key counting this request's address (or `who`) in the current window (a new
    window starts at 0)."""
    who = who or f"public:{request.remote_addr or 'unknown'}"
    return f"rl:{who}:{int(time.time()) // seconds}"


@dataclass(frozen=True)
class _Sent:
    """An INCR _send_early sent, its answer still on `connection`."""

    pool: object
    connection: object
    name: str
    seconds: int


def _send_early() -> None:
    """before_request, first of all: INCR sent, its answer left on the connection for _hit."""
    if request.endpoint not in _EARLY or request.method == "OPTIONS":
        return  # (OPTIONS is answered without the view)
    if (redis := redis_connection()) is None:
        return
    seconds = _rule()[1]
    pool = redis.connection_pool
    try:
        connection = pool.get_connection()
    except RedisError:
        return  # _hit counts the usual way (and logs Redis's state)
    name = _counter(seconds)
    try:
        connection.send_command("INCR", name)
    except RedisError:
        connection.disconnect()
        pool.release(connection)
        return
    g.rate_sent = _Sent(pool, connection, name, seconds)


def _answer(sent: _Sent) -> int:
    """The count Redis answered to an INCR _send_early sent; the connection goes back."""
    try:
        count = int(sent.connection.read_response())
    except BaseException:
        sent.connection.disconnect()
        raise
    finally:
        sent.pool.release(sent.connection)
    if count == 1:
        _expire(sent.name, sent.seconds)
    return count


def _expire(name: str, seconds: int) -> None:
    """The window's first hit sets its counter's expiry: one round trip after that."""
    redis_connection().expire(name, seconds + 1)


def _drop_unread(_exc) -> None:
    """teardown: a request that ended before its view read the count (a CSRF refusal, say)
    still leaves the connection clean for the next."""
    if (sent := g.pop("rate_sent", None)) is not None:
        with contextlib.suppress(RedisError):
            _answer(sent)


def init_app(app: Flask) -> None:
    app.before_request_funcs.setdefault(None, []).insert(0, _send_early)
    app.teardown_request(_drop_unread)


def _hit(seconds: int, who: str | None = None) -> int:
    """This request's count in its window: in Redis, else in this process."""
    name = _counter(seconds, who)
    redis = redis_connection()
    if redis is not None:
        try:
            sent = g.pop("rate_sent", None)
            if sent is not None and sent.name == name:
                return _answer(sent)
            if sent is not None:  # sent in the window before (the minute turned): not this one
                _answer(sent)
            count = int(redis.incr(name))
            if count == 1:
                _expire(name, seconds)
            return count
        except RedisError as exc:
            log.warning("Redis unreachable (%s): the rate limit counts per process", exc)
    with _lock:
        if len(_local) > 10_000:  # past windows' counters go with the rest
            _local.clear()
        count = _local[name] = _local.get(name, 0) + 1
        return count


def check_public_rate() -> None:
    """Count this request against its address; over the limit, answer 429 with Retry-After
    (JSON for calls, the error page for pages: app/core/errors.py)."""
    check_rate("PUBLIC_RATE_LIMIT")


def check_rate(setting: str, who: str | None = None) -> None:
    """Count this request against `who` (default: its address) under the limit `setting`
    names; over it, answer 429 with Retry-After."""
    limit, seconds = _rule(setting)
    if _hit(seconds, who) > limit:
        retry = seconds - int(time.time()) % seconds
        text = _("Too many requests. Please wait %(seconds)s seconds and try again.", seconds=retry)
        exc = TooManyRequests()
        exc.retry_after, exc.user_message = retry, text
        raise exc
