"""Market benchmark: 1,000 bids from 50 bidders on 5 adverts, sent at once to gunicorn.

Each of 50 client threads (one bidder: a user of a partner buyer group, in SEK or NOK) opens its
bid page (session cookie and CSRF token, as a browser would), learns the next bid in its
currency, then bids through POST /api/_public/market-bid/{group}/{advert}/{user}: always the
nextBid of its previous answer, a refusal's included (422 when outbid in between: its nextBid is
the new minimum). Exactly 1,000 bid POSTs in all, at most 120 s, 127.0.0.1 only. Afterwards the
database is checked: every accepted bid is there exactly once, and each advert's highest bid is
its last accepted bid. Then the size of the bid page's JavaScript (gzip) against the others'.

Targets: >= 500 accepted bids/s, POST p95 < 100 ms, bid page JavaScript <= 80 KB gzip with
React included (issue 17: the bid form is a React component) and below the shell pages'. With
--fortunes (issue 14): rounds of TechEmpower's fortunes page (bench/bare_app.py) and the bids
under the same gunicorn set-up and database, bid POSTs per second >= 0.8 of the fortunes rate.
With --proxy every bid also carries a hidden maximum (issue 16), so the maxima answer inside
the bid transaction and the database check covers the automatic bids too.

    BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/dc_bench \\
        .venv/bin/python bench/market_bids.py                      # as gunicorn.conf.py: sync, 2 per core
    ... bench/market_bids.py --worker-class gthread --threads 8    # another worker set-up
    ... bench/market_bids.py --sweep                               # several set-ups in turn
    ... bench/market_bids.py --raise-steps 10                      # bids 0..10 steps above
    ... bench/market_bids.py --proxy --fortunes --workers 2       # issue 14 + 16: the ratio
    .venv/bin/python bench/market_bids.py --js-only                # the JavaScript sizes only
"""

import argparse
import contextlib
import gzip
import http.client
import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

from common import ROOT, bench_database_url, prepare_database

# Below the ephemeral range (32768-60999 on Linux): a client polling a port in it may be
# given that very port as its own and connect to itself, which then keeps the server out.
PORTS = (18621, 18622)
RATE_LIMIT = "1000000/60"  # the public rate limit, raised: 50 bidders share one address here
SWEEP = [
    ("sync", 2, 1),
    ("sync", 4, 1),
    ("sync", 8, 1),
    ("gthread", 2, 8),
    ("gthread", 2, 16),
    ("gthread", 4, 8),
]


# --- where the CPU goes ----------------------------------------------------------------------

TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of one process so far (0 once it is gone)."""
    try:
        fields = (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1]).split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def pids_named(prefix: str) -> list[int]:
    """The processes whose command name starts with `prefix` (postgres, redis-server)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().startswith(prefix):
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def machine_busy() -> float:
    """CPU seconds the whole machine has been busy (all cores; idle and iowait left out)."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(values) - values[3] - values[4]) / TICK


class CpuSplit:
    """CPU seconds spent by the gunicorn workers, PostgreSQL, Redis, this load client and the
    whole machine (the kernel's network work included) between start() and stop()."""

    SERVICES = {"postgres": "postgres", "redis": "redis-server"}

    def start(self, server_pid: int) -> None:
        self.workers = children(server_pid)
        self.server = sum(process_cpu(p) for p in self.workers)
        self.services = {
            name: {p: process_cpu(p) for p in pids_named(prefix)}
            for name, prefix in self.SERVICES.items()
        }
        self.client = time.process_time()
        self.machine = machine_busy()

    def stop(self) -> dict[str, float]:
        spent = {
            name: sum(process_cpu(p) - self.services[name].get(p, 0.0) for p in pids_named(prefix))
            for name, prefix in self.SERVICES.items()
        }
        return spent | {
            "server": sum(process_cpu(p) for p in self.workers) - self.server,
            "client": time.process_time() - self.client,
            "machine": machine_busy() - self.machine,
        }


# --- the server ------------------------------------------------------------------------------


@contextlib.contextmanager
def serve(
    port: int, env: dict, worker_class: str, workers: int, threads: int, app: str = "wsgi:app"
):
    """gunicorn on 127.0.0.1:port (no --preload: every worker opens its own connections)."""
    cmd = [
        str(ROOT / ".venv/bin/gunicorn"), "--config", str(ROOT / "bench" / "gunicorn_bench.py"),
        "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--worker-class", worker_class,
        "--threads", str(threads), "--keep-alive", "5", "--backlog", "256",
        "--log-level", "warning", app,
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, **env})  # noqa: S603
    try:
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                conn.request("GET", "/login")
                conn.getresponse().read()
                break
            except OSError:
                time.sleep(0.2)
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)


