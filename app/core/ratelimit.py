"""A fixed-window limit per client address for public calls and pages.

The address is the client's as the trusted reverse proxies report it (TRUSTED_PROXIES, README
"Deployment"). With REDIS_URL the count is shared by every worker (INCR + EXPIRE); without it
the limit is per process: each gunicorn worker counts for itself, so an address may make up to
the limit times the number of workers (stated in the README). While Redis cannot be reached,
the count falls back to the process's own, so public pages still answer (tests/faults)."""

import logging
import threading
import time

from flask import current_app, request
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


def _counter(seconds: int, who: str | None = None) -> str:
    """The Redis key counting this request's address (or `who`) in the current window (a new
    window starts at 0)."""
    who = who or f"public:{request.remote_addr or 'unknown'}"
    return f"rl:{who}:{int(time.time()) // seconds}"


def _expire(name: str, seconds: int) -> None:
    """The window's first hit sets its counter's expiry: one round trip after that."""
    redis_connection().expire(name, seconds + 1)


def _hit(seconds: int, who: str | None = None) -> int:
    """This request's count in its window: in Redis, else in this process."""
    name = _counter(seconds, who)
    redis = redis_connection()
    if redis is not None:
        try:
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
