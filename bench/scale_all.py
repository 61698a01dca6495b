"""Issue 34: every figure of bench/SCALE.md from one run, one step after another.

The steps, each the bench script that writes its own block of SCALE.md (run one alone with the
command this prints for it):

- data: for each size a database `{prefix}_10k`, `_100k`, `_1m` made empty and filled by
  bench/scale_data.py (timed; skipped with --reuse);
- upgrade: each size's database migrated to the head (`flask db upgrade`), the 1M one through
  bench/scale_migrations.py --pending, which times each pending migration and probes its locks;
- growth: bench/scale.py, every page at every size, served by gunicorn to one client;
- recon: bench/recon_statistics.py, the statistics page served, after a cost line and cold;
- jobs: bench/scale_jobs.py, the nightly jobs and a 10,000-row import at every size;
- plans: tests/scale/test_plans.py, EXPLAIN of the main pages' statements on 100k vehicles;
- migrations: bench/scale_migrations.py, the last --migrations migrations down and up on 1M;
- locust: bench/scale_load.py, 300 staff and 50 bidders against the production set-up on the
  biggest size for --minutes.

Each step's command, its time and the machine's load average before and after it go into the
block between <!-- scale run --> markers, with the commit the run measured. PostgreSQL on
--server; Redis on 127.0.0.1:6379 (database 12 for the load, 9 for the plan test's jobs).

    .venv/bin/python bench/scale_all.py --prefix sc --sizes 10000,100000,1000000
"""

import argparse
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime

from common import ROOT, write_block
from scale import database_name

PY = str(ROOT / ".venv" / "bin" / "python")
STEPS = ("data", "upgrade", "growth", "recon", "jobs", "plans", "migrations", "locust")


