"""Issue 4 benchmark: the overview, a state list and the menu counts over 100,000 vehicles.

Pages are served by gunicorn (sync workers on 127.0.0.1) and requested one after another from
keep-alive connections (--clients 1, the default, measures response time rather than
throughput); the menu counts are timed in-process, as the shell calls them on every page.
Reports the median and 95th percentile. Target: overview and state list p95 <= 150 ms on
PostgreSQL.

    .venv/bin/python bench/preparation.py            # SQLite under instance/bench.db
    BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/dealercare_bench \\
        .venv/bin/python bench/preparation.py
"""

import argparse
import statistics
import time

from common import bench_database_url, gunicorn, load, prepare_database, report, sign_in

PAGES = {
    "overview": "/begcare/overview?division=all",
    "overview, search regno": "/begcare/overview?division=all&searchphrase=BEN0123",
    "overview, search model": "/begcare/overview?division=all&searchphrase=Volvo+V60",
    "overview, filters": "/begcare/overview?division=all&enum[state]=4&brand=Kia&warning=1",
    "overview, sort model": "/begcare/overview?division=all&sort=model",
    "state list": "/begcare/items/list",
    "state list, sort regno": "/begcare/items/list?sort=regno",
    "state list, page 100": "/begcare/items/list?page=100",
}


def analyze(url: str) -> None:
    """Fresh planner statistics after the bulk load, as autovacuum would soon give a live
    database (without them PostgreSQL plans for an empty table)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE" if engine.dialect.name == "postgresql" else "ANALYZE"))
    engine.dispose()


def time_counts(url: str, rounds: int) -> dict:
    """Median and p95 of services.state_counts for all divisions of the first instance."""
    from sqlalchemy import select

    from app import create_app
    from app.core.models import Division, Instance
    from app.core.tenancy import activate
    from app.extensions import db
    from app.preparation.services import state_counts

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.test_request_context():
        instance = db.session.scalars(select(Instance).order_by(Instance.id)).first()
        activate(instance.id)
        divisions = db.session.scalars(select(Division.id)).all()
        latencies = []
        for _ in range(rounds):
            start = time.perf_counter()
            state_counts(divisions)
            db.session.rollback()  # a fresh transaction, as each request has
            latencies.append(time.perf_counter() - start)
        db.session.remove()
    latencies.sort()
    return {
        "requests": rounds,
        "errors": 0,
        "rps": rounds / sum(latencies),
        "median_ms": statistics.median(latencies) * 1000,
        "p95_ms": latencies[int(rounds * 0.95) - 1] * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0, help="per page")
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--port", type=int, default=5741)
    args = parser.parse_args()
    url = bench_database_url()
    prepare_database(url, args.items)
    analyze(url)
    env = {"DATABASE_URL": url, "PYTHONPATH": "."}
    results = {}
    with gunicorn("wsgi:app", args.port, env, workers=args.workers):
        cookie = sign_in(args.port, "seller@demo.test")
        for name, path in PAGES.items():
            load(args.port, path, cookie=cookie, clients=1, seconds=0.5)  # warm up
            results[name] = load(
                args.port, path, cookie=cookie, clients=args.clients, seconds=args.seconds
            )
    counts = time_counts(url, 500)
    print(f"\n{args.items} vehicles, {url.split('://')[0]}, {args.clients} client(s)")
    for name, result in results.items():
        report(name, result)
    report("menu counts (in-process)", counts)
    slow = [n for n, r in results.items() if r["errors"] or r["p95_ms"] > 150]
    print("target p95 <= 150 ms:", "met" if not slow else f"missed by {', '.join(slow)}")


if __name__ == "__main__":
    main()
