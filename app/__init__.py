"""Application factory: the composition root. Every module of app/ imports this package first,
so it imports nothing of app/ but the settings at load; each function here imports what it
wires up when it is called ("# lazy: composition root")."""

import logging
import os

from flask import Flask, g
from sqlalchemy import event
from sqlalchemy.engine import Engine

from app.config import INSTANCE_DIR, ROOT, Config


def create_app(overrides: dict | None = None) -> Flask:
    """Create the application: settings, extensions, blueprints, CLI commands."""
    app = Flask(
        __name__,
        static_folder=str(ROOT / "static"),
        template_folder=str(ROOT / "templates"),
        instance_path=str(INSTANCE_DIR),
    )
    app.config.from_mapping(Config.load())
    app.config.from_mapping(overrides or {})
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)

    # lazy: every module of app/ imports this package first (see the docstring)
    from app.admin.cli import register_cli as register_admin_cli
    from app.auth import impersonation, tokens
    from app.core import (
        errors,
        i18n,
        islands,
        jobs,
        liveness,  # noqa: F401 - the pool's checkout check, registered on import
        pages,
        security,
        times,
    )
    from app.demo import register_cli as register_demo_cli
    from app.extensions import babel, csrf, db, login_manager, migrate
    from app.providers.stub import register_cli as register_provider_cli
    from app.schedule import runner as schedule_runner
    from app.shell import layout

    db.init_app(app)
    migrate.init_app(app, db, directory=str(ROOT / "migrations"))
    csrf.init_app(app)
    babel.init_app(
        app,
        locale_selector=i18n.select_babel_locale,
        timezone_selector=i18n.select_babel_timezone,
    )
    login_manager.init_app(app)
    login_manager.session_protection = "basic"
    login_manager.login_view = "auth.login"

    _import_models()
    errors.init_app(app)  # first: every later hook's failure gets a request id
    pages.init_app(app)
    impersonation.init_app(app)
    tokens.init_app(app)  # ahead of the CSRF check: a token call without a cookie has none
    security.init_app(app)
    jobs.init_app(app)
    schedule_runner.init_app(app)
    islands.init_app(app)
    i18n.init_app(app)
    times.init_app(app)
    _register_blueprints(app)
    _register_template_helpers(app)
    layout.init_app(app)
    _register_response_headers(app)

    register_demo_cli(app)
    register_admin_cli(app)
    register_provider_cli(app)
    return app


def _import_models() -> None:
    # lazy: composition root
    import app.admin.models  # noqa: F401
    import app.auth.models  # noqa: F401
    import app.auth.tokens  # noqa: F401
    import app.automation.engine  # noqa: F401 - its models, and its listener of the events
    import app.automation.rules  # noqa: F401 - its listener of vehicle changes
    import app.bookings.models  # noqa: F401
    import app.core.audit  # noqa: F401
    import app.core.models  # noqa: F401
    import app.core.notifications  # noqa: F401
    import app.dashboard.models  # noqa: F401
    import app.events.models  # noqa: F401
    import app.mail.models  # noqa: F401
    import app.market.models  # noqa: F401
    import app.messages.models  # noqa: F401
    import app.preparation.models  # noqa: F401
    import app.preparation.recon_models  # noqa: F401
    import app.preparation.totals  # noqa: F401 - its models, and the hooks that keep them
    import app.purchase.models  # noqa: F401
    import app.quicktest.models  # noqa: F401
    import app.ranking.models  # noqa: F401


def app_version(app: Flask) -> str:
    """The version the islands compare (X-Cc-Version): release and bundle digest."""
    # lazy: composition root
    from app.core.islands import bundle_version

    return f"{app.config['APP_VERSION']}+{bundle_version(app)}"


def _register_blueprints(app: Flask) -> None:
    # lazy: composition root
    from app.account import bp as account_bp
    from app.admin.routes import bp as admin_bp
    from app.auth import api_bp as auth_api_bp
    from app.auth import bp as auth_bp
    from app.bookings import bp as bookings_bp
    from app.dashboard import api_bp as dashboard_api_bp
    from app.dashboard import bp as dashboard_bp
    from app.events import bp as events_bp
    from app.mail import bp as mail_bp
    from app.market import api_bp as market_api_bp
    from app.market import bp as market_bp
    from app.messages import api_bp as messages_api_bp
    from app.preparation import api_bp as preparation_api_bp
    from app.preparation import bp as preparation_bp
    from app.purchase import api_bp as purchase_api_bp
    from app.purchase import bp as purchase_bp
    from app.quicktest import api_bp as quicktest_api_bp
    from app.quicktest import bp as quicktest_bp
    from app.ranking import api_bp as ranking_api_bp
    from app.ranking import bp as ranking_bp
    from app.shell import bp as shell_bp
    from app.shell.api import bp as shell_api_bp
    from app.shell.planned import bp as planned_bp

    # Feature blueprints come before `planned`, whose pages stand in for screens not built yet
    # (its admin catch-all serves every admin screen that has no route of its own).
    for blueprint in (
        account_bp, events_bp, auth_bp, auth_api_bp, mail_bp, preparation_bp, preparation_api_bp,
        market_bp, market_api_bp, messages_api_bp, ranking_bp, ranking_api_bp,
        quicktest_bp, quicktest_api_bp, purchase_bp, purchase_api_bp, admin_bp,
        dashboard_bp, dashboard_api_bp, bookings_bp,
        planned_bp, shell_bp, shell_api_bp,
    ):  # fmt: skip
        app.register_blueprint(blueprint)


