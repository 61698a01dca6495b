"""Issue 14 benchmark: the shell pages, the item tables and bids against TechEmpower's fortunes page.

One run, one database, the same gunicorn set-up for both apps (on 127.0.0.1, no access log;
2 sync workers unless --setup names others). The pages are loaded in rounds, the fortunes page
first in each round, by clients that each send the next request when the answer came (sync
workers close every connection after its answer, gthread workers keep it); each page's ratio is the median over the rounds of its rate
divided by the fortunes page's rate of the same round, so load from elsewhere on the machine
hits both.
CPU per request is the workers' user + system CPU time over the requests served; beside it,
the load generator's own CPU per request and, on PostgreSQL, the database server's: all of them
share the machine's cores.

--client wrk loads every page with wrk (one connection per thread), as the issue measured from
outside, instead of Python threads, whose own CPU (one core at most, for the GIL) flattens the
differences between fast pages. With wrk the bidders are bench/wrk_pages.lua's threads.

Bids: one bidder per client (a partner group's user on one of 5 adverts) opens its bid page
(session cookie and CSRF token, as a browser), then POSTs the next bid through the public call
POST /api/_public/market-bid/{group}/{advert}/{user} as fast as the answers come; afterwards
every accepted bid must be stored exactly once (tests/market/_race.problems). The public rate
limit is raised for the run (every bidder shares 127.0.0.1).

With REDIS_URL set (production's set-up) the bids' jobs (an outbid mail for each bid that takes
the lead) go to RQ, and the same bids are also sent to a second server of the app without
REDIS_URL, whose jobs run inline in the request (the embedded set-up), as a row of their own.
After the rounds one RQ worker runs the queued jobs, timed, and every outbid mail must be stored.

--baseline DIR serves another checkout (the code before a change, e.g. `git worktree add` or
`git archive | tar -x`) beside this one, on the same database, and loads its pages in the same
rounds: before and after side by side under the same machine load.

--setup class:workers[xthreads], repeated (e.g. --setup sync:4 --setup gthread:2x4), serves the
fortunes page and the app(s) under each gunicorn set-up at once; every round loads each set-up in
turn, and each page is measured against the fortunes page of its own set-up in the same round.
(The inline-jobs row is left out when there are several set-ups.)

    .venv/bin/python bench/pages.py                  # SQLite, demo data, instance/bench_pages.db
    .venv/bin/python bench/pages.py --client wrk     # the same load from wrk (apt-get install wrk)
    REDIS_URL=redis://127.0.0.1:6379/4 .venv/bin/python bench/pages.py   # jobs to RQ
    BENCH_DATABASE_URL=postgresql://dealercare:dealercare@127.0.0.1:5432/dc_cpu \\
        .venv/bin/python bench/pages.py --baseline /tmp/cpu_base

Targets: `/user` and a module start page >= 0.5; the state list and the overview >= 0.3; bid
POSTs >= 0.8 (issue 14 part 2), with 0 lost and 0 duplicated bids.
"""

import argparse
import contextlib
import http.client
import os
import re
import resource
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from common import (
    ROOT,
    gunicorn,
    load,
    postgres_cpu_seconds,
    prepare_database,
    sign_in,
    worker_cpu_seconds,
)

# name, server ("bare" or "app"), path ("bid" for the bid POSTs), target ratio
PAGES = [
    ("fortunes (TechEmpower)", "bare", "/fortunes", None),
    ("/user", "app", "/user", 0.5),
    ("/begcare", "app", "/begcare", 0.5),
    ("state list /begcare/items/incoming", "app", "/begcare/items/incoming", 0.3),
    # The overview's page size is fixed at 25 (spec 02 names no page-size choice for it).
    ("overview /begcare/overview", "app", "/begcare/overview?division=all", 0.3),
    ("bid POST (public call)", "app", "bid", 0.8),
]
RATE_LIMIT = "100000000/60"


def rows_on(port: int, path: str, cookie: str) -> int:
    if path == "bid":
        return 1
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", path, headers={"Cookie": cookie})
    resp = conn.getresponse()
    body = resp.read().decode()
    assert resp.status == 200, f"{path}: {resp.status}"
    return body.count('data-item-id="') + body.count("<tr><td>")  # item rows, fortunes