def load_average() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def commands(args) -> list[tuple[str, list[str], dict]]:
    """(step, command, extra environment) in the order they run."""
    sizes = [int(s) for s in args.sizes.split(",")]
    big, server = sizes[-1], args.server
    url = f"{server}/{{}}"
    found: list[tuple[str, list[str], dict]] = []
    for size in sizes:
        name = database_name(args.prefix, size)
        found += [
            ("data", ["runuser", "-u", "postgres", "--", "dropdb", "--if-exists", "--force", name], {}),
            ("data", ["runuser", "-u", "postgres", "--", "createdb", "-O", "dealercare", name], {}),
            ("data", [PY, "bench/scale_data.py", "--vehicles", str(size), "--today", args.today,
                      "--url", url.format(name)], {}),
        ]  # fmt: skip
    for size in sizes[:-1]:
        name = url.format(database_name(args.prefix, size))
        found.append(
            ("upgrade", [str(ROOT / ".venv/bin/flask"), "--app", "wsgi", "db", "upgrade"],
             {"DATABASE_URL": name.replace("postgresql://", "postgresql+psycopg://")})
        )  # fmt: skip
    found.append(
        ("upgrade", [PY, "bench/scale_migrations.py", "--database",
                     database_name(args.prefix, big), "--pending", "--steps", "40"], {})
    )  # fmt: skip
    found += [
        ("growth", [PY, "bench/scale.py", f"--sizes={args.sizes}", f"--prefix={args.prefix}",
                    "--reuse", f"--seconds={args.seconds}"], {}),
        ("recon", [PY, "bench/recon_statistics.py", f"--sizes={args.sizes}",
                   f"--prefix={args.prefix}", "--reuse", "--seconds=15", "--cold=20", "--write"], {}),
        ("jobs", [PY, "bench/scale_jobs.py", "--sizes", args.sizes, "--prefix", args.prefix,
                  "--rows", "10000"], {}),
        ("plans", ["runuser", "-u", "postgres", "--", "dropdb", "--if-exists", "--force",
                   f"{args.prefix}_plans"], {}),
        ("plans", ["runuser", "-u", "postgres", "--", "createdb", "-O", "dealercare",
                   f"{args.prefix}_plans"], {}),
        ("plans", [str(ROOT / ".venv/bin/pytest"), "-q", "-p", "no:cacheprovider",
                   "tests/scale/test_plans.py"],
         {"TEST_DATABASE_URL": url.format(f"{args.prefix}_plans"),
          "REDIS_URL": "redis://127.0.0.1:6379/9"}),
        ("migrations", [PY, "bench/scale_migrations.py", "--database",
                        database_name(args.prefix, big), "--steps", str(args.migrations),
                        "--write"], {}),
        ("locust", [PY, "bench/scale_load.py", "--database", database_name(args.prefix, big),
                    "--vehicles", str(big), "--minutes", str(args.minutes)], {}),
    ]  # fmt: skip
    wanted = set(args.steps.split(","))
    if args.reuse:
        wanted.discard("data")
    return [c for c in found if c[0] in wanted]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--server", default="postgresql://dealercare:dealercare@127.0.0.1:5432")
    parser.add_argument("--prefix", default="sc")
    parser.add_argument("--today", default=datetime.now(UTC).date().isoformat())
    parser.add_argument("--reuse", action="store_true", help="the sizes' databases are filled")
    parser.add_argument("--seconds", type=float, default=3.0, help="per page (growth)")
    parser.add_argument("--migrations", type=int, default=11, help="how many, newest first")
    parser.add_argument("--minutes", type=float, default=20, help="the Locust run")
    parser.add_argument("--steps", default=",".join(STEPS))
    parser.add_argument(
        "--resume", action="store_true",
        help="keep the steps the block already lists (a run continued with --reuse)",
    )  # fmt: skip
    args = parser.parse_args()
    commit = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    marker = "<!-- scale run -->"
    rows, started_run = (earlier(marker) if args.resume else []), datetime.now(UTC)
    for step, command, extra in commands(args):
        shown = " ".join(
            [*(f"{k}={v}" for k, v in extra.items()), *(c.replace(f"{ROOT}/", "") for c in command)]
        )  # fmt: skip
        print(f"\n== {step}: {shown}", flush=True)
        before, started = load_average(), time.perf_counter()
        code = subprocess.run(command, cwd=ROOT, env={**os.environ, **extra}).returncode  # noqa: S603
        took = time.perf_counter() - started
        rows.append(
            f"| {step} | `{commit}` | `{shown}` | {took:,.0f} | {before} → {load_average()} "
            f"| {code} |"
        )
        print(f"== {step}: exit {code} after {took:.0f} s", flush=True)
        write(args, commit, started_run, rows, marker)


def earlier(marker: str) -> list[str]:
    """The step rows of the run's block in SCALE.md (each names its commit)."""
    block = (ROOT / "bench" / "SCALE.md").read_text().partition(marker)[2].partition(marker)[0]
    return [
        line
        for line in block.splitlines()
        if line.startswith("| ") and not line.startswith("| step |")
    ]


def write(args, commit: str, started_run: datetime, rows: list[str], marker: str) -> None:
    """The run's block, rewritten after every step (a run stopped half-way shows how far it got)."""
    block = (
        f"{marker}\nOne run of `bench/scale_all.py`, each step on the commit its row names "
        f"(this part: {' '.join(sys.argv[1:])}, {started_run:%Y-%m-%d %H:%M} to "
        f"{datetime.now(UTC):%H:%M} UTC) on {platform.node()} ({platform.machine()}, "
        f"{os.cpu_count()} cores), PostgreSQL and Redis on the same machine, nothing else "
        "running. Each step wrote its own block below.\n\n"
        "| step | commit | command | s | load average (1 min) before → after | exit |\n"
        "|---|---|---|---|---|---|\n" + "\n".join(rows) + f"\n{marker}"
    )
    write_block(ROOT / "bench" / "SCALE.md", marker, block)


if __name__ == "__main__":
    main()
