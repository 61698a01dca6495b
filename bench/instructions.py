"""Instructions per request, counted by valgrind's callgrind: the same count on a busy machine.

Each request kind runs in a process of its own under callgrind, twice: a few requests, then
more. The difference of the two totals over the difference of the counts is what one request
costs, with the start-up and the warm-up left out. The requests go through the WSGI call in
process (no HTTP, no gunicorn) against one SQLite database (the demo data, copied afresh for
every process), with jobs to RQ when REDIS_URL is set. The kinds: TechEmpower's fortunes page
(bench/bare_app.py), the shell pages, the 20-row state list, the overview, a bid that takes the
lead from no one, and a bid that outbids a rival (one outbid mail each).

    REDIS_URL=redis://127.0.0.1:6379/4 .venv/bin/python bench/instructions.py [--only bid,rival]

Instructions are not time: cache misses, system calls and waits (the commit's fsync, a lock,
Redis) are not in them. Use them to compare code before and after a change while the machine is
noisy, and bench/pages.py for the rates under load.
"""

import argparse
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from common import ROOT, prepare_database

BASE = ROOT / "instance" / "bench_instructions.db"
KINDS = {  # name: what one request is
    "fortunes": "GET /fortunes (bare app)",
    "/user": "GET /user",
    "/begcare": "GET /begcare",
    "state list": "GET /begcare/items/incoming",
    "overview": "GET /begcare/overview?division=all",
    "bid": "POST a bid (no one outbid)",
    "rival": "POST a bid that outbids a rival (an outbid mail)",
}
PATHS = {
    "/user": "/user",
    "/begcare": "/begcare",
    "state list": "/begcare/items/incoming",
    "overview": "/begcare/overview?division=all",
}
FEW, MORE = 20, 80  # requests in the two runs of each kind (after 20 to warm up)


def _environ(method: str, path: str, headers: dict, body: bytes = b"") -> dict:
    path, _, query = path.partition("?")
    environ = {
        "REQUEST_METHOD": method, "SCRIPT_NAME": "", "PATH_INFO": path, "QUERY_STRING": query,
        "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": "127.0.0.1", "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.version": (1, 0),
        "wsgi.multithread": False, "wsgi.multiprocess": True, "wsgi.run_once": False,
    }  # fmt: skip
    if body:
        environ["CONTENT_TYPE"], environ["CONTENT_LENGTH"] = "application/json", str(len(body))
    for name, value in headers.items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    return environ


def _call(app, environ: dict, answer: dict | None = None) -> tuple[int, bytes]:
    """The status and body of one request (and its headers in `answer`)."""
    answer = {} if answer is None else answer

    def start_response(status, headers, exc_info=None):
        answer["status"], answer["headers"] = int(status.split()[0]), headers

    body = b"".join(app(environ, start_response))
    return answer["status"], body


def child(kind: str, count: int, setup: dict) -> None:
    """Serve `count` requests of `kind` (after 20 to warm up) on a fresh copy of the database."""
    copy = BASE.with_name(f"bench_instructions_{os.getpid()}.db")
    shutil.copy(BASE, copy)
    url = f"sqlite:///{copy}"
    os.environ["DATABASE_URL"] = url
    try:
        if kind == "fortunes":
            import bare_app

            one = _page(bare_app.app, "/fortunes", {})
        else:
            from app import create_app

            app = create_app({"SQLALCHEMY_DATABASE_URI": url})
            if kind in ("bid", "rival"):
                one = _bids(app, kind, setup["bidders"])
            else:
                one = _page(app, PATHS[kind], {"Cookie": setup["cookie"]})
        for _ in range(20 + count):
            one()
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{copy}{suffix}").unlink(missing_ok=True)


def _page(app, path: str, headers: dict):
    def one():
        status, body = _call(app, _environ("GET", path, headers))
        assert status == 200, (path, status, body[:200])

    return one


