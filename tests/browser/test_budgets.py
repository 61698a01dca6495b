"""Budgets gate (issue 15, part 4): the JavaScript and CSS each page loads, gzipped, as the build
reports it (static/dist/sizes.json, islands/build.mjs), held per page of the accessibility walk;
and Lighthouse on the bid page, the public quick test and a state list.

Limits (docs/decisions.md, "Quality gates"): staff pages 100 KB of JavaScript, statistics and
dashboard pages 250 KB, public pages 80 KB (React 19 with ReactDOM is 67.7 KB gzip; the rest is
the page's own code: issue 17's bid-page budget). The sign-in pages carry the staff
shell's script on purpose (they register the service worker that pre-caches it), so they are held
to the staff limit. CSS: one stylesheet for every page, at most 20 KB.

The byte budgets are in `make test`; Lighthouse's scores (performance is timed) only in
`make lighthouse` (the `timed` marker, tests/conftest.py).
"""

import json
import os
import shutil
import subprocess
from urllib.parse import urlsplit

import pytest
from sqlalchemy import delete, select

from app.auth.models import User
from app.extensions import db
from app.messages.models import SystemMessage, SystemMessageView
from app.messages.services import record_viewed
from tests.browser.a11y import ROOT, Walker
from tests.browser.conftest import CHROMIUM

pytestmark = pytest.mark.browser

KB = 1024
SIZES = ROOT / "static" / "dist" / "sizes.json"
LIMITS = {"public": 80 * KB, "staff": 100 * KB, "statistics": 250 * KB}
CSS_LIMIT = 20 * KB
# Pages of the statistics and dashboard kind (charts, the widget editor).
HEAVY = ("statistics", "dashboard")
SIGN_IN = ("/login", "/reset-password/", "/not-found", "/no-such-page", "/error", "/email-preview/")


def sizes() -> dict:
    assert SIZES.is_file(), f"{SIZES} is missing: run `npm run build`"
    return json.loads(SIZES.read_text())


def kind_of(visit) -> str:
    if visit.who == "anonymous" and not visit.path.startswith(SIGN_IN):
        return "public"
    if any(word in visit.path for word in HEAVY):
        return "statistics"
    return "staff"


def loaded_bundles(visit, files: dict) -> tuple[int, int, list[str]]:
    """Gzip bytes of the JavaScript and CSS under static/dist that the page loaded."""
    js = css = 0
    unknown = []
    for url in dict.fromkeys(visit.loaded):  # each file once
        path = urlsplit(url).path
        if not path.startswith("/static/dist/") or path.endswith(".json"):
            continue
        name = path.removeprefix("/static/dist/")
        if name not in files:
            unknown.append(name)
        elif name.endswith(".css"):
            css += files[name]["gzip"]
        elif name.endswith(".js"):
            js += files[name]["gzip"]
    return js, css, unknown


def budget_table(walk) -> list[tuple[str, str, str, int, int]]:
    files = sizes()["files"]
    rows = []
    for visit in [*walk.menus, *walk.public]:
        js, css, unknown = loaded_bundles(visit, files)
        assert not unknown, f"{visit.path} loaded files the build did not report: {unknown}"
        rows.append((kind_of(visit), visit.who, visit.path, js, css))
    return rows


def test_the_build_reports_every_page_kind_within_its_budget():
    report = sizes()
    assert report["staff"]["jsGzip"] <= LIMITS["staff"], report["staff"]
    for name, bundle in report["public"].items():
        assert bundle["jsGzip"] <= LIMITS["public"], (name, bundle)
        # A public page loads no chunk of the staff build.
        assert all(f.startswith("public/") for f in bundle["js"]), (name, bundle["js"])
    shell = report["staff"]["jsGzip"]
    for name, island in report["islands"].items():
        limit = (
            LIMITS["statistics"] if name in ("dashboard", "statistics-chart") else LIMITS["staff"]
        )
        assert shell + island["jsGzip"] <= limit, (name, shell + island["jsGzip"])


