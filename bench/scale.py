"""Issue 34: how each page's cost grows with the data (the growth table of bench/SCALE.md).

For each size (vehicles) a PostgreSQL database of its own is filled by bench/scale_data.py
(or reused with --reuse), served by gunicorn (2 sync workers, as bench/preparation.py), and
every page is requested one after another by one signed-in seller (one keep-alive client, the
response time of a single user) for --seconds: p50 and p95. The statements per request are
counted in-process (the test client, SQLAlchemy's before_cursor_execute) on the same database.
The bid call is a bidder's POST /api/_public/market-bid/... on an open advert, each bid the
next minimum. Goal: p95 at the biggest size within 2x of the smallest's, and under 250 ms.

    .venv/bin/python bench/scale.py --sizes 10000,100000 \\
        --server postgresql://dealercare:dealercare@127.0.0.1:5432 --prefix h_scale
"""

import argparse
import json
import os
import platform
import time
from collections import namedtuple
from datetime import UTC, datetime
from pathlib import Path

from common import ROOT, gunicorn, load, sign_in, signed_in_client, summary, write_block
from dashboard import bench_dashboard, time_cold
from market_bids import _json, open_bid_page
from scale_data import generate, sqlalchemy_url

PAGES = {
    "overview": "/begcare/overview?division=all",
    "overview, filtered": "/begcare/overview?division=all&enum[state]=4&brand=Kia&warning=1",
    "overview, searched regno": "/begcare/overview?division=all&searchphrase=SC00012",
    "overview, searched model": "/begcare/overview?division=all&searchphrase=Volvo+V60",
    **{
        f"state list {segment}": f"/begcare/items/{segment}"
        for segment in ("incoming", "awaiting", "list", "parked", "showroom", "sold", "archived")
    },
    "menu counts": "/api/me/menu-counts",
    "dashboard page": "/begcare/dashboard",
    "preparation statistics": "/begcare/statistics",
    "market statistics": "/market/statistics",
    "market list": "/market/adverts/list",
}
Bidder = namedtuple("Bidder", "group_hash advert_hash link_hash currency")


def database_name(prefix: str, size: int) -> str:
    """A size's database: h_scale_10k, h_scale_100k, h_scale_1m."""
    if size % 1_000_000 == 0:
        return f"{prefix}_{size // 1_000_000}m"
    return f"{prefix}_{size // 1000}k"


def make_database(server: str, name: str, vehicles: int) -> str:
    """An empty database `name` on `server`, filled by the generator; returns its URL."""
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    url = f"{server}/{name}"
    generate(url, vehicles)
    return url


def targets(url: str) -> tuple[dict, Bidder, tuple[str, list]]:
    """The size's own paths (a vehicle, the seller's dashboard widgets), an open advert's
    bidder and (the seller's login id, [(widget name, id)]) of bench/dashboard.py's twelve."""
    from sqlalchemy import select

    from app import create_app
    from app.extensions import db
    from app.market.models import Advert, InstanceGroup, MarketLink
    from app.preparation.models import PreparationItem
    from app.preparation.states import BY_ID

    app = create_app({"SQLALCHEMY_DATABASE_URI": sqlalchemy_url(url)})
    every = {"all_instances": True}
    seller, widgets = bench_dashboard(app)  # the seller's begcare dashboard: the twelve
    with app.app_context():
        item, state = db.session.execute(
            select(PreparationItem.id, PreparationItem.state).where(
                PreparationItem.regno == "SC0004321"
            ),
            execution_options=every,
        ).one()
        link, advert, group = db.session.execute(
            select(MarketLink, Advert, InstanceGroup)
            .join(Advert, Advert.id == MarketLink.advert_id)
            .join(InstanceGroup, InstanceGroup.id == MarketLink.group_id)
            .where(Advert.status == "published", Advert.regno.like("SC%"), MarketLink.kind == "bid")
            .order_by(Advert.ends_at.desc())
            .limit(1),
            execution_options=every,
        ).one()
        bidder = Bidder(group.hash, advert.hash, link.hash, group.currency)
        db.engine.dispose()
    paths = dict(PAGES)
    paths["vehicle page"] = f"/begcare/items/{BY_ID[state].segment}/{item}"
    paths.update(
        {f"dashboard widget: {title}": f"/api/dashboard-widgets/{wid}" for title, wid in widgets}
    )
    return paths, bidder, (seller, widgets)


def seller_client(url: str):
    """(app, test client signed in as the demo seller, engine) on the database at `url`."""
    from app import create_app
    from app.extensions import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": sqlalchemy_url(url)})
    client = signed_in_client(app)
    with app.app_context():
        return app, client, db.engine


def statements(url: str, paths: dict) -> dict[str, int]:
    """Statements each page sends (its second request: caches as a served page has them);
    a page that redirects (the vehicle page to its tab) is measured where it leads."""
    from sqlalchemy import event

    from app.extensions import db

    app, client, engine = seller_client(url)
    counts = {}
    for name, path in paths.items():
        final = client.get(path, follow_redirects=True).request.path
        paths[name] = final + (
            path.partition("?")[1] + path.partition("?")[2]
            if final == path.partition("?")[0]
            else ""
        )
        sent = [0]

        def count(*_args, sent=sent):
            sent[0] += 1

        event.listen(engine, "before_cursor_execute", count)
        client.get(paths[name])
        event.remove(engine, "before_cursor_execute", count)
        counts[name] = sent[0]
    with app.app_context():
        db.engine.dispose()
    return counts