def _bids(app, kind: str, bidders: list[str]):
    """One bidder (bid) or two of rival groups in turn (rival), each POSTing the next bid."""
    bidders = bidders[: 2 if kind == "rival" else 1]
    sessions = []
    for parts in bidders:  # each bidder's session cookie and CSRF token, as its bid page sets
        answer: dict = {}
        status, html = _call(app, _environ("GET", f"/market-bid/bid/{parts}", {}), answer)
        assert status == 200, status
        token = re.search(rb'<meta name="csrf-token" content="([^"]+)"', html).group(1).decode()
        cookie = next(v for k, v in answer["headers"] if k == "Set-Cookie").split(";", 1)[0]
        sessions.append((parts, token, cookie))
    state = {"turn": 0, "amount": 100_000}

    def one():
        parts, token, cookie = sessions[state["turn"] % len(sessions)]
        state["turn"] += 1
        body = json.dumps({"bid": state["amount"], "requestKey": uuid.uuid4().hex}).encode()
        headers = {"Cookie": cookie, "X-CSRFToken": token}
        status, answer = _call(
            app, _environ("POST", f"/api/_public/market-bid/{parts}", headers, body)
        )
        assert status == 201, (status, answer[:300])
        state["amount"] = json.loads(answer)["nextBid"]

    return one


def prepare() -> dict:
    """The database (demo data, the fortune table, a market with bidders) and the cookies."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{BASE}{suffix}").unlink(missing_ok=True)
    url = f"sqlite:///{BASE}"
    prepare_database(url, 0)
    from bare_app import create_fortunes

    from app import create_app
    from app.extensions import db
    from tests.market._race import seed_market

    create_fortunes(url)
    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        market = seed_market(users=3, adverts=1, tag=f"instructions{int(time.time())}")
        # bidders 0 and 2 are in two SEK groups: each bid of one outbids the other
        bidders = [
            f"{b.group_hash}/{b.advert_hash}/{b.link_hash}"
            for b in (market.bidders[0], market.bidders[2])
        ]
        db.session.remove()
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
    form = {"email": "seller@demo.test", "password": "demo-pass-1", "csrf_token": token}
    assert client.post("/login", data=form).status_code == 302, "sign-in failed"
    name = app.config["SESSION_COOKIE_NAME"]
    cookie = f"{name}={client.get_cookie(name).value}"
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    with sqlite3.connect(BASE) as connection:  # everything in the file the children copy
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return {"cookie": cookie, "bidders": bidders}


def count(kind: str, requests: int, setup_file: Path) -> int:
    """Instructions of one child process under callgrind."""
    result = subprocess.run(  # noqa: S603
        [
            "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
            sys.executable, __file__, "--child", kind, str(requests), str(setup_file),
        ],
        capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    found = re.search(r"Collected : (\d+)", result.stderr)
    if result.returncode or not found:
        raise RuntimeError(f"{kind}: {result.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help=f"comma-separated kinds of {', '.join(KINDS)}")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, requests, setup_file = args.child
        child(kind, int(requests), json.loads(Path(setup_file).read_text()))
        return
    if not shutil.which("valgrind"):
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    kinds = ["fortunes"] + [k for k in KINDS if k != "fortunes"]
    if args.only:
        kinds = ["fortunes"] + [k for k in args.only.split(",") if k != "fortunes"]
        unknown = set(kinds) - set(KINDS)
        assert not unknown, f"unknown kinds: {unknown}"
    setup_file = BASE.with_suffix(".json")
    setup_file.write_text(json.dumps(prepare()))
    runs = [(kind, requests) for kind in kinds for requests in (FEW, MORE)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        totals = dict(zip(runs, pool.map(lambda run: count(*run, setup_file), runs), strict=True))
    per = {kind: (totals[kind, MORE] - totals[kind, FEW]) / (MORE - FEW) for kind in kinds}
    print(
        f"\ninstructions per request (callgrind, in process, SQLite, "
        f"jobs {'to RQ' if os.environ.get('REDIS_URL') else 'inline'})"
    )
    print("| request | instructions | fortunes / request |")
    print("|---|---|---|")
    for kind in kinds:
        print(f"| {KINDS[kind]} | {per[kind] / 1e6:.2f} M | {per['fortunes'] / per[kind]:.2f} |")


if __name__ == "__main__":
    main()
