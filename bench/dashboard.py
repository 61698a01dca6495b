"""Issue 11 benchmark: a dashboard of 12 widgets over 100,000 vehicles.

Each widget's GET dashboard-widgets/{id} is timed in-process (the Flask test client, so the
whole request path) with the value cache emptied before every request: what the first viewer
after a vehicle moves waits for. Then the same calls through gunicorn with the cache at work
(what the next viewers and the auto-updates get). Reports p50/p95 per widget and the number of
SQL statements per widget. With --browser, the time until the whole dashboard has loaded in
Chromium. Always: the dashboard page's JavaScript, gzip (Chart.js included).

Target: slowest widget p95 < 200 ms (cold) on PostgreSQL.

    .venv/bin/python bench/dashboard.py                 # SQLite under instance/bench.db
    BENCH_DATABASE_URL=postgresql://dealercare:dealercare@127.0.0.1:5432/dealercare_bench_dash \\
        .venv/bin/python bench/dashboard.py --browser
"""

import argparse
import gzip
import json
import random
import re
import statistics
import time
from datetime import timedelta

from common import (
    ROOT,
    bench_database_url,
    gunicorn,
    load,
    prepare_database,
    report,
    sign_in,
    signed_in_client,
    summary,
)

WIDGETS = [
    (
        "count, flow (counters)",
        {"type": "number", "options": {"metric": "count"}, "item_filters": {"enum[state]": "4"}},
    ),  # fmt: skip
    (
        "count, brand filter",
        {"type": "number", "options": {"metric": "count"}, "item_filters": {"brand": "Volvo"}},
    ),  # fmt: skip
    (
        "avg days in state",
        {
            "type": "number",
            "options": {"metric": "avgDaysInState"},
            "item_filters": {"enum[state]": "6"},
        },
    ),  # fmt: skip
    (
        "stock days, gauge",
        {
            "type": "number",
            "options": {
                "metric": "stockDays",
                "gauge": True,
                "colorConditions": [{"operator": "lt", "value": 60, "color": "#067647"}],
            },
        },
    ),  # fmt: skip
    ("lead time, year", {"type": "number", "options": {"metric": "leadTime", "period": "year"}}),
    ("sold, month", {"type": "number", "options": {"metric": "sold", "period": "month"}}),
    ("turnover, ratio", {"type": "number", "options": {"metric": "turnover", "period": "month"}}),
    (
        "chart sold / month",
        {"type": "chart", "options": {"metric": "sold", "tickSpan": "month", "chartType": "bar"}},
    ),  # fmt: skip
    (
        "chart entered / week",
        {
            "type": "chart",
            "options": {"metric": "entered", "tickSpan": "week", "chartType": "line"},
        },
    ),  # fmt: skip
    ("numberSummary", {"type": "numberSummary", "options": {}}),
    ("list per brand", {"type": "list", "options": {"groupBy": "brand"}}),
    ("customList", {"type": "customList", "options": {}}),
]


def add_history(app) -> None:
    """State events for the bulk-loaded vehicles (the loader adds none): entering the module a
    year or less ago, the flow for states 4 and later, sold for 7 and later."""
    from sqlalchemy import func, insert, select

    from app.core.models import Instance, utcnow
    from app.extensions import db
    from app.preparation.models import ItemStateEvent, PreparationItem

    with app.app_context():
        instance = db.session.scalars(select(Instance).order_by(Instance.id)).first()
        ben = (
            select(PreparationItem.id, PreparationItem.state)
            .where(PreparationItem.instance_id == instance.id, PreparationItem.regno.like("BEN%"))
            .execution_options(all_instances=True)
        )
        first = db.session.execute(ben.order_by(PreparationItem.id).limit(1)).first()
        if first is None or db.session.scalar(
            select(func.count()).where(ItemStateEvent.item_id == first.id)
        ):
            return  # no bulk-loaded vehicles, or their history is there already
        rows = db.session.execute(ben).all()
        rng, now, batch = random.Random(11), utcnow(), []
        for item_id, state in rows:
            start = now - timedelta(days=rng.randint(1, 365), hours=rng.randint(0, 23))
            events = [(None, 1, start)]
            if state >= 4:
                events.append((1, 4, start + (now - start) * 0.3))
            if state >= 7:
                events.append((4, 7, start + (now - start) * 0.8))
            for from_state, to_state, at in events:
                batch.append(
                    {"instance_id": instance.id, "item_id": item_id, "from_state": from_state,
                     "to_state": to_state, "created_at": at}
                )  # fmt: skip
            if len(batch) >= 10_000:
                db.session.execute(insert(ItemStateEvent), batch)
                batch.clear()
        if batch:
            db.session.execute(insert(ItemStateEvent), batch)
        db.session.commit()
        total = db.session.scalar(select(func.count()).select_from(ItemStateEvent))
        print(f"state history ready: {total} events")


def bench_dashboard(app) -> tuple[str, list[tuple[str, int]]]:
    """The seller's begcare dashboard replaced by the 12 bench widgets: (login id, widgets)."""
    from sqlalchemy import delete, select

    from app.auth.models import User
    from app.core.tenancy import activate
    from app.dashboard import services as svc
    from app.dashboard.models import DashboardWidget
    from app.extensions import db
    from app.preparation.models import CustomList

    with app.app_context():
        seller = db.session.scalars(select(User).where(User.email == "seller@demo.test")).one()
        activate(seller.active_instance_id)
        db.session.execute(
            delete(DashboardWidget).where(
                DashboardWidget.user_id == seller.id, DashboardWidget.dashboard == "begcare"
            )
        )
        list_id = db.session.scalar(select(CustomList.id).where(CustomList.user_id == seller.id))
        made = []
        for name, spec in WIDGETS:
            options = {"module": "begcare", "divisions": ["all"], **spec["options"]}
            if spec["type"] == "customList":
                options["customListId"] = list_id
            fields = {**spec, "title": name, "options": options, "h": 2}
            made.append((name, svc.add_widget(seller.id, "begcare", fields).id))
        db.session.commit()
        return seller.get_id(), made


