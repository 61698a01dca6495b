"""The accessibility walk (issue 15, part 3): axe-core in Chromium over the demo users' menus, the
public pages and the print views, each page at 1280 and 375 px.

axe-core comes from node_modules (package-lock.json, `npm ci`). It is added to every document of
the walk's browser contexts as an init script (outside the page's CSP, like a browser extension).
Each page is opened at both widths at once, in two pages of one context, and axe runs in both
renderers side by side; only then does the walk wait for the answers.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from flask import g, request, template_rendered

from tests.browser.conftest import DESKTOP, MOBILE, STATE_TIMEOUT_MS

ROOT = Path(__file__).resolve().parents[2]
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
AXE_MISSING = f"{AXE_JS} is missing: run `npm ci` (make setup does)"
DEMO_PASSWORD = "demo-pass-1"
# The demo users whose menus are walked (CONTRACT.md, demo data).
USERS = ("admin", "seller", "buyer", "station", "divadmin", "global")
# Pages whose answer is an error page on purpose.
# (An anonymous unknown path is sent to the sign-in page: the error pages are checked signed in.)
EXPECTED_STATUS = {"/not-found": 404, "/no-such-page": 404, "/reset-password/no-such-token": 404}
# Every link of the main (or admin) menu and of the user menu.
MENU_LINKS = """() => [...document.querySelectorAll('#shell-nav a[href], [data-user-menu] a[href]')]
  .map((a) => a.href)"""
# Start axe and keep its promise on the window: the walk collects it later (AXE_RESULT), so both
# widths' renderers work at the same time.
AXE_START = """() => {
  window.__axeResult = axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target.join(' '), html: n.html.slice(0, 160), why: n.failureSummary })),
      })));
}"""
AXE_RESULT = "() => window.__axeResult"
# Resources the page loaded (for the budgets gate): URL and transfer size.
LOADED = """() => performance.getEntriesByType('resource')
  .map((e) => ({ url: e.name, type: e.initiatorType }))"""


def full_walk() -> bool:
    """A11Y_FULL=1 (make a11y): every page of every user; otherwise one page per kind of page."""
    return os.environ.get("A11Y_FULL", "") not in ("", "0")


@dataclass
class Visit:
    """One page of the walk at both widths: what axe found and which files it loaded."""

    who: str
    path: str
    status: dict[str, int] = field(default_factory=dict)
    violations: dict[str, list] = field(default_factory=dict)
    loaded: list[str] = field(default_factory=list)

    def failures(self) -> list[str]:
        lines = []
        for width, found in self.violations.items():
            for v in found:
                for node in v["nodes"]:
                    lines.append(
                        f"{self.who} {self.path} @{width}: {v['impact']} {v['id']} ({v['help']}) "
                        f"at {node['target']}: {node['html']}"
                    )
        for width, status in self.status.items():
            if status != EXPECTED_STATUS.get(self.path, 200):
                lines.append(f"{self.who} {self.path} @{width}: answered {status}")
        return lines


def same_site_path(url: str, base: str) -> str | None:
    """The path (and query) of a link into the site under test; None for any other link."""
    parts = urlsplit(url)
    if parts.netloc != urlsplit(base).netloc:
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


# Added to every document of the walk: counts the page's fetches in flight and notes the time of
# the last network activity, so that the walk can wait until the islands have drawn themselves
# (200 ms without traffic), sooner than Playwright's 500 ms "networkidle".
SETTLE_JS = """(() => {
  let inflight = 0;
  let last = performance.now();
  const fetch = window.fetch;
  window.fetch = function (...args) {
    inflight += 1;
    last = performance.now();
    return fetch.apply(this, args).finally(() => { inflight -= 1; last = performance.now(); });
  };
  new PerformanceObserver(() => { last = performance.now(); }).observe({ type: 'resource', buffered: true });
  window.__a11yQuiet = (ms) =>
    document.readyState === 'complete' && inflight === 0 && performance.now() - last > ms;
})();"""
QUIET = "() => window.__a11yQuiet(200)"


class Walker:
    """Opens pages at both widths in one context (one signed-in user, or anonymous)."""

    def __init__(self, browser, base_url: str, init_script: str = ""):
        self.base_url = base_url
        self.context = browser.new_context(
            base_url=base_url, locale="en-GB", service_workers="block", viewport=DESKTOP
        )
        self.context.set_default_timeout(STATE_TIMEOUT_MS)
        if init_script:
            self.context.add_init_script(init_script)
        self.context.add_init_script(SETTLE_JS)
        self.context.add_init_script(path=str(AXE_JS))
        self.pages = {"1280": self.context.new_page(), "375": self.context.new_page()}
        self.pages["375"].set_viewport_size(MOBILE)

    def close(self) -> None:
        self.context.close()

    def sign_in(self, who: str) -> str:
        """Sign in as a demo user; return the path of the landing page."""
        page = self.pages["1280"]
        page.goto("/login")
        page.fill("#email", f"{who}@demo.test")
        page.fill("#password", DEMO_PASSWORD)
        with page.expect_navigation():
            page.click("form button[type=submit]")
        page.wait_for_load_state()
        return same_site_path(page.url, self.base_url) or "/"

    def fetch(self, path: str) -> None:
        """Ask for the page without drawing it (for its kind: the server notes its template)."""
        self.context.request.get(path, max_redirects=0).dispose()

    def visit(self, who: str, path: str) -> tuple[Visit, list[str]]:
        """Run axe on `path` at both widths; return the visit and the menu links seen."""
        visit = Visit(who, path)
        answers = {}
        for width, page in self.pages.items():  # both pages load at once
            answers[width] = page.goto(path, wait_until="commit")
        for width, page in self.pages.items():
            page.wait_for_function(QUIET, polling=50)
            visit.status[width] = answers[width].status if answers[width] else 0
            page.evaluate(AXE_START)  # axe runs in both renderers at once
        for width, page in self.pages.items():
            visit.violations[width] = page.evaluate(AXE_RESULT)
        desktop = self.pages["1280"]
        visit.loaded = [e["url"] for e in desktop.evaluate(LOADED)]
        links = [same_site_path(url, self.base_url) for url in desktop.evaluate(MENU_LINKS)]
        return visit, [link for link in links if link]


def walk_menus(
    browser,
    base_url: str,
    init_script: str,
    kind_of: Callable[[Walker, str], str],
    users: Iterable[str] = USERS,
) -> list[Visit]:
    """Every page reachable from each user's menus (the menus of each page walked too).

    In the short walk a page whose kind (kind_of: its endpoint, or its template) was already
    checked, for this or an earlier user, is skipped; the full walk visits them all."""
    visits: list[Visit] = []
    kinds: set[str] = set()
    for who in users:
        walker = Walker(browser, base_url, init_script)
        try:
            todo = [walker.sign_in(who)]
            seen: set[str] = set()
            while todo:
                path = todo.pop(0)
                if path in seen:
                    continue
                seen.add(path)
                if not full_walk():  # each user's landing page is always checked
                    kind = kind_of(walker, path)
                    if kind in kinds and len(seen) > 1:
                        continue
                    kinds.add(kind)
                visit, links = walker.visit(who, path)
                visits.append(visit)
                todo.extend(link for link in links if link not in seen)
        finally:
            walker.close()
    return visits


# --- the walk of the gate ----------------------------------------------------------------------


@dataclass
class Walk:
    menus: list[Visit]
    public: list[Visit]
    public_paths: list[str]


class TemplateKinds:
    """kind_of for the short walk: the template a page is drawn from (the live server runs in this
    process, so Flask's template_rendered signal names it), or the route where none is drawn."""

    def __init__(self, app):
        self.app = app
        self.adapter = app.url_map.bind("localhost")
        self.drawn: dict[str, str] = {}
        template_rendered.connect(self.note, app)

    def close(self) -> None:
        template_rendered.disconnect(self.note, self.app)

    def note(self, sender, template, context, **extra) -> None:
        if not g.get("a11y_template"):  # the page's own template, not one it renders inside
            g.a11y_template = True
            self.drawn[request.full_path.rstrip("?")] = template.name

    def __call__(self, walker: Walker, path: str) -> str:
        if path not in self.drawn:
            walker.fetch(path)
        if path in self.drawn:
            return f"template:{self.drawn[path]}"
        try:
            endpoint, _args = self.adapter.match(urlsplit(path).path)
        except Exception:  # a redirect or an unknown path: a kind of its own
            return path
        return endpoint


def reset_mail_preview(app) -> str:
    """Ask for a password reset for a demo user; return the mail's preview path."""
    from sqlalchemy import select

    from app.auth.services import request_password_reset
    from app.extensions import db
    from app.mail.models import EmailMessage

    with app.test_request_context(environ_base={"REMOTE_ADDR": "127.0.0.15"}):
        request_password_reset("global@demo.test", "127.0.0.15", "en-GB")
        db.session.commit()
        mail = db.session.scalars(
            select(EmailMessage)
            .where(EmailMessage.to_address == "global@demo.test")
            .order_by(EmailMessage.id.desc())
        ).first()
        public_id = mail.public_id
        db.session.remove()
    return f"/email-preview/{public_id}"


def public_walk(browser, live_server, init_script: str) -> tuple[list[Visit], list[str]]:
    """The pages without a menu: sign-in, reset, mail preview, the market's hash links, the public
    quick test, the error page; then the two print views and the not-found pages, signed in as
    the seller."""
    from app.demo import demo_links

    with live_server.app.app_context():
        links = demo_links()
    preview = reset_mail_preview(live_server.app)
    visits: list[Visit] = []
    walker = Walker(browser, live_server.url, init_script)
    try:
        visit, _links = walker.visit("anonymous", preview)
        visits.append(visit)
        reset = walker.pages["1280"].locator(".mail-body a[href*='/reset-password/']")
        reset_path = urlsplit(reset.get_attribute("href")).path  # the mail's link is absolute
        anonymous = [
            "/login",
            "/login?forgot=1",
            reset_path,
            "/reset-password/no-such-token",
            links["invite"],
            links["bid"],
            links["allocate"],
            links["change_status"],
            links["quick_test"],
            "/error",
        ]
        for path in anonymous:
            visits.append(walker.visit("anonymous", path)[0])
    finally:
        walker.close()
    prints = [
        links["quick_test_pdf"],
        links["purchase_analysis_pdf"],
        "/not-found",
        "/no-such-page",
    ]
    walker = Walker(browser, live_server.url, init_script)
    try:
        walker.sign_in("seller")
        visits.extend(walker.visit("seller", path)[0] for path in prints)
    finally:
        walker.close()
    return visits, [preview, *anonymous, *prints]


def run_walk(browser, live_server) -> Walk:
    from tests.browser.dialogs import quiet_dialogs_script

    quiet = quiet_dialogs_script(live_server.app)
    kinds = TemplateKinds(live_server.app)
    # A11Y_USERS=station,buyer walks only those users' menus (while mending a page).
    users = [u for u in os.environ.get("A11Y_USERS", ",".join(USERS)).split(",") if u]
    try:
        menus = walk_menus(browser, live_server.url, quiet, kinds, users)
    finally:
        kinds.close()
    public, paths = public_walk(browser, live_server, quiet)
    walk = Walk(menus=menus, public=public, public_paths=paths)
    if os.environ.get("A11Y_REPORT"):  # the walk's findings as JSON, for a person to read
        Path(os.environ["A11Y_REPORT"]).write_text(json.dumps(asdict(walk), indent=1))
    return walk
