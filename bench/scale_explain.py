"""Issue 34: why a page of the growth table is slow at a size: its statements, slowest first,
each with PostgreSQL's EXPLAIN (ANALYZE, BUFFERS).

The demo seller opens the page through the test client (twice: the second request, with the
caches a served page has, is the one recorded; with --cold the first); each statement it sent is then run again under
EXPLAIN ANALYZE (inside a transaction rolled back, so a write changes nothing).

    .venv/bin/python bench/scale_explain.py --database h_scale_1m \\
        "/begcare/overview?division=all&searchphrase=SC00012" --top 2
"""

import argparse
import time

from scale import seller_client

SERVER = "postgresql://dealercare:dealercare@127.0.0.1:5432"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", default="h_scale_1m")
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3, help="requests timed after the first")
    parser.add_argument("--cold", action="store_true", help="record the first request's")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    from sqlalchemy import event, text

    url = f"{SERVER}/{args.database}"
    app, client, engine = seller_client(url)
    for path in args.paths:
        sent = []

        def record(_conn, _cursor, statement, parameters, _context, _many, sent=sent):
            sent.append((statement, parameters))

        started = time.perf_counter()
        if args.cold:
            event.listen(engine, "before_cursor_execute", record)
        client.get(path, follow_redirects=True)
        cold = (time.perf_counter() - started) * 1000
        if not args.cold:
            event.listen(engine, "before_cursor_execute", record)
        started = time.perf_counter()
        client.get(path, follow_redirects=True)
        served = (time.perf_counter() - started) * 1000
        event.remove(engine, "before_cursor_execute", record)
        again = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            client.get(path, follow_redirects=True)
            again.append((time.perf_counter() - started) * 1000)
        timed = []
        with engine.connect() as conn:
            for statement, parameters in sent:
                if not statement.lstrip().upper().startswith(("SELECT", "WITH")):
                    continue
                tx = conn.begin()
                rows = conn.exec_driver_sql(
                    "EXPLAIN (ANALYZE, BUFFERS) " + statement, parameters
                ).all()
                tx.rollback()
                plan = "\n".join(r[0] for r in rows)
                took = float(plan.rsplit("Execution Time: ", 1)[1].split(" ")[0])
                timed.append((took, statement, plan))
            conn.execute(text("SELECT 1"))
        timed.sort(key=lambda t: -t[0])
        total = sum(t[0] for t in timed)
        print(f"== {path}: {len(sent)} statements, {total:.1f} ms in the database (EXPLAIN "
              f"ANALYZE); served in-process in {cold:.0f} ms (first), {served:.0f} ms, then "
              f"{', '.join(f'{ms:.0f}' for ms in again)} ms")  # fmt: skip
        for took, statement, plan in timed[: args.top]:
            print(f"-- {took:.1f} ms\n{statement}\n{plan}\n")
    engine.dispose()
    del app


if __name__ == "__main__":
    main()