def time_cold(app, email: str, widgets, rounds: int) -> dict:
    """Per widget: p50/p95 of the whole GET with the value cache emptied, and its statements,
    for the user `email` signed in."""
    from sqlalchemy import event

    from app.dashboard.services import AVERAGES, VALUES
    from app.extensions import db

    client = signed_in_client(app, email)
    results = {}
    with app.app_context():
        engine = db.engine
    for name, widget_id in widgets:
        path = f"/api/dashboard-widgets/{widget_id}"
        assert client.get(path).status_code == 200, name
        latencies, statements = [], []
        for _ in range(rounds):
            VALUES.clear()
            AVERAGES.clear()
            count = [0]

            def counter(*_args, count=count):
                count[0] += 1

            event.listen(engine, "before_cursor_execute", counter)
            start = time.perf_counter()
            response = client.get(path)
            latencies.append(time.perf_counter() - start)
            event.remove(engine, "before_cursor_execute", counter)
            assert response.status_code == 200 and response.get_json()["type"] != "error", name
            statements.append(count[0])
        latencies.sort()
        results[name] = {
            **summary(latencies, 0),
            "rps": rounds / sum(latencies),
            "statements": max(statements),
        }
    return results


def page_javascript() -> dict:
    """Bytes (raw and gzip) of the scripts the dashboard page loads: the page script, its
    preloaded chunks, and the dashboard island's chunk with everything it imports."""
    dist = ROOT / "static" / "dist"
    manifest = json.loads((dist / "manifest.json").read_text())
    todo = [manifest["main.js"], *manifest["chunks"], manifest["islands"]["dashboard"]]
    seen: set[str] = set()
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        seen.add(rel)
        text = (dist / rel).read_text(encoding="utf-8")
        base = (dist / rel).parent
        for found in re.findall(r'(?:from|import)\s*"(\.{1,2}/[^"]+\.js)"', text):
            todo.append(str((base / found).resolve().relative_to(dist.resolve())))
    raw = sum((dist / f).stat().st_size for f in seen)
    packed = sum(len(gzip.compress((dist / f).read_bytes(), 9)) for f in seen)
    return {"files": len(seen), "bytes": raw, "gzip": packed}


def time_browser(port: int, rounds: int) -> list[float]:
    """Seconds from navigation until every widget of the bench dashboard has loaded."""
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        page.goto(f"http://127.0.0.1:{port}/login")
        page.get_by_label("E-mail").fill("seller@demo.test")
        page.get_by_label("Password").fill("demo-pass-1")
        page.locator("button[type=submit]").click()
        page.wait_for_load_state("networkidle")
        for _ in range(rounds):
            start = time.perf_counter()
            page.goto(f"http://127.0.0.1:{port}/begcare/dashboard")
            page.wait_for_function(
                "document.querySelectorAll('.widget-card').length === 12 && "
                "!document.querySelector('.widget-skeleton, .widget-card[aria-busy=true]')",
                timeout=20_000,
            )
            times.append(time.perf_counter() - start)
        browser.close()
    return sorted(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30, help="cold requests per widget")
    parser.add_argument("--seconds", type=float, default=2.0, help="warm load per widget")
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--port", type=int, default=5761)
    parser.add_argument("--browser", action="store_true", help="also time the page in Chromium")
    args = parser.parse_args()
    url = bench_database_url()
    prepare_database(url, args.items)
    from app import create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    add_history(app)
    from preparation import analyze

    analyze(url)
    _user_id, widgets = bench_dashboard(app)
    js = page_javascript()
    print(f"dashboard page JavaScript: {js['files']} files, {js['bytes'] / 1024:.1f} KB, {js['gzip'] / 1024:.1f} KB gzip")  # fmt: skip
    cold = time_cold(app, "seller@demo.test", widgets, args.rounds)
    print(f"\n{args.items} vehicles, {url.split('://')[0]}; cold: value cache emptied per request")
    for name, result in cold.items():
        report(f"{name} (cold)", result)
        print(f"{'':28s} {result['statements']} SQL statements")
    slowest = max(cold, key=lambda n: cold[n]["p95_ms"])
    print(f"\nslowest widget (cold): {slowest}, p95 {cold[slowest]['p95_ms']:.1f} ms")
    print("target slowest p95 < 200 ms:", "met" if cold[slowest]["p95_ms"] < 200 else "missed")
    print("\nwarm: through gunicorn, value cache at work", flush=True)
    with gunicorn("wsgi:app", args.port, {"DATABASE_URL": url, "PYTHONPATH": "."}, workers=2):
        cookie = sign_in(args.port, "seller@demo.test")
        for name, widget_id in widgets:
            path = f"/api/dashboard-widgets/{widget_id}"
            load(args.port, path, cookie=cookie, clients=1, seconds=0.3)
            report(f"{name} (warm)", load(args.port, path, cookie=cookie, clients=1, seconds=args.seconds))  # fmt: skip
        if args.browser:
            times = time_browser(args.port, 5)
            print(f"whole dashboard in Chromium: median {statistics.median(times):.2f} s, worst {times[-1]:.2f} s")  # fmt: skip


if __name__ == "__main__":
    main()
