"""Issue 33: the preparation statistics page, with its reconditioning cost sections, over a
dealer group's vehicles with a year of cost lines (bench/scale_data.py), on PostgreSQL.

For each size (vehicles) a database of its own is filled by bench/scale_data.py (or reused with
--reuse), and the page is measured three ways:

- served: gunicorn (2 sync workers) and one signed-in seller requesting the page one request
  after another for --seconds, p50 and p95, as a user sees it (the page's preparation figures
  are kept until the vehicles change);
- cold: in process (the test client), the statistics cache emptied before each of --cold
  requests, so that every figure is computed each time: p50 and p95;
- after a cost line: in process, a cost line entered through the app's session (an actual of
  0 on the newest line's task, committed: what the totals cost the write is in "entering a
  line") before each of --cold requests, which is what a dealer group's users get while cost
  lines are entered all day; the lines are deleted (through the session) afterwards;
- statements per request (the second request, as bench/scale.py counts them).

With --baseline DIR (another checkout, e.g. /work/main) each measurement is taken for that
code and then for this one, side by side, so that load from elsewhere on the shared machine
hits both; with --jit also for this code with PostgreSQL's JIT off (PGOPTIONS="-c jit=off").
The in-process measurements run in a child process per code (`--child`), importing that
checkout's `app`.

Goal (issue 33): p95 under 300 ms at 100,000 vehicles; statements the same at every size.

    .venv/bin/python bench/recon_statistics.py --sizes 10000,100000 --prefix h_recon \
        --baseline /work/main --jit
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from common import ROOT, gunicorn, load, sign_in, summary, write_block
from scale import database_name, make_database, seller_client
from scale_data import sqlalchemy_url

PAGE = "/begcare/statistics"
MARKER = "<!-- recon statistics table -->"
JIT_OFF = {"PGOPTIONS": "-c jit=off"}


def statements_and_cold(url: str, requests: int) -> tuple[int, dict]:
    """Statements of the page's second request, and p50/p95 of `requests` cold requests."""
    from sqlalchemy import event

    from app.extensions import db
    from app.preparation.statistics import FIGURES

    app, client, engine = seller_client(url)
    assert client.get(PAGE).status_code == 200
    sent = [0]

    def count(*_args):
        sent[0] += 1

    event.listen(engine, "before_cursor_execute", count)
    client.get(PAGE)
    event.remove(engine, "before_cursor_execute", count)
    latencies = []
    for _n in range(requests):
        FIGURES.clear()
        start = time.perf_counter()
        assert client.get(PAGE).status_code == 200
        latencies.append(time.perf_counter() - start)
    latencies.sort()
    with app.app_context():
        db.engine.dispose()
    return sent[0], summary(latencies, 0)


def after_cost_line(url: str, requests: int) -> tuple[dict, dict]:
    """p50/p95 of `requests` requests each after a cost line was entered, and of entering it
    (add and commit through the app's session: the totals' work is the write's)."""
    from sqlalchemy import delete, select

    from app.extensions import db
    from app.preparation.recon_models import ReconLine

    app, client, _engine = seller_client(url)
    assert client.get(PAGE).status_code == 200
    latencies, writes, entered = [], [], []
    with app.app_context():
        newest = db.session.scalars(
            select(ReconLine)
            .where(ReconLine.phase == "actual")
            .order_by(ReconLine.id.desc())
            .limit(1)
            .execution_options(all_instances=True)
        ).one()
        copy = {name: getattr(newest, name) for name in
                ("instance_id", "item_id", "task_id", "phase", "kind", "created_by_id")}  # fmt: skip
    try:
        for _n in range(requests):
            with app.app_context():
                start = time.perf_counter()
                line = ReconLine(**copy, description="bench", amount=0)
                db.session.add(line)
                db.session.commit()
                writes.append(time.perf_counter() - start)
                entered.append(line.id)
            start = time.perf_counter()
            assert client.get(PAGE).status_code == 200
            latencies.append(time.perf_counter() - start)
    finally:
        with app.app_context():
            db.session.execute(delete(ReconLine).where(ReconLine.id.in_(entered)))
            db.session.commit()
            db.engine.dispose()
    return summary(sorted(latencies), 0), summary(sorted(writes), 0)


def in_process(url: str, requests: int) -> dict:
    statements, cold = statements_and_cold(url, requests)
    after_line, entering = after_cost_line(url, requests)
    return {"statements": statements, "cold": cold, "after_line": after_line, "entering": entering}


