"""Browser tests: the real application served over HTTP, driven by the system Chromium.

The live server has a database of its own (migrated, with the demo data), so these tests commit
for real and do not use the rolled-back transaction of tests/conftest.py. Tests that change a
demo user put it back, so they pass in any order.
"""

import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from flask import Flask
from playwright.sync_api import expect
from werkzeug.serving import WSGIRequestHandler, make_server

from app.extensions import db
from tests.browser.dialogs import quiet_dialogs_script
from tests.conftest import ARTIFACTS, database_url, make_app

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
MISSING = (
    f"browser tests skipped: Chromium not found at {CHROMIUM}; "
    "install it with `apt-get install chromium` (REQUIRE_BROWSER=1 turns this into a failure)"
)
# Every wait is for a state (a locator visible, a URL, a response); this is only how long a
# state that never comes is waited for before the test fails. A busy machine (two cores shared
# with other runs) can take seconds to serve and paint a page, so it is long: a wait that ends
# ends as soon as its state holds, and a test's result never depends on how fast the page was.
STATE_TIMEOUT_MS = 30_000
expect.set_options(timeout=STATE_TIMEOUT_MS)
DESKTOP = {"width": 1280, "height": 800}
MOBILE = {"width": 375, "height": 740}
WIDTHS = {"1280": DESKTOP, "375": MOBILE}


def chromium_missing() -> bool:
    return not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Without Chromium every browser test is skipped before its fixtures start, all under one
    summary line (the skip is raised here, in one place); with REQUIRE_BROWSER (CI) they fail."""
    if item.get_closest_marker("browser") and chromium_missing():
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(
                f"REQUIRE_BROWSER is set but {CHROMIUM} is missing: apt-get install chromium"
            )
        pytest.skip(MISSING)


# --- the live server -------------------------------------------------------------------------


class QuietHandler(WSGIRequestHandler):
    """No access log: a failing test's output should show the failure, not every request."""

    def log_request(self, code="-", size="-") -> None:
        pass


def buffered(app: Flask):
    """Answer with the whole body at once and close the app's iterable straight away: the
    development server leaves it open (an unclosed static file, a ResourceWarning, which the
    test settings turn into an error) when the browser drops a connection mid-answer."""

    def wsgi(environ, start_response):
        iterable = app(environ, start_response)
        try:
            return [b"".join(iterable)]
        finally:
            if hasattr(iterable, "close"):
                iterable.close()

    return wsgi


@dataclass
class LiveServer:
    app: Flask
    url: str


@pytest.fixture(scope="session")
def live_server(tmp_path_factory):
    """The application with the demo data, served on a free local port for the whole session."""
    # TEST_DATABASE_URL's database suffixed _browser (created when missing), or a SQLite file.
    app = make_app(database_url(tmp_path_factory, "browser", demo=True))
    app.config["TESTING"] = False  # behave as served: errors become pages, not exceptions
    with serving(app) as url:
        yield LiveServer(app=app, url=url)


@contextmanager
def serving(app: Flask):
    """Serve `app` on a free local port in a thread; yield its base URL, then stop it."""
    server = make_server("127.0.0.1", 0, buffered(app), threaded=True, request_handler=QuietHandler)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        # A request still being answered would hand its connection back to a disposed pool.
        for handler in threading.enumerate():
            if "process_request_thread" in handler.name:
                handler.join(timeout=5)
        with app.app_context():
            db.engine.dispose()


def eventually(page, check, what: str) -> None:
    """Wait for `check()` (a state the test reads on its side, e.g. requests the page made) to
    hold, as Playwright's own waits do: polling, up to STATE_TIMEOUT_MS."""
    for _ in range(STATE_TIMEOUT_MS // 50):
        if check():
            return
        page.wait_for_timeout(50)
    assert check(), f"{what}: not within {STATE_TIMEOUT_MS // 1000} s"


# --- Chromium --------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """The system Chromium, launched once for the session. Its profile and temporary files are
    made in the run's own temporary folder (pytest removes the folders of old runs), so that a
    run killed outright leaves none in /tmp."""
    from playwright.sync_api import sync_playwright

    temp = str(tmp_path_factory.mktemp("chromium"))
    with _environ(TMPDIR=temp):  # (the driver makes the profile folders)
        playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, env={**os.environ, "TMPDIR": temp}
        )
        try:
            yield chromium
        finally:
            chromium.close()
    finally:
        playwright.stop()


@contextmanager
def _environ(**values):
    """Set environment variables for what starts meanwhile (Playwright's driver reads TMPDIR
    once, when it starts); put back the previous values afterwards."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture
def viewport(request):
    """The page size: DESKTOP unless a test parametrises it (indirect) with a WIDTHS key."""
    return WIDTHS[request.param] if hasattr(request, "param") else DESKTOP


@pytest.fixture
def new_page(live_server, browser):  # in this order: Chromium closes before the server stops
    """Open a page in a fresh browser context: new_page(locale=..., viewport=..., quiet=...)."""
    contexts = []

    def open_page(locale: str = "en-GB", viewport: dict = DESKTOP, quiet: bool = True):
        context = browser.new_context(
            base_url=live_server.url, locale=locale, viewport=viewport, service_workers="block"
        )
        context.set_default_timeout(STATE_TIMEOUT_MS)
        if quiet:  # system messages and ranking summaries already seen (tests/browser/dialogs.py)
            context.add_init_script(quiet_dialogs_script(live_server.app))
        contexts.append(context)
        return context.new_page()

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def page(new_page, viewport):
    """An English page of its own context, at `viewport` size."""
    return new_page(viewport=viewport)


@pytest.fixture
def snap():
    """snap(page, name): save the page as it is now, at 1280 and 375 px wide, to test-artifacts/."""

    def save(page, name: str, widths=tuple(WIDTHS)) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        size = page.viewport_size
        try:
            for width in widths:
                page.set_viewport_size(WIDTHS[width])
                page.screenshot(
                    path=ARTIFACTS / f"{name}-{width}.png", full_page=True, animations="disabled"
                )
        finally:
            page.set_viewport_size(size)

    return save


@pytest.fixture(scope="session")
def a11y_walk(live_server, browser):
    """The accessibility walk (tests/browser/a11y.py), once for the gates that read it."""
    from tests.browser.a11y import AXE_JS, AXE_MISSING, run_walk

    if not AXE_JS.is_file():
        pytest.fail(AXE_MISSING)
    return run_walk(browser, live_server)
