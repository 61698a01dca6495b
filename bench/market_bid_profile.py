"""Where a bid POST's time goes: one bidder, in process (Flask test client), no concurrency.

Prints the SQL statements of one POST, the CPU time per POST and per currency-table GET, and the
app functions with the most CPU (cProfile on the process clock). Use it before and after a change
to the bid path; bench/market_bids.py measures the server under load.

    BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/dc_bench \\
        .venv/bin/python bench/market_bid_profile.py
"""

import argparse
import cProfile
import os
import pstats
import re
import time
import uuid

from common import bench_database_url, postgres_cpu_seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bids", type=int, default=300)
    parser.add_argument(
        "--rivals", action="store_true",
        help="two companies bid in turn, so every bid outbids the other (an outbid mail each)",
    )  # fmt: skip
    args = parser.parse_args()
    url = bench_database_url()
    os.environ["DATABASE_URL"] = url
    os.environ["PUBLIC_RATE_LIMIT"] = "1000000/60"
    from flask_migrate import upgrade
    from sqlalchemy import event

    from app import create_app
    from app.extensions import db
    from tests.market._race import seed_market

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        upgrade()
        # Three bidders in three groups: 0 and 2 both bid in SEK (1 is the NOK group).
        market = seed_market(users=3, adverts=1, tag=f"profile{int(time.time() * 1000) % 10**9}")
        bidders = [market.bidders[0], market.bidders[2]] if args.rivals else market.bidders[:1]
        statements: list[str] = []
        event.listen(db.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    sessions = []  # per bidder: its client (cookie), link parts and CSRF token
    for bidder in bidders:
        client = app.test_client()
        parts = f"{bidder.group_hash}/{bidder.advert_hash}/{bidder.link_hash}"
        html = client.get(f"/market-bid/bid/{parts}").get_data(as_text=True)
        token = re.search(r'<meta name="csrf-token" content="([^"]+)"', html).group(1)
        sessions.append((client, parts, token))
    client, parts, _token = sessions[0]
    amount, turn = [0], [0]

    def bid() -> None:
        bidder_client, bidder_parts, token = sessions[turn[0] % len(sessions)]
        turn[0] += 1
        answer = bidder_client.post(
            f"/api/_public/market-bid/{bidder_parts}",
            json={"bid": amount[0], "requestKey": uuid.uuid4().hex},
            headers={"X-CSRFToken": token},
        )
        assert answer.status_code == 201, answer.get_data(as_text=True)[:300]
        amount[0] = answer.get_json()["nextBid"]

    def currencies() -> None:
        assert client.get(f"/api/_public/market-advert/currencies/{parts}").status_code == 200

    amount[0] = 100_000
    for _ in range(20):  # warm up: compiled statement caches, prepared statements
        bid()
    statements.clear()
    bid()
    print(f"one bid POST runs {len(statements)} SQL statements (BEGIN/COMMIT not counted):")
    for statement in statements:
        print("   ", " ".join(statement.split())[:110])
    # TechEmpower's fortunes page in the same process, for the CPU ratio (issue 14: bids at
    # >= 0.8 of its rate; on a CPU-bound server the rates' ratio is at most the CPUs' ratio).
    import bare_app

    bare_app.create_fortunes(url)
    fortunes_client = bare_app.app.test_client()

    def fortunes() -> None:
        assert fortunes_client.get("/fortunes").status_code == 200

    def server_cpu() -> float:
        return postgres_cpu_seconds() if url.startswith("postgresql") else 0.0

    spent = {}
    for name, call in (
        ("bid POST", bid),
        ("currency GET", currencies),
        ("fortunes page", fortunes),
    ):
        cpu, wall, server = time.process_time(), time.perf_counter(), server_cpu()
        for _ in range(args.bids):
            call()
        spent[name] = (time.process_time() - cpu) / args.bids * 1000
        on_server = (server_cpu() - server) / args.bids * 1000
        print(
            f"{name:13s} {spent[name]:6.2f} ms CPU, "
            f"{(time.perf_counter() - wall) / args.bids * 1000:6.2f} ms wall per call "
            f"(in process, one client, {args.bids} calls)"
            + (f", PostgreSQL's CPU {on_server:.2f} ms" if url.startswith("postgresql") else "")
        )
    print(
        f"CPU ratio fortunes page / bid POST: {spent['fortunes page'] / spent['bid POST']:.2f} "
        "(the most the bid rate can reach of the fortunes rate when the CPU is the limit)"
    )
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    for _ in range(args.bids):
        bid()
    profile.disable()
    print("bid POST, app functions by cumulative CPU (profiled, so slower than above):")
    pstats.Stats(profile).sort_stats("cumulative").print_stats(r"/app/", 20)
    if os.environ.get("PROFILE_DUMP"):  # for pstats' callers and callees
        profile.dump_stats(os.environ["PROFILE_DUMP"])
    if os.environ.get("PROFILE_ALL"):
        pstats.Stats(profile).sort_stats(os.environ["PROFILE_ALL"]).print_stats(45)


if __name__ == "__main__":
    main()