# --- the data --------------------------------------------------------------------------------


def seed(url: str, tag: str, users: int, adverts: int):
    """A new seller with `adverts` published adverts and `users` bidders in two currencies."""
    from app import create_app
    from app.extensions import db
    from tests.market._race import seed_market

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        market = seed_market(users=users, adverts=adverts, tag=tag)
        db.session.remove()
        db.engine.dispose()
    return app, market


def count_automatic(app, market) -> int:
    """The bids the maxima placed by themselves during the run."""
    from sqlalchemy import func, select

    from app.extensions import db
    from app.market.models import AdvertBid

    with app.app_context():
        count = db.session.scalar(
            select(func.count())
            .select_from(AdvertBid)
            .where(AdvertBid.advert_id.in_(market.advert_ids), AdvertBid.automatic.is_(True))
        )
        db.session.remove()
        db.engine.dispose()
    return count


def verify(app, market, accepted: dict[int, list[int]]) -> list[str]:
    """What is wrong in the database after the run (tests/market/_race.problems per advert)."""
    from app.extensions import db
    from tests.market._race import problems

    found = []
    with app.app_context():
        for advert_id in market.advert_ids:
            found += [f"advert {advert_id}: {p}" for p in problems(advert_id, accepted[advert_id])]
        db.session.remove()
        db.engine.dispose()
    return found


# --- the bidders -----------------------------------------------------------------------------


class Run:
    def __init__(self, total: int, seconds: float) -> None:
        self.lock = threading.Lock()
        self.total, self.deadline = total, time.perf_counter() + seconds
        self.sent = 0
        self.latencies: list[float] = []
        self.accepted: dict[int, list[int]] = {}
        self.refused = self.duplicates = 0
        self.errors: list[str] = []
        self.first = self.last = 0.0

    def claim(self) -> bool:
        with self.lock:
            if self.sent >= self.total or time.perf_counter() >= self.deadline:
                return False
            self.sent += 1
            return True


def _json(conn: http.client.HTTPConnection, method: str, path: str, headers: dict, body=None):
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    if cookie := resp.getheader("Set-Cookie"):  # kept as a browser keeps it
        headers["Cookie"] = cookie.split(";", 1)[0]
    return resp.status, data


def _minimum(conn, bidder, headers) -> int:
    path = f"/api/_public/market-advert/currencies/{bidder.group_hash}/{bidder.advert_hash}/{bidder.link_hash}"
    status, data = _json(conn, "GET", path, headers)
    if status != 200:
        raise RuntimeError(f"currencies {status}: {data[:200]!r}")
    table = json.loads(data)
    return next(r["nextBid"] for r in table["exchangeRates"] if r["currency"] == bidder.currency)


