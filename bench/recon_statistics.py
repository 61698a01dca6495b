"""Issue 33: the preparation statistics page, with its reconditioning cost sections, over a
dealer group's vehicles with a year of cost lines (bench/scale_data.py), on PostgreSQL.

For each size (vehicles) a database of its own is filled by bench/scale_data.py (or reused with
--reuse), and the page is measured three ways:

- served: gunicorn (2 sync workers) and one signed-in seller requesting the page one request
  after another for --seconds, p50 and p95, as a user sees it (the page's preparation figures
  are kept by statistics.figures() until the vehicles change; the cost sections are computed
  on every request);
- cold: in process (the test client), the statistics cache emptied before each of --cold
  requests, so that every figure is computed each time: p50 and p95;
- after a cost line: in process, a cost line entered (an actual of 0 on the newest line's
  task, so the figures stay as they are) before each of --cold requests, which is what a
  dealer group's users get while cost lines are entered all day: the reconditioning figures
  computed, the page's other figures kept (they wait for a vehicle to move); the lines are
  deleted afterwards;
- statements per request (the second request, as bench/scale.py counts them).

Goal (issue 33): p95 under 300 ms at 100,000 vehicles; statements the same at every size.

    .venv/bin/python bench/recon_statistics.py --sizes 10000,100000 --prefix h_recon
"""

import argparse
import os
import platform
import time
from datetime import UTC, datetime

from common import ROOT, gunicorn, load, sign_in, write_block
from scale import make_database, seller_client, summary
from scale_data import sqlalchemy_url

PAGE = "/begcare/statistics"
MARKER = "<!-- recon statistics table -->"


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


ENTER_LINE = """
INSERT INTO recon_line (item_id, task_id, phase, kind, description, hours, rate, amount,
                        created_by_id, created_at, instance_id)
SELECT item_id, task_id, phase, kind, description, hours, rate, 0, created_by_id, now(),
       instance_id
FROM recon_line WHERE id = (SELECT max(id) FROM recon_line WHERE phase = 'actual')
RETURNING id"""


def after_cost_line(url: str, requests: int) -> dict:
    """p50/p95 of `requests` requests each after a cost line was entered."""
    import psycopg

    from app.extensions import db

    app, client, _engine = seller_client(url)
    assert client.get(PAGE).status_code == 200
    latencies, entered = [], []
    with psycopg.connect(url, autocommit=True) as conn:
        try:
            for _n in range(requests):
                entered.append(conn.execute(ENTER_LINE).fetchone()[0])
                start = time.perf_counter()
                assert client.get(PAGE).status_code == 200
                latencies.append(time.perf_counter() - start)
        finally:
            conn.execute("DELETE FROM recon_line WHERE id = ANY(%s)", (entered,))
    latencies.sort()
    with app.app_context():
        db.engine.dispose()
    return summary(latencies, 0)


def served(url: str, port: int, seconds: float) -> dict:
    env = {
        "DATABASE_URL": sqlalchemy_url(url),
        "PYTHONPATH": ".",
        "PUBLIC_RATE_LIMIT": "1000000/60",
    }
    with gunicorn("wsgi:app", port, env, workers=2):
        cookie = sign_in(port, "seller@demo.test")
        load(port, PAGE, cookie=cookie, clients=1, seconds=1.0)  # warm up
        result = load(port, PAGE, cookie=cookie, clients=1, seconds=seconds)
    result.update(summary(result.pop("latencies"), result["errors"]))
    return result


def recon_lines(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute("SELECT count(*) FROM recon_line").fetchone()[0]


def table(rows: dict[int, dict]) -> str:
    lines = [
        "| vehicles | cost lines | served p50 / p95 ms | after a cost line p50 / p95 ms "
        "| cold p50 / p95 ms | statements | machine load (1 min) |",
        "|---|---|---|---|---|---|---|",
    ]
    for size, r in rows.items():
        s, a, c = r["served"], r["after_line"], r["cold"]
        lines.append(
            f"| {size:,} | {r['lines']:,} | {s['median_ms']:.0f} / {s['p95_ms']:.0f} "
            f"({s['requests']} requests) | {a['median_ms']:.0f} / {a['p95_ms']:.0f} "
            f"({a['requests']} requests) | {c['median_ms']:.0f} / {c['p95_ms']:.0f} "
            f"({c['requests']} requests) | {r['statements']} | {r['load']} |"
        )
    return "\n".join(lines)


def write(rows: dict[int, dict], command: str) -> None:
    """The table between the markers of SCALE.md's section "Reconditioning statistics"."""
    block = (
        f"{MARKER}\nMeasured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.node()} "
        f"({platform.machine()}, shared with other work), PostgreSQL, one client.\n\n"
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
    parser.add_argument("--write", action="store_true", help="put the table into SCALE.md")
    args = parser.parse_args()
    rows = {}
    for size in (int(s) for s in args.sizes.split(",")):
        name = f"{args.prefix}_{size // 1000}k"
        url = f"{args.server}/{name}" if args.reuse else make_database(args.server, name, size)
        before = os.getloadavg()[0]
        statements, cold = statements_and_cold(url, args.cold)
        rows[size] = {
            "lines": recon_lines(url),
            "statements": statements,
            "after_line": after_cost_line(url, args.cold),
            "cold": cold,
            "served": served(url, args.port, args.seconds),
        }
        rows[size]["load"] = f"{before:.1f} → {os.getloadavg()[0]:.1f}"
        print(table({size: rows[size]}).splitlines()[-1], flush=True)
    command = ".venv/bin/python bench/recon_statistics.py " + " ".join(
        f"--{k}={v}" for k, v in vars(args).items() if k not in ("server", "write") and v
    ).replace("--reuse=True", "--reuse")
    print(table(rows))
    if args.write:
        write(rows, command)


if __name__ == "__main__":
    main()
