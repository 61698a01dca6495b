"""Issue 14: where a bid's time in PostgreSQL goes. The bid's one call (market_place_bid, the
app's own statement text, each call a transaction of its own as the app sends it) from one
process per advert, with no app server or HTTP around it, in three set-ups:

- "as the app commits": durable, every foreign key of advert_bid checked (what runs today);
- "commit not waited for": the same calls with `SET synchronous_commit = off`, so a commit
  returns before its WAL reaches the disk (a crash of the server may then lose the last bids it
  acknowledged; measured here only, nothing in the app does this);
- "no foreign keys on advert_bid": the same calls on a second copy whose advert_bid has none of
  its five foreign keys (measured here only).

The first two run on a copy of the database (CREATE DATABASE ... TEMPLATE) made at the same
moment as the third's, so that all three start from the same tables.

The set-ups take turns in every round (so the machine's load hits all three); each prints the
calls a second, the call's p50 and p95 wall time, PostgreSQL's CPU per call (every PostgreSQL
process), and its rate's ratio to the first set-up's in the same round (median over rounds).
Every call must take its bid: each bidder bids the next bid of its own advert.

    BENCH_DATABASE_URL=postgresql://dealercare:dealercare@127.0.0.1:5432/dc_cpu_bench \\
        .venv/bin/python bench/bid_commit.py [--adverts 2] [--rounds 5] [--seconds 3]
"""

import argparse
import multiprocessing
import re
import statistics
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from common import bench_database_url, postgres_cpu_seconds
from market_bids import percentile, seed
from sqlalchemy import make_url


@dataclass(frozen=True)
class Setup:
    name: str
    database: str  # the database's name
    options: str = ""  # libpq options for the bidders' connections


def conninfo(url: str, database: str, options: str = "") -> str:
    """A libpq connection string from the app's SQLAlchemy URL, for `database`, with libpq
    `options`."""
    from psycopg.conninfo import make_conninfo

    parsed = make_url(url).set(drivername="postgresql", database=database)
    extra = {"options": options} if options else {}
    return make_conninfo(parsed.render_as_string(hide_password=False), **extra)


def bidder(info: str, statement: str, params: dict, start, seconds: float, answers) -> None:
    """One bidder in a process of its own: the next bid on its advert as soon as the last is
    taken, for `seconds` after `start` is set. Puts (calls, refused, wall times) on `answers`,
    or what failed."""
    import psycopg
    from psycopg.rows import namedtuple_row

    try:
        with psycopg.connect(info, autocommit=True, row_factory=namedtuple_row) as conn:
            step, amount = conn.execute(
                "SELECT bid_step, COALESCE(highest_bid + bid_step, start_price) AS next FROM advert"
                " WHERE id = %(advert_id)s",
                params,
            ).fetchone()
            times, refused = [], 0  # each call its own transaction (autocommit), as the app's
            start.wait()
            end = time.perf_counter() + seconds
            while (began := time.perf_counter()) < end:
                call = params | {
                    "amount": amount,
                    "advert_amount": amount,
                    "now": datetime.now(UTC),
                }
                call["request_key"] = f"{params['link_id']}-{amount}"
                row = conn.execute(statement, call).fetchone()
                times.append(time.perf_counter() - began)
                if row.bid_id is None:
                    refused += 1
                amount += step
            answers.put((len(times), refused, times))
    except Exception as exc:  # the parent stops with it instead of waiting for an answer
        answers.put(repr(exc))


def run(url: str, setup: Setup, statement: str, bidders: list[dict], seconds: float) -> dict:
    context = multiprocessing.get_context("spawn")  # no connection inherited from this process
    start, answers = context.Event(), context.Queue()
    info = conninfo(url, setup.database, setup.options)
    processes = [
        context.Process(target=bidder, args=(info, statement, b, start, seconds, answers))
        for b in bidders
    ]
    for process in processes:
        process.start()
    time.sleep(1.5)  # connected and waiting
    cpu, wall = postgres_cpu_seconds(), time.perf_counter()
    start.set()
    results = [answers.get(timeout=seconds + 60) for _ in processes]
    wall, cpu = time.perf_counter() - wall, postgres_cpu_seconds() - cpu
    if failed := [r for r in results if isinstance(r, str)]:
        raise SystemExit(f"{setup.name}: {failed[0]}")
    for process in processes:
        process.join()
    calls = sum(r[0] for r in results)
    times = [t for r in results for t in r[2]]
    return {
        "rate": calls / wall,
        "p50": percentile(times, 0.5),
        "p95": percentile(times, 0.95),
        "cpu": cpu / calls * 1000,
        "refused": sum(r[1] for r in results),
    }


