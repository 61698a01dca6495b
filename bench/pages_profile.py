"""Issue 14, in process: Python function calls and time per request of the benchmark's pages.

Counting calls is repeatable on a busy machine where rates are not. Signs the demo seller in
with Flask's test client, requests each page a few times to warm up, then profiles one request
with cProfile (function calls, and the top functions by cumulative time with --top N) and
times --repeat more without the profiler. --html DIR writes each page's HTML with the CSRF
tokens masked, to compare the output of two versions byte for byte.

    .venv/bin/python bench/pages_profile.py                      # SQLite, instance/bench_pages.db
    .venv/bin/python bench/pages_profile.py --top 40 --page /user
    .venv/bin/python bench/pages_profile.py --html /tmp/after
"""

import argparse
import cProfile
import io
import os
import pstats
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PAGES = ["/user", "/begcare", "/begcare/items/incoming", "/begcare/overview?division=all"]
TOKEN = re.compile(r'<meta name="csrf-token" content="([^"]+)"')


def masked(html: str) -> str:
    """The page with every copy of its CSRF token (a new one per session) replaced."""
    found = TOKEN.search(html)
    return html.replace(found.group(1), "(csrf)") if found else html


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--page", action="append", help="a path (default: the four pages)")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--top", type=int, default=0, help="print the N costliest functions")
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument(
        "--callees", help="with --top: print the callees of functions matching this"
    )
    parser.add_argument("--html", help="write each page's HTML (CSRF masked) into this folder")
    parser.add_argument("--user", default="seller@demo.test")
    parser.add_argument("--locale", help="Accept-Language of the requests")
    args = parser.parse_args()
    url = (
        os.environ.get("BENCH_DATABASE_URL") or f"sqlite:///{ROOT / 'instance' / 'bench_pages.db'}"
    )
    os.environ["DATABASE_URL"] = url
    from app import create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    client = app.test_client()
    headers = {"Accept-Language": args.locale} if args.locale else {}
    page = client.get("/login", headers=headers).get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
    answer = client.post(
        "/login",
        data={"email": args.user, "password": "demo-pass-1", "csrf_token": token},
        headers=headers,
    )
    assert answer.status_code == 302, answer.status_code
    print(f"{'page':40s} {'calls':>8s} {'ms/req':>8s}")
    for path in args.page or PAGES:
        for _ in range(5):
            response = client.get(path, headers=headers)
            assert response.status_code == 200, (path, response.status_code)
        if args.html:
            folder = Path(args.html)
            folder.mkdir(parents=True, exist_ok=True)
            name = re.sub(r"[^A-Za-z0-9]+", "_", path).strip("_") + ".html"
            (folder / name).write_text(masked(response.get_data(as_text=True)))
        profile = cProfile.Profile()
        profile.enable()
        client.get(path, headers=headers)
        profile.disable()
        stats = pstats.Stats(profile)
        if args.top:  # the costliest functions over --repeat profiled requests
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(args.repeat):
                client.get(path, headers=headers)
            profile.disable()
        start = time.process_time()
        for _ in range(args.repeat):
            client.get(path, headers=headers)
        ms = (time.process_time() - start) / args.repeat * 1000
        print(f"{path:40s} {stats.total_calls:8d} {ms:8.2f}")
        if args.top:
            out = io.StringIO()
            found = pstats.Stats(profile, stream=out).sort_stats(args.sort)
            if args.callees:
                found.print_callees(args.callees)
            else:
                found.print_stats(args.top)
            print(out.getvalue())


if __name__ == "__main__":
    main()