def open_bid_page(conn, bidder) -> tuple[dict, int]:
    """What a browser gets from the bidder's bid page: the headers its bids send (the session
    cookie, the CSRF token) and the first bid to send, from the currency table."""
    page = f"/market-bid/bid/{bidder.group_hash}/{bidder.advert_hash}/{bidder.link_hash}"
    headers = {"Content-Type": "application/json"}
    status, html = _json(conn, "GET", page, headers)  # keeps the cookie the page sets
    assert status == 200, f"bid page {status}"
    token = re.search(rb'<meta name="csrf-token" content="([^"]+)"', html).group(1).decode()
    headers["X-CSRFToken"] = token
    return headers, _minimum(conn, bidder, headers)


def bidder_thread(
    port: int, bidder, run: Run, ready: threading.Barrier, raise_steps: int, proxy: bool = False
) -> None:
    rng = random.Random(bidder.link_id)
    maximum = 0
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers, amount = open_bid_page(conn, bidder)
    except Exception as error:  # noqa: BLE001
        with run.lock:
            run.errors.append(f"set-up: {error!r}"[:200])
        ready.abort()
        return
    try:
        ready.wait()
    except threading.BrokenBarrierError:
        return
    post = f"/api/_public/market-bid/{bidder.group_hash}/{bidder.advert_hash}/{bidder.link_hash}"
    while run.claim():
        # The minimum, or with --raise-steps a random 0..n bid steps (1,000 units) above it.
        body = {"bid": amount + 1000 * rng.randint(0, raise_steps), "requestKey": uuid.uuid4().hex}
        if proxy:  # a hidden maximum 1..6 steps above the bid, never lowered
            maximum = body["maximum"] = max(maximum, body["bid"] + 1000 * rng.randint(1, 6))
        start = time.perf_counter()
        try:
            status, data = _json(conn, "POST", post, headers, body)
        except OSError as error:
            with run.lock:
                run.errors.append(f"POST: {error!r}"[:200])
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        end = time.perf_counter()
        answer = json.loads(data) if data[:1] == b"{" else {}
        with run.lock:
            run.latencies.append(end - start)
            run.last = max(run.last, end)
            if status == 201:
                run.accepted.setdefault(bidder.advert_id, []).append(answer["bid"]["id"])
            elif status == 200:
                run.duplicates += 1
            elif status == 422 and answer.get("error") == "BID_TOO_LOW":
                run.refused += 1
            else:
                run.errors.append(f"POST {status}: {data[:200]!r}")
        if status == 201 or answer.get("nextBid"):
            amount = answer["nextBid"]  # a refusal for a low bid says the new minimum
        else:
            try:
                amount = _minimum(conn, bidder, headers)
            except (OSError, RuntimeError) as error:
                with run.lock:
                    run.errors.append(repr(error)[:200])
                return
    conn.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] * 1000 if ordered else float("nan")


def bid_run(url: str, args, worker_class: str, workers: int, threads: int, port: int) -> dict:
    tag = f"bench{int(time.time() * 1000) % 10**9}"
    app, market = seed(url, tag, args.bidders, args.adverts)
    # Bidder n is user n on advert n % adverts (10 bidders on each advert).
    per_advert = {a: [b for b in market.bidders if b.advert_id == a] for a in market.advert_ids}
    chosen = [per_advert[market.advert_ids[n % args.adverts]][n] for n in range(args.bidders)]
    env = {"DATABASE_URL": url, "PYTHONPATH": ".", "PUBLIC_RATE_LIMIT": RATE_LIMIT}
    run = Run(args.bids, args.seconds)
    cpu = CpuSplit()
    with serve(port, env, worker_class, workers, threads) as server:
        ready = threading.Barrier(args.bidders + 1)
        clients = [
            threading.Thread(
                target=bidder_thread, args=(port, b, run, ready, args.raise_steps, args.proxy)
            )
            for b in chosen
        ]
        for client in clients:
            client.start()
        # A bidder that could not start breaks the barrier: its error is reported.
        with contextlib.suppress(threading.BrokenBarrierError):
            ready.wait()
        cpu.start(server.pid)
        run.first = time.perf_counter()
        run.deadline = run.first + args.seconds
        for client in clients:
            client.join()
        spent = cpu.stop()
    wall = max(run.last - run.first, 1e-9)
    accepted = sum(len(ids) for ids in run.accepted.values())
    problems = verify(app, market, {a: run.accepted.get(a, []) for a in market.advert_ids})
    automatic = count_automatic(app, market) if args.proxy else 0
    return {
        "automatic": automatic,
        # A sync worker serves one request at a time: --threads means nothing to it.
        "setup": f"{worker_class} {workers} workers"
        + (f" x {threads} threads" if worker_class != "sync" else ""),
        "posts": len(run.latencies),
        "accepted": accepted,
        "refused": run.refused,
        "duplicates": run.duplicates,
        "errors": run.errors,
        "wall": wall,
        "accepted_per_s": accepted / wall,
        "posts_per_s": len(run.latencies) / wall,
        "p50": percentile(run.latencies, 0.50),
        "p95": percentile(run.latencies, 0.95),
        "p99": percentile(run.latencies, 0.99),
        "problems": problems,
        "cpu": spent,
    }


