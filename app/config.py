"""Configuration read from the environment, with embedded defaults for a laptop."""

import os
import secrets
import tomllib
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTANCE_DIR = ROOT / "instance"
# The release is pyproject.toml's version: X-Cc-Version and the API document's info.version.
RELEASE = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def database_url(raw: str | None) -> str:
    """Normalise a database URL so PostgreSQL always uses the psycopg 3 driver."""
    if not raw:
        INSTANCE_DIR.mkdir(exist_ok=True)
        return f"sqlite:///{INSTANCE_DIR / 'dealercare.db'}"
    for prefix in ("postgres://", "postgresql://"):
        if raw.startswith(prefix):
            return "postgresql+psycopg://" + raw[len(prefix) :]
    return raw


def secret_key() -> str:
    """Return SECRET_KEY, generating a persistent random one under instance/ when unset."""
    if key := os.environ.get("SECRET_KEY"):
        return key
    INSTANCE_DIR.mkdir(exist_ok=True)
    path = INSTANCE_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


class Config:
    APP_TITLE = "DealerCare"
    APP_VERSION = RELEASE
    SECRET_KEY = None  # filled by load()
    SQLALCHEMY_DATABASE_URI = None
    # Pooled connections are checked at checkout by app.core.liveness (a poll of the socket;
    # a ping only when it shows something or after a long idle), not pool_pre_ping's round trip.
    SQLALCHEMY_ENGINE_OPTIONS: dict = {}
    REDIS_URL = None
    # RQ worker: a running job's heartbeat every this many seconds (it lapses after three
    # missed), and the maintenance that queues the jobs of dead workers again (app/core/jobs.py).
    JOB_HEARTBEAT_SECONDS = 10
    JOB_MAINTENANCE_SECONDS = 60
    # The mail jobs, which a worker runs in its own process (jobs.IN_PROCESS): their time limit,
    # and how long past it their one heartbeat lasts (RQ's SimpleWorker: a minute), so that a
    # mail whose worker died is queued again that long after its job started.
    MAIL_JOB_TIMEOUT_SECONDS = 300
    MAIL_JOB_GRACE_SECONDS = 60
    # This process's name in the X-Cc-Node header (scale-out: which node answered); unset: none.
    NODE_NAME = None
    MAIL_URL = None
    MAIL_FROM = "DealerCare <no-reply@dealercare.test>"
    CHAT_WIDGET_URL = None
    # Where the site is reached, for links in mails that scheduled jobs send (no request to
    # take it from); unset: http://127.0.0.1:$PORT.
    BASE_URL = None
    # The service worker caches the hashed bundles; off for `flask run --debug` development.
    SERVICE_WORKER = os.environ.get("FLASK_DEBUG", "") not in ("1", "true")

    BABEL_DEFAULT_LOCALE = "en_GB"
    BABEL_TRANSLATION_DIRECTORIES = str(ROOT / "translations")

    SESSION_COOKIE_NAME = "dc_session"
    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SAMESITE = "Lax"
    SESSION_COOKIE_SECURE = False  # also set per request when served over HTTPS
    PERMANENT_SESSION_LIFETIME = timedelta(hours=12)
    # The server-side session (user_session) ends 12 hours after sign-in; the cookie is not sent
    # again with every answer, only when the session's contents change.
    SESSION_REFRESH_EACH_REQUEST = False
    WTF_CSRF_TIME_LIMIT = None  # the token lives as long as the session
    WTF_CSRF_SSL_STRICT = True
    MAX_CONTENT_LENGTH = 16 * 1024 * 1024

    RESET_TOKEN_HOURS = 1
    # Failed sign-ins, counted per key (app/auth/services.py): after `free` failures each further
    # try waits 2^n seconds (at most `max_wait` where given); at `lock` failures the key is
    # refused for `lock_minutes`. Only one account from one address is ever locked: a lock on an
    # address alone would let one address lock everyone behind it, a lock on an account alone
    # would let anyone lock that account (ASVS 2.2.1: throttling must not deny service).
    LOGIN_THROTTLE = {
        "pair": {"free": 3, "lock": 10, "lock_minutes": 15},  # this account from this address
        "account": {"free": 10, "max_wait": 30, "lock_minutes": 15},  # from every address
        "address": {"free": 20, "max_wait": 60, "lock_minutes": 15},  # for every account
    }
    FORGOT_THROTTLE = {"address": {"free": 10, "lock": 20, "lock_minutes": 15}}
    # Public market calls and pages: at most this many per address and minute ("count/seconds").
    PUBLIC_RATE_LIMIT = "120/60"
    # Calls made with one API token: at most this many per token and window ("count/seconds").
    API_TOKEN_RATE_LIMIT = "600/60"  # noqa: S105 - a limit, not a secret
    # Networks webhooks may call beyond the public internet (comma-separated, e.g.
    # "127.0.0.1/32,10.0.0.0/8"); unset: loopback, private and reserved addresses are refused.
    WEBHOOK_ALLOWED_NETWORKS = ""
    # How many reverse proxies in front of the application set X-Forwarded-For/-Proto/-Host
    # (README, "Deployment"); 0 trusts none of these headers.
    TRUSTED_PROXIES = 0

    @classmethod
    def load(cls) -> dict:
        """Collect the settings with the environment applied."""
        values = {k: getattr(cls, k) for k in dir(cls) if k.isupper()}
        values["SECRET_KEY"] = secret_key()
        values["SQLALCHEMY_DATABASE_URI"] = database_url(os.environ.get("DATABASE_URL"))
        values["REDIS_URL"] = os.environ.get("REDIS_URL") or None
        values["MAIL_URL"] = os.environ.get("MAIL_URL") or None
        values["NODE_NAME"] = os.environ.get("NODE_NAME") or None
        for name in (
            "JOB_HEARTBEAT_SECONDS",
            "JOB_MAINTENANCE_SECONDS",
            "MAIL_JOB_TIMEOUT_SECONDS",
            "MAIL_JOB_GRACE_SECONDS",
        ):
            raw = os.environ.get(name, "").strip()
            values[name] = int(raw) if raw.isascii() and raw.isdigit() else getattr(cls, name)
        values["CHAT_WIDGET_URL"] = os.environ.get("CHAT_WIDGET_URL") or None
        values["BASE_URL"] = (
            os.environ.get("BASE_URL") or f"http://127.0.0.1:{os.environ.get('PORT') or 5000}"
        )
        values["PUBLIC_RATE_LIMIT"] = os.environ.get("PUBLIC_RATE_LIMIT") or cls.PUBLIC_RATE_LIMIT
        values["WEBHOOK_ALLOWED_NETWORKS"] = os.environ.get("WEBHOOK_ALLOWED_NETWORKS", "")
        values["API_TOKEN_RATE_LIMIT"] = (
            os.environ.get("API_TOKEN_RATE_LIMIT") or cls.API_TOKEN_RATE_LIMIT
        )
        proxies = os.environ.get("TRUSTED_PROXIES", "").strip()
        values["TRUSTED_PROXIES"] = int(proxies) if proxies.isascii() and proxies.isdigit() else 0
        return values