def bids(port: int, bidder: Bidder, seconds: float) -> dict:
    """One bidder's bids, each the next minimum, one after another."""
    import http.client
    import uuid

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers, amount = open_bid_page(conn, bidder)
    post = f"/api/_public/market-bid/{bidder.group_hash}/{bidder.advert_hash}/{bidder.link_hash}"
    latencies, errors = [], 0
    stop = time.perf_counter() + seconds
    while time.perf_counter() < stop:
        start = time.perf_counter()
        status, data = _json(
            conn, "POST", post, headers, {"bid": amount, "requestKey": uuid.uuid4().hex}
        )
        latencies.append(time.perf_counter() - start)
        answer = json.loads(data) if data[:1] == b"{" else {}
        if status != 201:
            errors += 1
        amount = answer.get("nextBid") or amount + 1000
    latencies.sort()
    return summary(latencies, errors)


def measure(url: str, port: int, seconds: float) -> dict[str, dict]:
    from app import create_app
    from app.extensions import db

    paths, bidder, (_seller, widgets) = targets(url)
    sent = statements(url, paths)
    env = {
        "DATABASE_URL": sqlalchemy_url(url),
        "PYTHONPATH": ".",
        "PUBLIC_RATE_LIMIT": "1000000/60",
    }
    results = {}
    with gunicorn("wsgi:app", port, env, workers=2):
        cookie = sign_in(port, "seller@demo.test")
        for name, path in paths.items():
            load(port, path, cookie=cookie, clients=1, seconds=0.3)  # warm up
            result = load(port, path, cookie=cookie, clients=1, seconds=seconds)
            result.update(summary(result.pop("latencies"), result["errors"]))
            results[name] = {**result, "statements": sent[name]}
            print(f"  {name:45s} p50 {result['median_ms'] or 0:7.1f}  p95 {result['p95_ms'] or 0:7.1f} ms  {sent[name]:3d} statements", flush=True)  # fmt: skip
        results["bid call"] = {**bids(port, bidder, seconds), "statements": None}
    # Each widget's call in process with the value caches emptied before every request: what
    # the first viewer after the minute waits for (served, the value is mostly kept).
    app = create_app({"SQLALCHEMY_DATABASE_URI": sqlalchemy_url(url)})
    cold = time_cold(app, "seller@demo.test", widgets, rounds=5)
    results.update({f"dashboard widget, cold: {name}": cold[name] for name, _id in widgets})
    with app.app_context():
        db.engine.dispose()
    return results


def write(path, sizes: list[int], table: dict[int, dict], command: str, loads: dict) -> None:
    small, large = sizes[0], sizes[-1]
    lines = [
        "| page | " + " | ".join(f"p50 / p95 ms at {s:,}" for s in sizes)
        + " | statements | growth p95 | meets goal |",
        "|---|" + "---|" * len(sizes) + "---|---|---|",
    ]  # fmt: skip
    for name in table[small]:
        cells, growth, meets = [], "", ""
        for size in sizes:
            r = table[size].get(name, {})
            cells.append(f"{r['median_ms']:.1f} / {r['p95_ms']:.1f}" if r.get("p95_ms") else "–")
        a, b = table[small][name].get("p95_ms"), table[large].get(name, {}).get("p95_ms")
        if a and b:
            growth = f"{b / a:.2f}×"
            meets = "yes" if b <= 2 * a and b < 250 else "**no**"
        stmts = " → ".join(str(table[s].get(name, {}).get("statements") or "–") for s in sizes)
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {stmts} | {growth} | {meets} |")
    loaded = "\n".join(f"- {size:,} vehicles: loaded in {loads[size]:.0f} s" for size in loads)
    marker = "<!-- growth table -->"
    block = (
        f"{marker}\nMeasured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.node()} "
        f"({platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f} at the end), PostgreSQL, gunicorn 2 sync workers, one client.\n\n    {command}\n\n{loaded}\n\n"
        + "\n".join(lines) + f"\n{marker}"
    )  # fmt: skip
    write_block(path, marker, block)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--server", default="postgresql://dealercare:dealercare@127.0.0.1:5432")
    parser.add_argument("--prefix", default="h_scale")
    parser.add_argument("--reuse", action="store_true", help="the sizes' databases are filled")
    parser.add_argument("--seconds", type=float, default=3.0, help="per page")
    parser.add_argument("--port", type=int, default=5934)
    parser.add_argument(
        "--results",
        help="a JSON file the sizes' results are added to; the table shows every size in it "
        "(sizes measured in separate runs, e.g. 1M once it is loaded)",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    table, loads = {}, {}
    for size in sizes:
        name = database_name(args.prefix, size)
        started = time.perf_counter()
        url = f"{args.server}/{name}" if args.reuse else make_database(args.server, name, size)
        if not args.reuse:
            loads[size] = time.perf_counter() - started
        print(f"{size} vehicles ({name})", flush=True)
        table[size] = measure(url, args.port, args.seconds)
    command = (
        ".venv/bin/python bench/scale.py "
        + " ".join(
            f"--{k}={v}" for k, v in vars(args).items() if k not in ("server", "reuse") and v
        )
        + (" --reuse" if args.reuse else "")
    )
    if args.results:
        path = Path(args.results)
        saved = json.loads(path.read_text()) if path.exists() else {}
        saved.update({str(size): {"results": table[size], "command": command} for size in sizes})
        path.write_text(json.dumps(saved, indent=1))
        sizes = sorted(int(size) for size in saved)
        table = {int(size): entry["results"] for size, entry in saved.items()}
        command = "\n    ".join(dict.fromkeys(saved[str(size)]["command"] for size in sizes))
    write(
        ROOT / "bench" / "SCALE.md",
        sizes,
        table,
        command,
        loads,
    )


if __name__ == "__main__":
    main()
