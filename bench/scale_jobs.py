"""Issue 34: the import of 10,000 rows and the nightly jobs on the scale data (bench/scale_data.py).

For each size's database (filled, as bench/scale.py --reuse reads them): the preview of a CSV
file of --rows new vehicles (read and check every row, as the upload form does), the import job
(app.admin.imports.run_import, as the RQ worker runs it), after the nightly jobs of
app/schedule/table.py that read the vehicles: the ranking refresh, the overdue warnings and the
service-due marks, each run twice (the first run on a fresh load does the night's work, the
second finds it done; their marks and check-up tasks stay). Seconds and statements of each. The imported vehicles, their history rows and the run are
deleted again and the counters recounted, so the database is as the generator left it.

    .venv/bin/python bench/scale_jobs.py --sizes 10000,100000 --prefix h_scale
"""

import argparse
import csv
import io
import os
import time

from common import ROOT, write_block
from scale import database_name
from scale_data import sqlalchemy_url

JOBS = (
    ("ranking refresh", "app.ranking.jobs:refresh_rankings"),
    ("overdue warnings", "app.schedule.jobs:refresh_overdue_warnings"),
    ("service due", "app.schedule.jobs:evaluate_service_due"),
)


def csv_file(rows: int, divisions: list[str]) -> bytes:
    """`rows` new vehicles in Swedish divisions, regnos XAA00B.. and VINs XBENCH.. no vehicle has."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";")
    writer.writerow(["regno", "vin", "brand", "model", "model_year", "mileage", "division",
                     "sales_price"])  # fmt: skip
    for k in range(rows):
        a, d = divmod(k, 100)
        regno = f"X{chr(65 + a // 26 % 26)}{chr(65 + a % 26)}{d:02d}{chr(66 + a // 676)}"
        writer.writerow([regno, f"XBENCH{k:011d}", "Volvo", "V60", 2015 + k % 10,
                         1000 * (k % 200), divisions[k % len(divisions)], 150_000 + k])  # fmt: skip
    return out.getvalue().encode()


class Statements:
    """Counts the statements sent on an engine while open."""

    def __init__(self, engine):
        self.engine, self.count = engine, 0

    def _seen(self, *_args):
        self.count += 1

    def __enter__(self):
        from sqlalchemy import event

        event.listen(self.engine, "before_cursor_execute", self._seen)
        return self

    def __exit__(self, *_exc):
        from sqlalchemy import event

        event.remove(self.engine, "before_cursor_execute", self._seen)


def timed(engine, work) -> dict:
    with Statements(engine) as sent:
        started = time.perf_counter()
        result = work()
        seconds = time.perf_counter() - started
    return {"seconds": seconds, "statements": sent.count, "result": result}


def measure(url: str, rows: int, only: set[str] | None = None) -> dict[str, dict]:
    import importlib

    from sqlalchemy import delete, func, select

    from app import create_app
    from app.admin.imports import check_rows, read_rows, run_import
    from app.admin.models import ImportRun
    from app.auth.models import User
    from app.core.models import Country, Division, Instance, Region
    from app.core.tenancy import activate
    from app.extensions import db
    from app.preparation.models import ItemStateEvent, PreparationItem
    from app.preparation.services import recount

    app = create_app({"SQLALCHEMY_DATABASE_URI": sqlalchemy_url(url)})
    every = {"all_instances": True}
    out = {}
    with app.test_request_context():
        engine = db.engine
        instance = db.session.scalars(select(Instance.id).order_by(Instance.id)).first()
        admin = db.session.scalars(select(User.id).where(User.email == "admin@demo.test")).one()
        divisions = db.session.scalars(
            select(Division.slug)
            .join(Region, Division.region_id == Region.id)
            .join(Country, Region.country_id == Country.id)
            .where(Division.instance_id == instance, Country.code == "SE")
            .order_by(Division.id)
            .execution_options(**every)
        ).all()
        content = csv_file(rows, divisions)
        for name, target in JOBS:  # before the import: the jobs read the generated vehicles
            if only and name not in only:
                continue
            module, _, func_name = target.partition(":")
            job = getattr(importlib.import_module(module), func_name)
            for run_number in ("first", "again"):
                out[f"{name} ({run_number})"] = timed(engine, job)
                db.session.commit()
                activate(None)
        if only and "import" not in only:
            db.engine.dispose()
            return out
        activate(instance)
        last = db.session.scalar(select(func.max(PreparationItem.id)).execution_options(**every))
        checked = {}

        def preview():
            checked["rows"] = check_rows(read_rows("scale.csv", content), "begcare")
            return f"{len(checked['rows'].new)} new, {checked['rows'].failed} failed"

        out["import: preview"] = timed(engine, preview)
        run = ImportRun(user_id=admin, filename="scale.csv", module="begcare", content=content,
                        language="en-GB", status="queued")  # fmt: skip
        db.session.add(run)
        db.session.commit()
        run_id = run.id
        activate(None)
        out["import: job"] = timed(engine, lambda: run_import(run_id))
        done = db.session.get(ImportRun, run_id)
        out["import: job"]["result"] = f"{done.status}, {done.created} created"
        activate(None)
        # Leave the database as the generator made it.
        db.session.execute(delete(ItemStateEvent).where(ItemStateEvent.item_id > last))
        db.session.execute(delete(PreparationItem).where(PreparationItem.id > last))
        db.session.execute(delete(ImportRun).where(ImportRun.id == run_id))
        db.session.commit()
        recount(instance)
        db.session.commit()
        db.engine.dispose()
    return out


def write(path, sizes: list[int], table: dict[int, dict], command: str) -> None:
    import platform
    from datetime import UTC, datetime

    lines = [
        "| step | " + " | ".join(f"s (statements) at {s:,}" for s in sizes) + " | growth |",
        "|---|" + "---|" * len(sizes) + "---|",
    ]
    for name in table[sizes[0]]:
        cells = [f"{table[s][name]['seconds']:.2f} ({table[s][name]['statements']:,})"
                 for s in sizes]  # fmt: skip
        growth = table[sizes[-1]][name]["seconds"] / max(table[sizes[0]][name]["seconds"], 1e-6)
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {growth:.1f}× |")
    marker = "<!-- jobs table -->"
    block = (
        f"{marker}\nMeasured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.node()} "
        f"({os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end), PostgreSQL, in one process.\n\n"
        f"    {command}\n\n" + "\n".join(lines) + f"\n{marker}"
    )
    write_block(path, marker, block)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--server", default="postgresql://dealercare:dealercare@127.0.0.1:5432")
    parser.add_argument("--prefix", default="h_scale")
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--only", help="comma-separated: job names of JOBS and/or 'import'")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    table = {}
    for size in sizes:
        name = database_name(args.prefix, size)
        print(f"{size} vehicles ({name})", flush=True)
        only = set(args.only.split(",")) if args.only else None
        table[size] = measure(f"{args.server}/{name}", args.rows, only)
        for step, r in table[size].items():
            print(f"  {step:28s} {r['seconds']:8.2f} s {r['statements']:7d} statements  {r['result']}", flush=True)  # fmt: skip
    if not args.no_write:
        command = (f".venv/bin/python bench/scale_jobs.py --sizes {args.sizes} "
                   f"--prefix {args.prefix} --rows {args.rows}")  # fmt: skip
        write(ROOT / "bench" / "SCALE.md", sizes, table, command)


if __name__ == "__main__":
    main()