def bid_load(port: int, bidders: list, seconds: float, master_pid: int) -> dict:
    """Each bidder thread bids the next bid for `seconds`; CPU counted from when all are ready."""
    from market_bids import Run, bidder_thread

    run = Run(10**9, seconds)
    ready = threading.Barrier(len(bidders) + 1)
    threads = [
        threading.Thread(target=bidder_thread, args=(port, b, run, ready, 0)) for b in bidders
    ]
    for t in threads:
        t.start()
    with contextlib.suppress(threading.BrokenBarrierError):
        ready.wait()
    before = worker_cpu_seconds(master_pid)
    run.first = time.perf_counter()
    run.deadline = run.first + seconds
    for t in threads:
        t.join()
    elapsed = max(run.last - run.first, 1e-9)
    latencies = sorted(run.latencies)
    return {
        "requests": len(latencies),
        "errors": len(run.errors),
        "rps": len(latencies) / elapsed,
        "latencies": latencies,
        "cpu": worker_cpu_seconds(master_pid) - before,
        "accepted": run.accepted,
        "error_texts": run.errors[:3],
    }


def client_cpu_seconds() -> float:
    """CPU seconds of the load generator so far: this process's threads and ended children (wrk)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def wrk_load(port: int, path: str, cookie: str, seconds: float, clients: int, bidders=None):
    """The load from wrk (bench/wrk_pages.lua), one connection per thread, as the issue measured
    from outside; with `bidders` (lines of that script's BIDDERS file) each thread is a bidder."""
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        if bidders:
            env["BIDDERS"], env["BID_IDS"] = f"{tmp}/bidders", f"{tmp}/ids"
            Path(env["BIDDERS"]).write_text("\n".join(bidders) + "\n")
            Path(env["BID_IDS"]).touch()
        cmd = ["wrk", "-t", str(clients), "-c", str(clients), "-d", f"{seconds:g}s"]
        cmd += ["--timeout", "10s", "-s", str(Path(__file__).with_name("wrk_pages.lua"))]
        cmd += ["-H", f"Cookie: {cookie}"] if cookie and not bidders else []
        out = subprocess.run(  # noqa: S603
            [*cmd, f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, check=True,
            env=env,
        ).stdout  # fmt: skip
        accepted: dict[int, list[int]] = {}
        if bidders:
            pairs = Path(env["BID_IDS"]).read_text().split()
            for advert_id, bid_id in zip(pairs[::2], pairs[1::2], strict=True):
                accepted.setdefault(int(advert_id), []).append(int(bid_id))
    statuses = {int(a): int(b) for a, b in re.findall(r"^status (\d+) (\d+)$", out, re.M)}
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    if bidders:  # a bid answered "too low" (422, with the next bid to send) is no error
        errors = sum(c for st, c in statuses.items() if st not in (200, 201, 422))
    else:
        found = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        errors = int(found.group(1)) if found else 0
    p50, p95 = re.search(r"^p50 (\d+) p95 (\d+)$", out, re.M).groups()
    return {
        "requests": requests,
        "errors": errors,
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50": int(p50) / 1e6,
        "p95": int(p95) / 1e6,
        "accepted": accepted,
        "error_texts": [f"statuses {statuses}"] if errors else [],
    }


def wrk_bidders(port: int, bidders: list) -> list[str]:
    """Each bidder's line for bench/wrk_pages.lua: its bid page's session cookie and CSRF token
    (as a browser gets them) and the first bid from its currency table."""
    from market_bids import open_bid_page

    lines = []
    for bidder in bidders:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        headers, amount = open_bid_page(conn, bidder)
        parts = f"{bidder.group_hash}/{bidder.advert_hash}/{bidder.link_hash}"
        lines.append(
            f"{bidder.advert_id} /api/_public/market-bid/{parts} {headers['Cookie']} "
            f"{headers['X-CSRFToken']} {amount}"
        )
    return lines


def seed_bidders(url: str, count: int):
    """A seller with 5 published adverts and `count` bidders spread over them (SEK and NOK)."""
    from market_bids import seed

    tag = f"pages{int(time.time() * 1000) % 10**9}"
    app, market = seed(url, tag, max(count, 10), 5)
    per_advert = {a: [b for b in market.bidders if b.advert_id == a] for a in market.advert_ids}
    ids = market.advert_ids
    chosen = [per_advert[ids[n % len(ids)]][n // len(ids)] for n in range(count)]
    return app, market, chosen


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=4.0, help="per page and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2, help="sync workers, without --setup")
    parser.add_argument(
        "--setup", action="append",
        help="a gunicorn set-up, class:workers[xthreads] (sync:4, gthread:2x4); repeat it to "
        "measure several side by side, each against its own fortunes page, in the same rounds",
    )  # fmt: skip
    parser.add_argument("--items", type=int, default=0, help="top the demo data up to N")
    parser.add_argument("--port", type=int, default=5401, help="and the next, one per server")
    parser.add_argument("--baseline", type=Path, help="another checkout, served beside this one")
    parser.add_argument("--no-bids", action="store_true")
    parser.add_argument(
        "--client", choices=("python", "wrk"), default="python",
        help="the load generator: Python threads (default) or wrk, as the issue measured",
    )  # fmt: skip
    parser.add_argument(
        "--only", help="comma-separated paths (e.g. bid,/user): these pages and the fortunes page"
    )
    args = parser.parse_args()
    url = (
        os.environ.get("BENCH_DATABASE_URL") or f"sqlite:///{ROOT / 'instance' / 'bench_pages.db'}"
    )
    on_postgres = url.startswith(("postgresql", "postgres:"))
    if on_postgres:
        from market_bids import ensure_database

        ensure_database(url)
    prepare_database(url, args.items)
    from bare_app import create_fortunes

    create_fortunes(url)
    setups = args.setup or [f"sync:{args.workers}"]
    chosen = set(args.only.split(",")) if args.only else None
    one_setup = [
        p
        for p in PAGES
        if not (args.no_bids and p[2] == "bid") and (chosen is None or p[1] == "bare" or p[2] in chosen)
    ]  # fmt: skip
    if os.environ.get("REDIS_URL") and not args.no_bids and len(setups) == 1:
        # Jobs go to RQ (production); the embedded set-up's inline jobs are measured beside.
        one_setup.append(("bid POST, inline jobs (embedded set-up)", "inline", "bid", None))
    if args.baseline:  # the same pages of the other checkout, each right before this one's
        one_setup = [one_setup[0]] + [
            q
            for name, server, path, target in one_setup[1:]
            for q in (((f"{name} (before)", "base", path, None),) if server == "app" else ())
            + ((name, server, path, target),)
        ]
    # Each set-up serves its own fortunes page and app(s); a round loads every set-up in turn,
    # so the machine's load hits all of them, and each page is measured against the fortunes
    # page of its own set-up and round.
    pages, reference = [], {}
    for setup in setups:
        label = f" [{setup}]" if len(setups) > 1 else ""
        for name, server, path, target in one_setup:
            pages.append((name + label, f"{server}@{setup}", path, target))
            reference[name + label] = one_setup[0][0] + label
    bid_app = market = bidders = None
    if any(p[2] == "bid" for p in pages):
        bid_app, market, bidders = seed_bidders(url, args.clients)
    env = {"DATABASE_URL": url, "PYTHONPATH": ".", "PUBLIC_RATE_LIMIT": RATE_LIMIT}
    servers = sorted({s for _, s, _, _ in pages}, key=lambda s: [p[1] for p in pages].index(s))
    ports = {s: args.port + n for n, s in enumerate(servers)}
    runs: dict[str, list[dict]] = {name: [] for name, *_ in pages}
    accepted: dict[int, list[int]] = {}
    with contextlib.ExitStack() as stack:
        procs = {}
        for key in servers:
            kind, setup = key.split("@")
            worker_class, _, shape = setup.partition(":")
            workers, _, threads = shape.partition("x")
            procs[key] = stack.enter_context(
                gunicorn(
                    "bench.bare_app:app" if kind == "bare" else "wsgi:app",
                    ports[key],
                    env | ({"REDIS_URL": ""} if kind == "inline" else {}),
                    int(workers),
                    root=args.baseline if kind == "base" else ROOT,
                    worker_class=worker_class,
                    threads=int(threads or 1),
                )
            )
        masters = {k: p.pid for k, p in procs.items()}
        cookies = {
            k: sign_in(ports[k], "seller@demo.test") if not k.startswith("bare") else ""
            for k in procs
        }
        rows = {name: rows_on(ports[s], path, cookies[s]) for name, s, path, _ in pages}
        wrk_lines = {}  # per server: the bidders' lines for wrk (each server's own cookies)
        if args.client == "wrk" and bidders:
            wrk_lines = {
                k: wrk_bidders(ports[k], bidders) for k in procs if not k.startswith("bare")
            }

        def run_page(s: str, path: str, seconds: float) -> dict:
            if args.client == "wrk":
                lines = wrk_lines[s] if path == "bid" else None
                target = "/" if path == "bid" else path
                return wrk_load(ports[s], target, cookies[s], seconds, args.clients, lines)
            if path == "bid":
                return bid_load(ports[s], bidders, seconds, masters[s])
            return load(ports[s], path, cookie=cookies[s], clients=args.clients, seconds=seconds)

        for _name, s, path, _ in pages:  # warm up every worker
            result = run_page(s, path, 1)
            for advert_id, ids in result.get("accepted", {}).items():
                accepted.setdefault(advert_id, []).extend(ids)
        for _ in range(args.rounds):
            for name, s, path, _ in pages:
                client_cpu, before = client_cpu_seconds(), worker_cpu_seconds(masters[s])
                server_cpu = postgres_cpu_seconds() if on_postgres else 0.0
                result = run_page(s, path, args.seconds)
                # (bid_load counts the workers' CPU from when its bidders are ready)
                result.setdefault("cpu", worker_cpu_seconds(masters[s]) - before)
                result["client_cpu"] = client_cpu_seconds() - client_cpu
                result["server_cpu"] = (postgres_cpu_seconds() - server_cpu) if on_postgres else 0
                for advert_id, ids in result.get("accepted", {}).items():
                    accepted.setdefault(advert_id, []).extend(ids)
                runs[name].append(result)
    problems = []
    if market is not None:  # every bid answered as accepted stored once, none else, in order
        from market_bids import verify

        if args.client == "wrk":
            bid_runs = (args.rounds + 1) * sum(p[2] == "bid" for p in pages)
            accepted = unanswered_by_wrk(bid_app, market, accepted, args.clients * bid_runs)
        problems = verify(bid_app, market, {a: accepted.get(a, []) for a in market.advert_ids})
        if os.environ.get("REDIS_URL"):
            problems += drain_jobs(bid_app, market, env)
    report(url, args, pages, reference, runs, rows, problems)


def unanswered_by_wrk(app, market, accepted: dict, allowed: int) -> dict:
    """wrk ends a run without reading the answers in flight: at most one bid per connection and
    run is stored but never counted as answered. Up to `allowed` such bids are taken as
    answered (and said so); more are left for the check to report."""
    from sqlalchemy import select

    from app.extensions import db
    from app.market.models import AdvertBid

    with app.app_context():
        stored = db.session.execute(
            select(AdvertBid.advert_id, AdvertBid.id)
            .where(AdvertBid.advert_id.in_(market.advert_ids), AdvertBid.automatic.is_(False))
            .execution_options(all_instances=True)
        ).all()
        db.session.remove()
    answered = {i for ids in accepted.values() for i in ids}
    cut = [(advert_id, bid_id) for advert_id, bid_id in stored if bid_id not in answered]
    print(
        f"wrk: {len(cut)} bids stored whose answers were in flight when a run ended "
        f"(at most {allowed}: one per connection and run)"
    )
    if len(cut) > allowed:
        return accepted
    merged = {a: list(ids) for a, ids in accepted.items()}
    for advert_id, bid_id in cut:
        merged.setdefault(advert_id, []).append(bid_id)
    return merged


def drain_jobs(app, market, env: dict) -> list[str]:
    """With REDIS_URL the bids' e-mails were queued for RQ, as in production: one burst worker
    runs them now, timed; every outbid mail must be stored (none lost to the load)."""
    from rq import Queue
    from sqlalchemy import func, select

    from app.core.jobs import QUEUE_NAME, redis_connection
    from app.extensions import db
    from app.mail.models import EmailMessage

    with app.app_context():
        redis = redis_connection()
        queue = Queue(QUEUE_NAME, connection=redis)
        queued = queue.count
        failed_before = queue.failed_job_registry.count  # an earlier run's stay for a while

        def burst() -> tuple[float, float]:  # (wall, CPU) of one burst worker's whole run
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(  # noqa: S603
                [str(ROOT / ".venv/bin/flask"), "--app", "wsgi", "worker", "--burst"],
                cwd=ROOT, env={**os.environ, **env}, check=True, stdout=subprocess.DEVNULL,
            )  # fmt: skip
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            return time.perf_counter() - started, cpu

        wall, cpu = burst()
        idle_wall, idle_cpu = burst()  # the worker's start and stop alone: the queue is empty
        wall, cpu = wall - idle_wall, cpu - idle_cpu
        emails = [b.email for b in market.bidders]
        mails = dict(
            db.session.execute(
                select(EmailMessage.status, func.count())
                .where(EmailMessage.kind == "market_outbid", EmailMessage.to_address.in_(emails))
                .group_by(EmailMessage.status)
            ).all()
        )
        failed = queue.failed_job_registry.count - failed_before
        db.session.remove()
    print(
        f"jobs: {queued} queued by the bids, run afterwards by one RQ worker in {wall:.1f} s, "
        f"{cpu / max(queued, 1) * 1000:.2f} ms CPU per mail (rendered and stored, then its "
        "delivery: two jobs; the worker's process tree, its start left out); "
        f"outbid mails by status: {mails}, failed jobs: {failed}"
    )
    problems = [f"{failed} jobs failed"] if failed else []
    if not mails or set(mails) != {"stored"}:
        problems.append(f"outbid mails not all stored: {mails}")
    return problems


def report(url, args, pages, reference, runs, rows, problems) -> None:
    setups = ", ".join(args.setup or [f"sync:{args.workers}"])
    print(
        f"\n{url.split('://')[0]}, gunicorn {setups} (class:workers[xthreads]), {args.clients} "
        f"clients ({'wrk' if args.client == 'wrk' else 'Python threads'}), "
        f"{args.rounds} rounds x {args.seconds:g} s per page ({os.cpu_count()} cores, load "
        f"{os.getloadavg()[0]:.1f})"
    )
    print(
        "| page | rows | req/s | p50 ms | p95 ms | ratio to fortunes (target) | CPU ms/req "
        "| fortunes CPU / page CPU | load generator's CPU ms/req | PostgreSQL's CPU ms/req |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, _, _, target in pages:
        rs, base = runs[name], runs[reference[name]]
        base_cpu = sum(r["cpu"] for r in base) / max(1, sum(r["requests"] for r in base))
        latencies = sorted(x for r in rs for x in r.get("latencies", ()))
        served = sum(r["requests"] for r in rs)
        errors = sum(r["errors"] for r in rs)
        ratio = statistics.median(r["rps"] / b["rps"] for r, b in zip(rs, base, strict=True))
        cpu = sum(r["cpu"] for r in rs) / served if served else float("nan")
        mark = "" if target is None else f" (≥ {target:.1f}{' met' if ratio >= target else ''})"
        if "p50" in rs[0]:  # wrk: its percentiles of each round, the median over the rounds
            p50 = statistics.median(r["p50"] for r in rs) * 1000
            p95 = statistics.median(r["p95"] for r in rs) * 1000
        else:
            p50 = latencies[len(latencies) // 2] * 1000 if latencies else float("nan")
            p95 = latencies[max(0, int(len(latencies) * 0.95) - 1)] * 1000 if latencies else 0
        print(
            f"| {name} | {rows[name]} | {statistics.median(r['rps'] for r in rs):.1f} | "
            f"{p50:.2f} | {p95:.2f} | {ratio:.2f}{mark} | {cpu * 1000:.2f} | "
            f"{base_cpu / cpu if cpu else float('nan'):.2f} | "
            f"{sum(r['client_cpu'] for r in rs) / max(served, 1) * 1000:.2f} | "
            f"{sum(r['server_cpu'] for r in rs) / max(served, 1) * 1000:.2f} |"
            + (f" {errors} errors: {rs[0].get('error_texts') or ''}" if errors else "")
        )
    if any(p[2] == "bid" for p in pages):
        print(
            "bids: "
            + ("; ".join(problems) if problems else "every accepted bid stored exactly once")
        )


if __name__ == "__main__":
    main()