def copy_of(url: str, database: str, copy: str, foreign_keys: bool) -> None:
    """`copy`: a copy of `database` (CREATE DATABASE ... TEMPLATE), with or without the
    foreign keys of advert_bid."""
    import psycopg

    with psycopg.connect(conninfo(url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{copy}"')
        conn.execute(f'CREATE DATABASE "{copy}" TEMPLATE "{database}"')
    if foreign_keys:
        return
    with psycopg.connect(conninfo(url, copy), autocommit=True) as conn:
        keys = conn.execute(
            "SELECT conname FROM pg_constraint"
            " WHERE conrelid = 'advert_bid'::regclass AND contype = 'f'"
        ).fetchall()
        for (name,) in keys:
            conn.execute(f'ALTER TABLE advert_bid DROP CONSTRAINT "{name}"')
    print(f"{copy}: advert_bid without its {len(keys)} foreign keys")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--adverts", type=int, default=2, help="one bidder process on each")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0, help="per set-up and round")
    args = parser.parse_args()
    url = bench_database_url()
    if not url.startswith("postgresql"):
        raise SystemExit("BENCH_DATABASE_URL must name a PostgreSQL database")
    from flask_migrate import upgrade

    from app import create_app
    from app.extensions import db
    from app.market.bid_store import _PG_BID  # the statement the app sends
    from app.market.links import resolve_bid_link

    with create_app({"SQLALCHEMY_DATABASE_URI": url}).app_context():
        upgrade()
        db.engine.dispose()
    app, market = seed(url, f"commit{int(time.time() * 1000) % 10**9}", 4, args.adverts)
    params = []  # the call's parameters as the app computes them, one SEK bidder per advert
    with app.test_request_context():
        for advert_id in market.advert_ids:
            b = next(b for b in market.bidders if b.advert_id == advert_id and b.currency == "SEK")
            link = resolve_bid_link(b.group_hash, b.advert_hash, b.link_hash, fresh=True)
            params.append(
                {
                    "advert_id": link.advert_id, "link_id": link.link_id,
                    "group_id": link.group_id, "instance_id": link.instance_id,
                    "advert_currency": link.advert_currency, "currency": link.currency,
                    "link_rate": link.rate, "user_id": link.user_id,
                    "rate": link.rates()[link.currency],  # 1: the bid is its advert amount
                }
            )  # fmt: skip
        db.session.remove()
        db.engine.dispose()
    statement = re.sub(r":(\w+)", r"%(\1)s", _PG_BID.text)
    database = make_url(url).database
    # Two copies made at once, so that the tables they start from are the same.
    kept, dropped = f"{database}_fk", f"{database}_nofk"
    copy_of(url, database, kept, foreign_keys=True)
    copy_of(url, database, dropped, foreign_keys=False)
    setups = [
        Setup("as the app commits", kept),
        Setup("commit not waited for", kept, "-c synchronous_commit=off"),
        Setup("no foreign keys on advert_bid", dropped),
    ]
    rounds: dict[str, list[dict]] = {s.name: [] for s in setups}
    for n in range(args.rounds):
        for setup in setups:
            rounds[setup.name].append(run(url, setup, statement, params, args.seconds))
        print(f"round {n + 1}: " + ", ".join(f"{r[-1]['rate']:.0f}/s" for r in rounds.values()))
    first = rounds[setups[0].name]
    print(
        f"\nmarket_place_bid, {len(params)} bidders (one process and advert each),"
        f" {args.rounds} rounds x {args.seconds:g} s per set-up\n"
        "| set-up | calls/s | p50 ms | p95 ms | PostgreSQL's CPU ms/call | ratio to the first |\n"
        "|---|---|---|---|---|---|"
    )
    for setup in setups:
        runs = rounds[setup.name]
        refused = sum(r["refused"] for r in runs)
        if refused:
            raise SystemExit(f"{setup.name}: {refused} bids refused")
        ratio = statistics.median(r["rate"] / f["rate"] for r, f in zip(runs, first, strict=True))
        print(
            f"| {setup.name} | {statistics.median(r['rate'] for r in runs):.0f}"
            f" | {statistics.median(r['p50'] for r in runs):.3f}"
            f" | {statistics.median(r['p95'] for r in runs):.3f}"
            f" | {statistics.median(r['cpu'] for r in runs):.3f} | {ratio:.2f} |"
        )
    import psycopg

    with psycopg.connect(conninfo(url, "postgres"), autocommit=True) as conn:
        for copy in (kept, dropped):
            conn.execute(f'DROP DATABASE "{copy}"')


if __name__ == "__main__":
    main()
