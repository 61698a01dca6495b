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
# Issue 30: the overview filtered by a tag and by a parking location, beside the plain overview
# in the same run (ids filled in by label_some once the data is there).
LABELLED = {
    "overview, tag filter": "/begcare/overview?division=all&advancedFilter[tag]={tag}",
    "overview, parking filter": "/begcare/overview?division=all&advancedFilter[parkingLocation]={place}",
    "overview, tag and parking": "/begcare/overview?division=all&advancedFilter[tag]={tag}"
    "&advancedFilter[parkingLocation]={place}",
}


def analyze(url: str) -> None:
    """Fresh planner statistics after the bulk load, as autovacuum would soon give a live
    database (without them PostgreSQL plans for an empty table)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE" if engine.dialect.name == "postgresql" else "ANALYZE"))
    engine.dispose()


def label_some(url: str) -> dict:
    """Tag every 7th and park every 5th of the generated vehicles (the first instance's first
    tag and begcare parking location); the ids for LABELLED's paths."""
    from sqlalchemy import select, text

    from app import create_app
    from app.core.models import Instance
    from app.core.settings import Tag
    from app.extensions import db
    from app.preparation.models import Location

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        instance = db.session.scalars(select(Instance).order_by(Instance.id)).first()
        ids = {
            "tag": db.session.scalar(
                select(Tag.id)
                .where(Tag.instance_id == instance.id)
                .order_by(Tag.id)
                .execution_options(all_instances=True)
            ),
            "place": db.session.scalar(
                select(Location.id)
                .where(Location.instance_id == instance.id, Location.kind == "parking")
                .where(Location.module == "begcare")
                .order_by(Location.id)
                .execution_options(all_instances=True)
            ),
        }
        generated = "regno LIKE 'BEN%' AND instance_id = :instance"
        db.session.execute(
            text(f"DELETE FROM item_tag WHERE tag_id = :tag AND item_id IN "
                 f"(SELECT id FROM preparation_item WHERE {generated})"),
            {"tag": ids["tag"], "instance": instance.id},
        )  # fmt: skip
        db.session.execute(
            text(f"INSERT INTO item_tag (instance_id, item_id, tag_id) SELECT instance_id, id, :tag "
                 f"FROM preparation_item WHERE {generated} AND id % 7 = 0"),
            {"tag": ids["tag"], "instance": instance.id},
        )  # fmt: skip
        db.session.execute(
            text(f"UPDATE preparation_item SET parking_location_id = :place "
                 f"WHERE {generated} AND module = 'begcare' AND id % 5 = 0"),
            {"place": ids["place"], "instance": instance.id},
        )  # fmt: skip
        db.session.commit()
    return ids


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
    ids = label_some(url)
    analyze(url)
    pages = {**PAGES, **{name: path.format(**ids) for name, path in LABELLED.items()}}
    env = {"DATABASE_URL": url, "PYTHONPATH": "."}
    results = {}
    with gunicorn("wsgi:app", args.port, env, workers=args.workers):
        cookie = sign_in(args.port, "seller@demo.test")
        for name, path in pages.items():
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
    plain = results["overview"]["p95_ms"]
    for name in LABELLED:
        print(f"{name}: p95 {results[name]['p95_ms'] / plain:.2f}x the overview's (goal <= 1.5x)")


if __name__ == "__main__":
    main()