def report(result: dict) -> None:
    ok = result["accepted_per_s"] >= 500 and result["p95"] < 100 and not result["problems"]
    print(
        f"{result['setup']:32s} {result['accepted_per_s']:7.1f} accepted bids/s  "
        f"{result['posts_per_s']:7.1f} POSTs/s  p50 {result['p50']:6.1f} ms  "
        f"p95 {result['p95']:6.1f} ms  p99 {result['p99']:6.1f} ms  "
        f"({result['posts']} POSTs in {result['wall']:.2f} s: {result['accepted']} accepted"
        + (f" + {result['automatic']} automatic" if result["automatic"] else "")
        + ", "
        f"{result['refused']} refused as outbid, {result['duplicates']} duplicates, "
        f"{len(result['errors'])} errors)  {'meets' if ok else 'MISSES'} the target"
    )
    cpu, posts = result["cpu"], max(result["posts"], 1)
    per = {name: seconds / posts * 1000 for name, seconds in cpu.items()}
    rest = per["machine"] - per["server"] - per["postgres"] - per["redis"] - per["client"]
    print(
        f"  CPU per POST: gunicorn workers {per['server']:.2f} ms, PostgreSQL "
        f"{per['postgres']:.2f} ms, Redis {per['redis']:.2f} ms, this load client "
        f"{per['client']:.2f} ms, the rest (kernel, network) {rest:.2f} ms; the machine was "
        f"busy {cpu['machine'] / result['wall'] / (os.cpu_count() or 1) * 100:.0f}% of "
        f"{os.cpu_count()} cores"
    )
    for error in result["errors"][:5]:
        print(f"  error: {error}")
    if result["problems"]:
        for problem in result["problems"]:
            print(f"  DATABASE: {problem}")
    else:
        print(
            f"  database: all {result['accepted']} accepted bids stored once; every advert's "
            "highest bid is its last accepted bid; bid counts and minimums hold"
        )


# --- the fortunes page, under the same set-up ------------------------------------------------


def fortunes_run(url: str, args, worker_class: str, workers: int, threads: int, port: int):
    """TechEmpower's fortunes page (bench/bare_app.py) under the same gunicorn set-up, loaded
    from as many keep-alive clients as there are bidders for args.fortune_seconds."""
    from bare_app import create_fortunes
    from common import load

    create_fortunes(url)
    env = {"DATABASE_URL": url, "PYTHONPATH": "."}
    with serve(port, env, worker_class, workers, threads, app="bench.bare_app:app") as server:
        load(port, "/fortunes", clients=workers * 2, seconds=1)  # warm every worker
        cpu = CpuSplit()
        cpu.start(server.pid)
        result = load(port, "/fortunes", clients=args.bidders, seconds=args.fortune_seconds)
        spent = cpu.stop()
    result["cpu_ms"] = spent["server"] / max(result["requests"], 1) * 1000
    return result


