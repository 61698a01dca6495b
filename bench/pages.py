"""Issue 14 benchmark: the shell pages and the item tables against TechEmpower's fortunes page.

One run, one database, the same gunicorn set-up for both apps (sync workers on 127.0.0.1, no
access log). The pages are loaded in rounds, the fortunes page first in each round, from
keep-alive connections; each page's ratio is the median over the rounds of its rate divided by
the fortunes page's rate of the same round, so load from elsewhere on the machine hits both.
CPU per request is the workers' user + system CPU time over the requests served.

    .venv/bin/python bench/pages.py                  # SQLite, demo data, instance/bench_pages.db
    BENCH_DATABASE_URL=postgresql://dealercare:dealercare@127.0.0.1:5432/dealercare_bench_cpu \\
        .venv/bin/python bench/pages.py

Targets: `/user` and a module start page >= 0.5; the state list and the overview >= 0.3.
"""

import argparse
import http.client
import os
import statistics

from common import ROOT, gunicorn, load, prepare_database, sign_in, worker_cpu_seconds

# name, app ("bare" or "app"), path, target ratio
PAGES = [
    ("fortunes (TechEmpower)", "bare", "/fortunes", None),
    ("/user", "app", "/user", 0.5),
    ("/begcare", "app", "/begcare", 0.5),
    ("state list /begcare/items/incoming", "app", "/begcare/items/incoming", 0.3),
    ("overview /begcare/overview", "app", "/begcare/overview?division=all", 0.3),
]


def rows_on(port: int, path: str, cookie: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path, headers={"Cookie": cookie})
    resp = conn.getresponse()
    body = resp.read().decode()
    assert resp.status == 200, f"{path}: {resp.status}"
    return body.count('data-item-id="') + body.count("<tr><td>")  # item rows, fortunes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=4.0, help="per page and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--items", type=int, default=0, help="top the demo data up to N")
    parser.add_argument("--port", type=int, default=58621)
    args = parser.parse_args()
    url = (
        os.environ.get("BENCH_DATABASE_URL") or f"sqlite:///{ROOT / 'instance' / 'bench_pages.db'}"
    )
    prepare_database(url, args.items)
    from bare_app import create_fortunes

    create_fortunes(url)
    env = {"DATABASE_URL": url, "PYTHONPATH": "."}
    ports = {"bare": args.port, "app": args.port + 1}
    runs: dict[str, list[dict]] = {name: [] for name, *_ in PAGES}
    with (
        gunicorn("bench.bare_app:app", ports["bare"], env, workers=args.workers) as bare_proc,
        gunicorn("wsgi:app", ports["app"], env, workers=args.workers) as app_proc,
    ):
        masters = {"bare": bare_proc.pid, "app": app_proc.pid}
        cookie = sign_in(ports["app"], "seller@demo.test")
        rows = {name: rows_on(ports[a], path, cookie) for name, a, path, _ in PAGES}
        for _name, a, path, _ in PAGES:  # warm up every worker
            load(ports[a], path, cookie=cookie, clients=args.workers * 2, seconds=1)
        for _ in range(args.rounds):
            for name, a, path, _ in PAGES:
                before = worker_cpu_seconds(masters[a])
                result = load(
                    ports[a], path, cookie=cookie, clients=args.clients, seconds=args.seconds
                )
                result["cpu"] = worker_cpu_seconds(masters[a]) - before
                runs[name].append(result)
    base = runs[PAGES[0][0]]
    print(
        f"\n{url.split('://')[0]}, {args.workers} sync workers, {args.clients} clients, "
        f"{args.rounds} rounds x {args.seconds:g} s per page"
    )
    print(
        f"{'page':38s} {'rows':>4s} {'req/s':>8s} {'p50 ms':>7s} {'p95 ms':>7s} {'ratio':>6s} {'target':>6s} {'CPU ms/req':>10s}"
    )
    for name, _, _, target in PAGES:
        rs = runs[name]
        latencies = sorted(x for r in rs for x in r["latencies"])
        served = sum(r["requests"] for r in rs)
        errors = sum(r["errors"] for r in rs)
        ratio = statistics.median(r["rps"] / b["rps"] for r, b in zip(rs, base, strict=True))
        cpu_ms = sum(r["cpu"] for r in rs) / served * 1000 if served else float("nan")
        mark = "" if target is None else (f">={target:.1f}" + (" ok" if ratio >= target else " no"))
        print(
            f"{name:38s} {rows[name]:4d} {statistics.median(r['rps'] for r in rs):8.1f} "
            f"{latencies[len(latencies) // 2] * 1000:7.2f} {latencies[int(len(latencies) * 0.95) - 1] * 1000:7.2f} "
            f"{ratio:6.2f} {mark:>6s} {cpu_ms:10.2f}" + (f"  ({errors} errors)" if errors else "")
        )


if __name__ == "__main__":
    main()
