"""Migrations: up, down to nothing and up again on an empty database; no drift from the models.

Runs on a fresh SQLite file, and on PostgreSQL (TEST_DATABASE_URL's database with a
`_migrations` suffix) when TEST_DATABASE_URL is set.
"""

import pytest
from alembic.script import ScriptDirectory
from flask import current_app
from sqlalchemy import func, inspect, select
from sqlalchemy.orm import Session

from app import create_app
from app.auth.models import User
from app.core.models import Country, Division, Instance, Region
from app.extensions import db
from tests.conftest import TEST_DATABASE_URL, RequestClient, postgresql_url, reset_database

BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(params=BACKENDS)
def empty_app(request, tmp_path):
    if request.param == "postgresql":
        if not TEST_DATABASE_URL:
            pytest.skip("TEST_DATABASE_URL is not set: PostgreSQL migrations run in CI")
        url = postgresql_url("migrations")
        reset_database(url)
    else:
        url = f"sqlite:///{tmp_path / 'empty.db'}"
    app = create_app({"TESTING": True, "SECRET_KEY": "test", "SQLALCHEMY_DATABASE_URI": url})
    app.test_client_class = RequestClient
    yield app
    with app.app_context():
        for engine in db.engines.values():
            engine.dispose()


def run_flask_db(app, *args: str):
    """`flask db ...` against `app` (its own context: the test's app context is another app's)."""
    with app.app_context():
        return app.test_cli_runner().invoke(args=["db", *args])


def flask_db(app, *args: str) -> str:
    result = run_flask_db(app, *args)
    assert result.exit_code == 0, f"flask db {' '.join(args)} failed:\n{result.output}"
    return result.output


def tables(app) -> set[str]:
    with app.app_context():
        names = set(inspect(db.engine).get_table_names())
        db.engine.dispose()
    return names - {"alembic_version"}


def model_tables() -> set[str]:
    return set(db.metadata.tables)


def test_upgrade_downgrade_and_upgrade_again_on_an_empty_database(empty_app):
    assert tables(empty_app) == set()
    flask_db(empty_app, "upgrade")
    assert tables(empty_app) == model_tables()
    flask_db(empty_app, "downgrade", "base")
    assert tables(empty_app) == set()
    flask_db(empty_app, "upgrade")
    assert tables(empty_app) == model_tables()


def test_the_models_and_the_migrations_do_not_drift_apart(empty_app):
    flask_db(empty_app, "upgrade")
    flask_db(empty_app, "check")


def test_the_drift_check_notices_what_the_database_lacks(empty_app):
    """The check above can fail: one migration short of head, the models are ahead."""
    flask_db(empty_app, "upgrade")
    flask_db(empty_app, "downgrade", "--", "-1")
    assert run_flask_db(empty_app, "check").exit_code != 0


KEPT_TABLES = ("instance", "country", "region", "division", "user", "user_instance")


def populate(app) -> dict[str, int]:
    """Rows in the tables of the first migration, written through the app's own engine."""
    with app.app_context(), Session(db.engine) as session:
        instance = Instance(company_name="Kept AB")
        session.add(instance)
        session.flush()
        owned = {"instance_id": instance.id}
        country = Country(code="SE", name="Sverige", currency="SEK", locale="sv-SE", **owned)
        region = Region(name="Kept", slug="kept", country=country, **owned)
        division = Division(name="Kept Solna", slug="kept-solna", region=region, **owned)
        user = User(email="kept@example.test", instances=[instance], home_instance_id=instance.id)
        session.add_all([country, region, division, user])
        session.commit()
    return row_counts(app)


def row_counts(app) -> dict[str, int]:
    with app.app_context(), db.engine.connect() as conn:
        count = select(func.count()).select_from
        return {t: conn.execute(count(db.metadata.tables[t])).scalar() for t in KEPT_TABLES}


def revisions(app) -> list[str]:
    """Every revision id, newest first."""
    with app.app_context():
        config = current_app.extensions["migrate"].migrate.get_config()
        return [r.revision for r in ScriptDirectory.from_config(config).walk_revisions()]


def test_every_step_down_and_up_keeps_the_data(empty_app):
    """A database in use survives each migration's downgrade, its upgrade right after it, and
    the upgrades of the newer ones after that: from the newest migration down, each one is
    undone, done again and undone again (its downgrade meeting the data as the newer ones' left
    it), then the whole chain is upgraded (each upgrade after the one below it was redone).
    Every step of the way down is checked: 4 steps a migration, not the n² of going back up
    to head after each one."""
    flask_db(empty_app, "upgrade")
    kept = populate(empty_app)
    assert all(kept.values())
    for revision in revisions(empty_app)[:-1]:  # the first one creates these very tables
        flask_db(empty_app, "downgrade", f"{revision}-1")
        assert row_counts(empty_app) == kept, f"downgrading {revision} lost rows"
        flask_db(empty_app, "upgrade", revision)
        assert row_counts(empty_app) == kept, f"upgrading {revision} again lost rows"
        flask_db(empty_app, "downgrade", f"{revision}-1")
        assert row_counts(empty_app) == kept, f"downgrading {revision} a second time lost rows"
    flask_db(empty_app, "upgrade", "head")
    assert row_counts(empty_app) == kept, "upgrading every migration again lost rows"
    flask_db(empty_app, "check")