def ratio_table(rounds: list[tuple[dict, dict]], url: str) -> None:
    """Bid POSTs per second against the fortunes page's requests per second, round by round,
    and the median ratio (issue 14: >= 0.8, p95 < 100 ms at 50 clients, 0 lost, 0 twice)."""
    import statistics

    print(
        "\n| round | fortunes req/s | fortunes p95 ms | fortunes CPU ms/req | bid POSTs/s | "
        "accepted bids/s | bid p95 ms | bid CPU ms/POST | ratio POSTs/s : fortunes |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for n, (fortunes, bids) in enumerate(rounds, 1):
        print(
            f"| {n} | {fortunes['rps']:.0f} | {fortunes['p95_ms']:.1f} | {fortunes['cpu_ms']:.2f} | "
            f"{bids['posts_per_s']:.0f} | {bids['accepted_per_s']:.0f} | {bids['p95']:.1f} | "
            f"{bids['cpu']['server'] / max(bids['posts'], 1) * 1000:.2f} | "
            f"{bids['posts_per_s'] / fortunes['rps']:.2f} |"
        )
    ratio = statistics.median(b["posts_per_s"] / f["rps"] for f, b in rounds)
    lost = sum(len(b["problems"]) for _f, b in rounds)
    p95 = statistics.median(b["p95"] for _f, b in rounds)
    print(
        f"median ratio {ratio:.2f} (target >= 0.8), median bid p95 {p95:.1f} ms (target < 100), "
        f"database problems {lost} ({url.split('://')[0]})"
    )


# --- the JavaScript --------------------------------------------------------------------------

DIST = ROOT / "static" / "dist"
# esbuild's minified ESM output starts with its static imports (import{..}from"./x.js";
# import"./y.js";). Dynamic import("...") is left out: it loads only when used.
LEADING_IMPORT = re.compile(
    r"""\s*import\s*(?:[\w$]+\s*,?\s*)?(?:\{[^}]*\}|\*\s*as\s+[\w$]+)?\s*(?:from\s*)?"([^"]+)";?"""
)


def static_imports(text: str) -> list[str]:
    found, position = [], 0
    while match := LEADING_IMPORT.match(text, position):
        found.append(match.group(1))
        position = match.end()
    return found


def static_closure(entry: str) -> list[str]:
    """The entry file (relative to static/dist) and every file it statically imports."""
    seen, todo = [], [entry]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.append(name)
        text = (DIST / name).read_text()
        folder = os.path.dirname(name)
        for target in static_imports(text):
            todo.append(os.path.normpath(os.path.join(folder, target)))
    return seen


def gzip_size(files: list[str]) -> tuple[int, int]:
    raw = sum((DIST / f).stat().st_size for f in files)
    packed = sum(len(gzip.compress((DIST / f).read_bytes(), 9)) for f in files)
    return raw, packed


def js_sizes() -> bool:
    """Print the gzip size of each page's JavaScript; True when the bid page's, React included,
    is at most 80 KB and below the shell pages' (issue 17)."""
    manifest_path = DIST / "manifest.json"
    if not manifest_path.exists() or "market-bid-seller.js" not in json.loads(
        manifest_path.read_text()
    ):
        subprocess.run(["npm", "run", "build"], cwd=ROOT, check=True)  # noqa: S607
    manifest = json.loads(manifest_path.read_text())
    shell = static_closure(manifest["main.js"])
    # The parser must find what the build itself lists for the shell.
    assert sorted(shell[1:]) == sorted(manifest["chunks"]), "static import parsing is off"
    pages = {
        "bid page (market-bid.js)": static_closure(manifest["market-bid.js"]),
        "seller's link (market-bid-seller.js)": static_closure(manifest["market-bid-seller.js"]),
        "invite page (market-invite.js)": static_closure(manifest["market-invite.js"]),
        "shell pages (main.js)": shell,
    }
    sizes = {}
    print("JavaScript each page loads up front (entry + static imports; gzip -9):")
    for name, files in pages.items():
        raw, packed = gzip_size(files)
        sizes[name] = packed
        print(
            f"  {name:38s} {packed / 1024:7.2f} KB gzip  ({packed:,} bytes; {raw / 1024:.1f} KB, "
            f"{len(files)} file{'s' if len(files) > 1 else ''})"
        )
    bid = sizes["bid page (market-bid.js)"]
    ok = bid <= 80 * 1024 and bid < sizes["shell pages (main.js)"]
    print(
        f"  bid page: {bid / 1024:.1f} KB gzip with React; target <= 80 KB and below the shell "
        f"pages: {'met' if ok else 'MISSED'}"
    )
    return ok


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bids", type=int, default=1000)
    parser.add_argument("--bidders", type=int, default=50)
    parser.add_argument("--adverts", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--worker-class", default="sync", choices=("sync", "gthread"))
    # gunicorn.conf.py's default (WEB_CONCURRENCY unset): two sync workers per core.
    parser.add_argument("--workers", type=int, default=(os.cpu_count() or 1) * 2)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument(
        "--raise-steps", type=int, default=0, help="bid up to n steps above the minimum (random)"
    )
    parser.add_argument("--sweep", action="store_true", help="try several worker set-ups")
    parser.add_argument("--proxy", action="store_true", help="bidders also send a maximum")
    parser.add_argument(
        "--fortunes", action="store_true", help="rounds of fortunes page + bids, with the ratio"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fortune-seconds", type=float, default=5.0)
    parser.add_argument("--js-only", action="store_true")
    args = parser.parse_args()
    if args.bids > 1000 or args.seconds > 120 or args.bidders > 50:
        parser.error("bounded: at most 1,000 bids, 50 bidders and 120 s")
    if not args.js_only:
        url = bench_database_url()
        if url.startswith(("postgresql", "postgres:")):
            ensure_database(url)
        prepare_database(url, args.items)
        print(f"public rate limit raised to {RATE_LIMIT} for the run (all bidders share 127.0.0.1)")
        setups = SWEEP if args.sweep else [(args.worker_class, args.workers, args.threads)]
        if args.fortunes:
            setup = setups[0]
            rounds = []
            for _ in range(args.rounds):
                fortunes = fortunes_run(url, args, *setup, PORTS[1])
                print(
                    f"fortunes page: {fortunes['rps']:.1f} req/s, p95 {fortunes['p95_ms']:.1f} ms, "
                    f"{fortunes['cpu_ms']:.2f} ms CPU per request"
                )
                bids = bid_run(url, args, *setup, PORTS[0])
                report(bids)
                rounds.append((fortunes, bids))
            ratio_table(rounds, url)
            setups = []
        results = []
        for n, (worker_class, workers, threads) in enumerate(setups):
            result = bid_run(url, args, worker_class, workers, threads, PORTS[n % 2])
            results.append(result)
            report(result)
        print(
            f"{args.bids} bid POSTs from {args.bidders} bidders on {args.adverts} adverts "
            f"(each bid the next bid{f' + 0..{args.raise_steps} steps' if args.raise_steps else ''}), "
            f"database {url.split('://')[0]} ({os.cpu_count()} cores)"
        )
    ok = js_sizes()
    sys.exit(0 if ok else 1)


def ensure_database(url: str) -> None:
    """Create the PostgreSQL database when it does not exist yet."""
    from sqlalchemy import create_engine, make_url, text

    parsed = make_url(url.replace("postgresql://", "postgresql+psycopg://", 1))
    admin = create_engine(parsed.set(database="postgres"))
    with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        found = conn.execute(
            text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": parsed.database}
        )
        if found.first() is None:
            conn.execute(text(f'CREATE DATABASE "{parsed.database}"'))
    admin.dispose()


if __name__ == "__main__":
    main()