def _register_template_helpers(app: Flask) -> None:
    # lazy: composition root
    from flask_wtf.csrf import generate_csrf

    from app.core.colours import colour_name
    from app.core.i18n import LOCALES, current_locale
    from app.core.localized import for_reader, option_labels
    from app.core.modules import MODULE_NAMES

    # Entered content in the reader's language: entered(button.title_texts, button.title).
    app.add_template_global(for_reader, "entered")
    app.add_template_filter(colour_name, "colour")  # a vehicle's colour: item.color | colour
    # A choice's options: {stored value: label}, entered_options(info.choices, info.choices_texts).
    app.add_template_global(option_labels, "entered_options")

    @app.context_processor
    def _globals():
        return {
            "locale": current_locale(),
            "locales": LOCALES,
            "app_title": app.config["APP_TITLE"],
            "csrf_token_value": generate_csrf,
            "request_id": g.get("request_id"),
            "module_names": MODULE_NAMES,
            "app_version": app_version(app),
        }


def _register_response_headers(app: Flask) -> None:
    # lazy: composition root
    from app.core.i18n import current_locale

    node = app.config.get("NODE_NAME")

    @app.after_request
    def _cc_headers(response):
        if node:  # scale-out: which node answered (README, "Scale-out")
            response.headers["X-Cc-Node"] = node
        response.headers["X-Cc-Language"] = current_locale()
        response.headers["X-Cc-Version"] = app_version(app)
        response.vary.add("Accept-Language")
        response.vary.add("Cookie")
        return response


@event.listens_for(Engine, "connect")
def _sqlite_pragmas(dbapi_connection, connection_record) -> None:
    """SQLite: enforce foreign keys, write-ahead log, and wait for locks instead of failing.

    pysqlite also starts transactions itself, late (at the first write), which turns an early
    SAVEPOINT into a real commit; SQLAlchemy's documented remedy: let it start none, and emit
    BEGIN when SQLAlchemy begins (see _sqlite_begin)."""
    if type(dbapi_connection).__module__.startswith("sqlite3"):
        # lazy: composition root
        from app.core.locking import BUSY_TIMEOUT_MS

        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        # SQLITE_SYNCHRONOUS=NORMAL: a commit no longer waits for the disk (the WAL is synced
        # at checkpoints): still safe from corruption and from a crash of the app, not from a
        # power cut. Unset: SQLite's FULL (bench/MARKET_BIDS.md measures both).
        if (sync := os.environ.get("SQLITE_SYNCHRONOUS", "").upper()) in ("NORMAL", "FULL"):
            cursor.execute(f"PRAGMA synchronous={sync}")
        cursor.close()


@event.listens_for(Engine, "do_connect")
def _psycopg_connection(dialect, connection_record, cargs, cparams):
    """PostgreSQL: connect with app.core.pgconnection.Connection, which keeps its prepared
    statements across a ROLLBACK that follows no error."""
    if dialect.name == "postgresql" and dialect.driver == "psycopg":
        # lazy: composition root
        from app.core.pgconnection import Connection

        return Connection.connect(*cargs, **cparams)
    return None


@event.listens_for(Engine, "begin")
def _sqlite_begin(connection) -> None:
    """SQLite: BEGIN IMMEDIATE when `locking.immediate()` asked for it; otherwise no BEGIN yet:
    the transaction reads in autocommit and takes the write lock at its first write
    (_sqlite_first_write), so it is never refused the upgrade from reading to writing."""
    if connection.dialect.name == "sqlite":
        # lazy: composition root
        from app.core.locking import begin_immediate, begin_statement

        write_locked = begin_statement() == "BEGIN IMMEDIATE"
        if write_locked:
            begin_immediate(connection.connection.dbapi_connection)
        connection.info["write_locked"] = write_locked


@event.listens_for(Engine, "before_cursor_execute")
def _sqlite_first_write(connection, cursor, statement, parameters, context, executemany) -> None:
    if connection.dialect.name == "sqlite" and not connection.info.get("write_locked", True):
        # lazy: composition root
        from app.core.locking import lock_before_write

        lock_before_write(connection, cursor.connection, statement)
