"""Issue 34: the last --steps migrations timed on a scale database, and the longest any of them
made a user's statement wait for a lock.

On a database filled by bench/scale_data.py (at the head): each of the last --steps migrations
is downgraded one at a time, then upgraded one at a time (`flask db downgrade -1` / `upgrade +1`,
each in its own transaction), timed. While each upgrade runs, a prober on its own connection
takes, table after table, the lock a write takes (`LOCK TABLE ... IN ROW EXCLUSIVE MODE`, in a
transaction rolled back at once; it conflicts with every lock a read's does and more) and
records how long it waited: the longest wait per migration is how long that migration kept
users' writes (and any reads it blocked) waiting. Prints a table; with --write it goes into
bench/SCALE.md between <!-- migrations --> markers.

    .venv/bin/python bench/scale_migrations.py --database h_scale_1m --steps 8 --write
"""

import argparse
import contextlib
import os
import platform
import threading
import time
from datetime import UTC, datetime

from common import ROOT, write_block
from scale_data import sqlalchemy_url

SERVER = "postgresql://dealercare:dealercare@127.0.0.1:5432"


class Prober(threading.Thread):
    """Takes a write's lock on every table in turn until stopped; the longest wait and where."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.url, self.stop, self.longest, self.where, self.rounds = url, False, 0.0, "", 0

    def run(self):
        import psycopg

        with psycopg.connect(self.url) as conn:
            conn.execute("SET lock_timeout = '120s'")
            conn.commit()
            while not self.stop:
                tables = [r[0] for r in conn.execute(
                    "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]  # fmt: skip
                conn.commit()
                for table in tables:
                    if self.stop:
                        break
                    started = time.perf_counter()
                    with contextlib.suppress(psycopg.Error):  # dropped or renamed meanwhile
                        conn.execute(f'LOCK TABLE "{table}" IN ROW EXCLUSIVE MODE')
                    conn.rollback()
                    waited = time.perf_counter() - started
                    if waited > self.longest:
                        self.longest, self.where = waited, table
                self.rounds += 1


def revisions(steps: int) -> list[tuple[str, str]]:
    """(revision, first line of its message) of the last `steps` migrations, newest first."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config(str(ROOT / "migrations" / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    found = []
    for rev in ScriptDirectory.from_config(config).walk_revisions():
        found.append((rev.revision, (rev.doc or "").split("\n")[0][:90]))
        if len(found) == steps:
            break
    return found


def upgrade_probed(url: str, directory: str, rev: str) -> tuple[float, float, str]:
    """`flask db upgrade +1` with the prober running: (seconds, longest wait, its table)."""
    from flask_migrate import upgrade

    prober = Prober(url)
    prober.start()
    time.sleep(0.2)
    started = time.perf_counter()
    upgrade(directory=directory, revision="+1")
    took = time.perf_counter() - started
    prober.stop = True
    prober.join()
    print(f"up {rev} {took:.2f} s, longest lock wait {prober.longest:.2f} s "
          f"({prober.where}, {prober.rounds} rounds)", flush=True)  # fmt: skip
    return took, prober.longest, prober.where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", default="h_scale_1m")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--write", action="store_true")
    parser.add_argument(
        "--pending",
        action="store_true",
        help="only apply the migrations the database lacks, one at a time, timed and probed",
    )
    args = parser.parse_args()
    url = f"{SERVER}/{args.database}"
    os.environ["DATABASE_URL"] = sqlalchemy_url(url)
    from flask_migrate import downgrade

    from app import create_app
    from app.extensions import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": sqlalchemy_url(url)})
    chain = revisions(args.steps)
    timings: dict[str, dict] = {rev: {"doc": doc} for rev, doc in chain}
    directory = str(ROOT / "migrations")
    with app.app_context():
        if args.pending:
            from alembic.migration import MigrationContext

            with db.engine.connect() as conn:
                current = MigrationContext.configure(conn).get_current_revision()
            pending = [rev for rev, _doc in chain]
            pending = pending[: pending.index(current)] if current in pending else []
            for rev in reversed(pending):
                timings[rev]["up"], timings[rev]["wait"], timings[rev]["table"] = upgrade_probed(
                    url, directory, rev
                )
            db.engine.dispose()
            return
        for rev, _doc in chain:  # newest first
            started = time.perf_counter()
            downgrade(directory=directory, revision="-1")
            timings[rev]["down"] = time.perf_counter() - started
            print(f"down {rev} {timings[rev]['down']:.2f} s", flush=True)
        for rev, _doc in reversed(chain):
            timings[rev]["up"], timings[rev]["wait"], timings[rev]["table"] = upgrade_probed(
                url, directory, rev
            )
        db.engine.dispose()
    if args.write:
        write(args, chain, timings)


def write(args, chain, timings) -> None:
    lines = ["| migration | upgrade s | longest wait of a write's lock s (table) | downgrade s |",
             "|---|---|---|---|"]  # fmt: skip
    for rev, doc in chain:
        t = timings[rev]
        lines.append(f"| `{rev}` {doc} | {t['up']:.2f} | {t['wait']:.2f} ({t['table']}) | "
                     f"{t['down']:.2f} |")  # fmt: skip
    marker = "<!-- migrations -->"
    block = (
        f"{marker}\nMeasured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.node()} "
        f"({os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end), PostgreSQL, database "
        f"{args.database}.\n\n    .venv/bin/python bench/scale_migrations.py "
        f"--database {args.database} --steps {args.steps} --write\n\n"
        + "\n".join(lines) + f"\n{marker}"
    )  # fmt: skip
    path = ROOT / "bench" / "SCALE.md"
    write_block(path, marker, block)


if __name__ == "__main__":
    main()
