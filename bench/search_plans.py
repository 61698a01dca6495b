"""The overview's search with and without its statements planned for their own parameters
(app.core.pgconnection.plan_for_parameters), side by side on one scale database.

In process (the Flask test client, one signed-in seller, one connection that keeps its
statements prepared as a gunicorn worker's does): for each variant a fresh connection, then
--requests searches one after another; p50/p95 of the requests after the tenth (from then on
PostgreSQL may use its generic plan for a statement prepared five runs before). The variants
alternate --rounds times.

    .venv/bin/python bench/search_plans.py --database sc_1m
"""

import argparse
import statistics
import time

from scale import seller_client

SERVER = "postgresql://dealercare:dealercare@127.0.0.1:5432"
PATH = "/begcare/overview?division=all&searchphrase=Volvo+V60"


def run(url: str, requests: int, generic: bool) -> list[float]:
    import app.preparation.queries as queries

    kept = queries.plan_for_parameters
    if generic:
        queries.plan_for_parameters = lambda _session: None
    try:
        app, client, engine = seller_client(url)
        times = []
        for _ in range(requests):
            started = time.perf_counter()
            assert client.get(PATH).status_code == 200
            times.append((time.perf_counter() - started) * 1000)
        engine.dispose()
    finally:
        queries.plan_for_parameters = kept
    return times[10:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", default="sc_1m")
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    url = f"{SERVER}/{args.database}"
    found = {"generic plan allowed (before)": [], "planned for its parameters (after)": []}
    for _ in range(args.rounds):
        for name, generic in zip(found, (True, False), strict=True):
            found[name] += run(url, args.requests, generic)
    print(f"{args.database}: {PATH}")
    for name, times in found.items():
        times.sort()
        p95 = times[int(len(times) * 0.95) - 1]
        print(f"  {name:36s} p50 {statistics.median(times):6.1f}  p95 {p95:6.1f} ms  ({len(times)} requests)")  # fmt: skip


if __name__ == "__main__":
    main()