def test_every_walked_page_stays_within_its_budget(a11y_walk):
    rows = budget_table(a11y_walk)
    table = "\n".join(
        f"{kind:10} {js / KB:6.1f} KB JS {css / KB:5.1f} KB CSS  {who:9} {path}"
        for kind, who, path, js, css in sorted(rows, key=lambda r: (r[0], -r[3]))
    )
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    (ROOT / "test-artifacts" / "budgets.txt").write_text(table + "\n")
    over = [
        row
        for row in rows
        if row[3] > (LIMITS["staff"] if row[2].startswith(SIGN_IN) else LIMITS[row[0]])
        or row[4] > CSS_LIMIT
    ]
    assert not over, "over budget (kind, who, path, JS, CSS bytes gzip):\n" + "\n".join(
        map(str, over)
    )
    assert any(kind == "public" and js > 0 for kind, _w, _p, js, _c in rows), table


# --- Lighthouse ---------------------------------------------------------------------------------

LIGHTHOUSE = ROOT / "tests" / "browser" / "lighthouse.mjs"
MINIMUM = {"performance": 95, "accessibility": 100, "best-practices": 100}
LIGHTHOUSE_SECONDS = 240


@pytest.fixture
def returning_seller(live_server, browser):
    """The seller's session cookie, as a user who has already read the system messages (the
    steady state of every page after the first: the one-time dialog is not the page's cost)."""
    app = live_server.app
    with app.app_context():
        user = db.session.scalars(
            select(User)
            .where(User.email == "seller@demo.test")
            .execution_options(all_instances=True)
        ).one()
        user_id = user.id
        for message in db.session.scalars(select(SystemMessage)):
            record_viewed(user_id, message)
        db.session.commit()
    walker = Walker(browser, live_server.url)
    try:
        walker.sign_in("seller")
        cookie = "; ".join(f"{c['name']}={c['value']}" for c in walker.context.cookies())
    finally:
        walker.close()
    yield cookie
    with app.app_context():
        db.session.execute(delete(SystemMessageView).where(SystemMessageView.user_id == user_id))
        db.session.commit()


def lighthouse(pages: list[dict]) -> dict:
    """Run tests/browser/lighthouse.mjs over `pages` (one Chromium); its JSON answer."""
    run = subprocess.run(  # noqa: S603 - our own script, our own arguments
        [shutil.which("node") or "node", str(LIGHTHOUSE), json.dumps(pages)],  # noqa: S607
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=LIGHTHOUSE_SECONDS,
        env={**os.environ, "CHROME_PATH": str(CHROMIUM)},
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def below(result: dict) -> list[str]:
    return [
        f"{category} {result['scores'].get(category)} < {minimum}"
        for category, minimum in MINIMUM.items()
        if result["scores"].get(category, 0) < minimum
    ]


@pytest.mark.timed  # Lighthouse's performance score is measured in time: `make lighthouse`
def test_lighthouse_scores_of_the_bid_page_the_quick_test_and_a_state_list(
    live_server, returning_seller
):
    from app.demo import demo_links

    with live_server.app.app_context():
        links = demo_links()
    pages = [
        {"name": "bid page", "url": live_server.url + links["bid"]},
        {"name": "quick test", "url": live_server.url + links["quick_test"]},
        {
            "name": "state list",
            "url": live_server.url + "/begcare/items/incoming",
            "cookie": returning_seller,
        },
    ]
    results = lighthouse(pages)
    # Performance is estimated from one trace: a page under the bar on performance alone gets
    # one more run (the better counts), as a busy machine can stretch one trace's tasks.
    again = [
        p
        for p in pages
        if below(results[p["name"]])
        and all(m.startswith("performance") for m in below(results[p["name"]]))
    ]
    if again:
        for name, result in lighthouse(again).items():
            if result["scores"]["performance"] > results[name]["scores"]["performance"]:
                results[name] = result
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    (ROOT / "test-artifacts" / "lighthouse.json").write_text(json.dumps(results, indent=1))
    failures = {name: below(r) + r["misses"] for name, r in results.items() if below(r)}
    assert not failures, json.dumps(failures, indent=1)