def child(url: str, requests: int, code: Path, env: dict) -> dict:
    """in_process in a child process that imports the `app` of the checkout `code`."""
    done = subprocess.run(  # noqa: S603
        [sys.executable, __file__, "--child", url, "--cold", str(requests), "--code", str(code)],
        cwd=code, env={**os.environ, **env}, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def served(
    url: str, port: int, seconds: float, code: Path = ROOT, extra: dict | None = None
) -> dict:
    env = {
        "DATABASE_URL": sqlalchemy_url(url),
        "PYTHONPATH": ".",
        "PUBLIC_RATE_LIMIT": "1000000/60",
        **(extra or {}),
    }
    with gunicorn("wsgi:app", port, env, workers=2, root=code):
        cookie = sign_in(port, "seller@demo.test")
        load(port, PAGE, cookie=cookie, clients=1, seconds=1.0)  # warm up
        result = load(port, PAGE, cookie=cookie, clients=1, seconds=seconds)
    result.update(summary(result.pop("latencies"), result["errors"]))
    return result


def recon_lines(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute("SELECT count(*) FROM recon_line").fetchone()[0]


def table(rows: dict[tuple[int, str], dict]) -> str:
    lines = [
        "| vehicles | code | cost lines | served p50 / p95 ms | after a cost line p50 / p95 ms "
        "| entering a line p50 / p95 ms | cold p50 / p95 ms | statements | machine load (1 min) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (size, code), r in rows.items():
        s, a, e, c = r["served"], r["after_line"], r["entering"], r["cold"]
        lines.append(
            f"| {size:,} | {code} | {r['lines']:,} | {s['median_ms']:.0f} / {s['p95_ms']:.0f} "
            f"({s['requests']} requests) | {a['median_ms']:.0f} / {a['p95_ms']:.0f} "
            f"({a['requests']} requests) | {e['median_ms']:.0f} / {e['p95_ms']:.0f} "
            f"| {c['median_ms']:.0f} / {c['p95_ms']:.0f} "
            f"({c['requests']} requests) | {r['statements']} | {r['load']} |"
        )
    return "\n".join(lines)


def write(rows: dict[int, dict], command: str) -> None:
    """The table between the markers of SCALE.md's section "Reconditioning statistics"."""
    block = (
        f"{MARKER}\nMeasured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.node()} "
        f"({platform.machine()}, load average {os.getloadavg()[0]:.1f} at the end), PostgreSQL, one client.\n\n"
        f"    {command}\n\n{table(rows)}\n{MARKER}"
    )
    write_block(ROOT / "bench" / "SCALE.md", MARKER, block, "Reconditioning statistics")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--server", default="postgresql://dealercare:dealercare@127.0.0.1:5432")
    parser.add_argument("--prefix", default="h_recon")
    parser.add_argument("--reuse", action="store_true", help="the sizes' databases are filled")
    parser.add_argument("--seconds", type=float, default=20.0, help="served requests, per size")
    parser.add_argument(
        "--cold", type=int, default=20, help="cold requests and after a cost line, per size"
    )
    parser.add_argument("--port", type=int, default=5935)
    parser.add_argument("--baseline", help="another checkout measured beside this one")
    parser.add_argument("--jit", action="store_true", help="this code also with JIT off")
    parser.add_argument("--write", action="store_true", help="put the table into SCALE.md")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # a database URL: in process only
    parser.add_argument("--code", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.path.insert(0, args.code)  # this checkout's app, before the bench's ROOT
        print(json.dumps(in_process(args.child, args.cold)))
        return
    codes = [("before", Path(args.baseline), {})] if args.baseline else []
    codes.append(("after" if args.baseline else "this", ROOT, {}))
    if args.jit:
        codes.append(("after, JIT off" if args.baseline else "JIT off", ROOT, JIT_OFF))
    rows = {}
    for size in (int(s) for s in args.sizes.split(",")):
        name = database_name(args.prefix, size)
        url = f"{args.server}/{name}" if args.reuse else make_database(args.server, name, size)
        lines = recon_lines(url)
        loads = {label: [os.getloadavg()[0]] for label, _code, _env in codes}
        found = {label: {"lines": lines} for label, _code, _env in codes}
        for label, code, env in codes:  # side by side: each measurement for every code
            found[label] |= child(url, args.cold, code, env)
        for label, code, env in codes:
            found[label]["served"] = served(url, args.port, args.seconds, code, env)
            loads[label].append(os.getloadavg()[0])
        for label, _code, _env in codes:
            found[label]["load"] = " → ".join(f"{n:.1f}" for n in loads[label])
            rows[(size, label)] = found[label]
            print(table({(size, label): found[label]}).splitlines()[-1], flush=True)
    command = ".venv/bin/python bench/recon_statistics.py " + " ".join(
        f"--{k}={v}"
        for k, v in vars(args).items()
        if k not in ("server", "write", "child", "code") and v
    ).replace("--reuse=True", "--reuse").replace("--jit=True", "--jit")
    print(table(rows))
    if args.write:
        write(rows, command)


if __name__ == "__main__":
    main()
