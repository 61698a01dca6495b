"""Issue 37, point 13: click-to-updated in Chromium for the station phone's Start and Finish and
the vehicle page's state buttons, as a full page load (the forms as they were) and answered in
place (islands/lib/in-place.js).

The demo data under gunicorn (2 workers), Chromium at 375 px (station) and 1280 px (desk). Each
round clicks the button and stops the clock when the page shows the change: the card's Finish
button after Start, the card gone after Finish, the new state's badge after a state button. The
"page load" rounds are the same page with its data-in-place marks removed before the click, so
the browser posts and loads the whole page as before this change. Between rounds the bench puts
the task or the vehicle back in the database. Not a test: numbers on a shared machine vary.

    .venv/bin/python bench/in_place.py --rounds 10
"""

import argparse
import os
import statistics
import time

from common import ROOT, gunicorn, prepare_database

PORT = 5093
URL = f"sqlite:///{ROOT / 'instance' / 'bench_in_place.db'}"


def reset_station(app) -> None:
    """Every vehicle whose wash (Tvätt) was started or done waits for it again."""
    from sqlalchemy import select

    from app.core.tenancy import activate
    from app.extensions import db
    from app.preparation.models import ItemStationTask, Station
    from tests.shell.conftest import demo_user

    with app.app_context():
        activate(demo_user("station@demo.test").active_instance_id)
        washes = select(Station.id).where(Station.name == "Tvätt")
        for task in db.session.scalars(
            select(ItemStationTask).where(
                ItemStationTask.station_id.in_(washes), ItemStationTask.status != "pending"
            )
        ):
            task.status, task.started_at, task.finished_at = "pending", None, None
        db.session.commit()
        db.session.remove()


def movable_vehicle(app, before: int | None = None) -> tuple[int, int]:
    """A begcare vehicle in state 2 (with a state button): its id and state, put back to 2."""
    from sqlalchemy import select

    from app.core.tenancy import activate
    from app.extensions import db
    from app.preparation.models import PreparationItem
    from tests.shell.conftest import demo_user

    with app.app_context():
        activate(demo_user("seller@demo.test").active_instance_id)
        if before is not None:
            db.session.get(PreparationItem, before).state = 2
            db.session.commit()
            return before, 2
        item = db.session.scalars(
            select(PreparationItem)
            .where(PreparationItem.module == "begcare", PreparationItem.state == 2)
            .order_by(PreparationItem.id)
        ).first()
        db.session.remove()
        return item.id, 2


def sign_in(page, email: str) -> None:
    page.goto(f"http://127.0.0.1:{PORT}/login?lang=en")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill("demo-pass-1")
    page.locator("button[type=submit]").click()
    page.wait_for_load_state("networkidle")


def close_dialogs(page) -> None:
    """Close the demo's news dialog and ranking summary (Close is remembered) before timing."""
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(1500)  # the ranking summary waits a second for its turn
    while page.get_by_role("dialog").count():
        page.get_by_role("dialog").get_by_role("button", name="Close").first.click()
        page.wait_for_timeout(1500)


def strip(page, in_place: bool) -> None:
    if not in_place:
        page.evaluate(
            "document.querySelectorAll('[data-in-place]').forEach(f => f.removeAttribute('data-in-place'))"
        )


def station_rounds(app, browser, rounds: int, in_place: bool) -> dict[str, list[float]]:
    page = browser.new_page(viewport={"width": 375, "height": 740}, bypass_csp=True)
    sign_in(page, "station@demo.test")
    times = {"start": [], "finish": []}
    for _ in range(rounds):
        reset_station(app)
        page.goto(f"http://127.0.0.1:{PORT}/begcare/station/vehicles")
        close_dialogs(page)
        card = page.locator(".station-card").first
        item_id = card.get_attribute("data-item-id")
        card = page.locator(f'.station-card[data-item-id="{item_id}"]')
        strip(page, in_place)
        clock = time.perf_counter()
        card.locator('button[data-action="start"]').click()
        card.locator('button[data-action="finish"]').wait_for()
        times["start"].append(time.perf_counter() - clock)
        close_dialogs(page)
        strip(page, in_place)
        clock = time.perf_counter()
        card.locator('button[data-action="finish"]').click()
        page.wait_for_function(
            f"!document.querySelector('.station-card[data-item-id=\"{item_id}\"]')"
        )
        times["finish"].append(time.perf_counter() - clock)
    page.close()
    reset_station(app)
    return times


def state_rounds(app, browser, rounds: int, in_place: bool) -> list[float]:
    page = browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    sign_in(page, "seller@demo.test")
    item_id, _state = movable_vehicle(app)
    times = []
    for _ in range(rounds):
        movable_vehicle(app, item_id)
        page.goto(f"http://127.0.0.1:{PORT}/begcare/{item_id}")
        close_dialogs(page)
        badge = page.locator(".item-summary .badge").first
        was = badge.inner_text()
        strip(page, in_place)
        clock = time.perf_counter()
        page.locator(".state-buttons button").first.click()
        page.wait_for_function(
            "was => document.querySelector('.item-summary .badge')?.innerText !== was", arg=was
        )
        times.append(time.perf_counter() - clock)
    movable_vehicle(app, item_id)
    page.close()
    return times


def line(name: str, values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    p90 = ms[min(len(ms) - 1, int(len(ms) * 0.9))]
    return f"| {name} | {len(ms)} | {statistics.median(ms):.0f} | {p90:.0f} | {ms[0]:.0f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = URL
    if not (ROOT / "instance" / "bench_in_place.db").exists():
        prepare_database(URL, items=0)
    from playwright.sync_api import sync_playwright

    from app import create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": URL})
    env = {"DATABASE_URL": URL, "SECRET_KEY": "bench-in-place"}
    rows = []
    with gunicorn("wsgi:app", PORT, env, workers=2), sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        for in_place in (False, True):
            how = "in place" if in_place else "page load"
            station = station_rounds(app, browser, args.rounds, in_place)
            rows.append(line(f"station Start, {how}", station["start"]))
            rows.append(line(f"station Finish, {how}", station["finish"]))
            rows.append(
                line(
                    f"vehicle state button, {how}",
                    state_rounds(app, browser, args.rounds, in_place),
                )
            )
        browser.close()
    print("| click to updated | rounds | median ms | p90 ms | best ms |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
