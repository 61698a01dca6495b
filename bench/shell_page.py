"""Issue 3 benchmark: a real shell page over 100,000 vehicles against the bare-page ceiling.

Both are served in the same run by the same gunicorn set-up (4 sync workers on 127.0.0.1) and
loaded from keep-alive connections for a bounded time. Target: the shell page reaches at least
half of the bare page's request rate.

    .venv/bin/python bench/shell_page.py            # SQLite under instance/bench.db
    BENCH_DATABASE_URL=postgresql://... .venv/bin/python bench/shell_page.py
"""

import argparse

from common import bench_database_url, gunicorn, load, prepare_database, report, sign_in

# The shell around a module's start page (menus, counts, selectors), and a full data page.
PAGES = {
    "shell page /begcare": "/begcare",
    "shell page /user": "/user",
    "state list /begcare/items/list": "/begcare/items/list",
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--items", type=int, default=100_000)
    args = parser.parse_args()
    url = bench_database_url()
    prepare_database(url, args.items)
    env = {"DATABASE_URL": url, "PYTHONPATH": "."}
    with gunicorn("bench.bare_app:app", 58611, env):
        bare = load(58611, "/bare", clients=args.clients, seconds=args.seconds)
    with gunicorn("wsgi:app", 58612, env):
        cookie = sign_in(58612, "seller@demo.test")
        results = {}
        for name, path in PAGES.items():
            load(58612, path, cookie=cookie, clients=2, seconds=1)  # warm up
            results[name] = load(
                58612, path, cookie=cookie, clients=args.clients, seconds=args.seconds
            )
    report("bare page (12 rows)", bare)
    for name, result in results.items():
        report(name, result)
        print(f"  ratio to the bare page: {result['rps'] / bare['rps']:.2f} (target >= 0.50)")


if __name__ == "__main__":
    main()
