"""The public market pages' React forms in Chromium (issue 17): the bid, allocate and
change-status forms are drawn by React (its root marker on their container) beside the
server-drawn vehicle card, and the pages load one React chunk, shared; and (timed, so in
`make lighthouse` only) the bid page's largest contentful paint on loopback stays under a second."""

import pytest
from playwright.sync_api import expect

from app.extensions import db
from tests.browser.conftest import DESKTOP, MOBILE
from tests.browser.test_market_bid import new_advert
from tests.market._invite import make_invite

pytestmark = pytest.mark.browser

IS_REACT_ROOT = """(selector) => {
  const el = document.querySelector(selector);
  return !!el && Object.keys(el).some((key) => key.startsWith('__reactContainer$'));
}"""
# The largest contentful paint so far, once the page has painted it.
LCP = """() => new Promise((resolve) => {
  new PerformanceObserver((list) => {
    const entries = list.getEntries();
    resolve(entries[entries.length - 1].startTime);
  }).observe({ type: 'largest-contentful-paint', buffered: true });
})"""


def first_visit(new_page, size, bid_path):
    """The bid page opened in a new browser context (nothing cached); the page and the scripts
    it fetched."""
    page = new_page(viewport=size)
    scripts = []
    page.on("request", lambda r: scripts.append(r.url) if r.resource_type == "script" else None)
    page.goto(bid_path)
    expect(page.locator("form.bid-form")).to_be_visible()
    return page, scripts


@pytest.mark.parametrize("size", [DESKTOP, MOBILE], ids=["1280", "375"])
def test_the_bid_form_is_react_beside_the_servers_card_with_one_shared_chunk(
    live_server, new_page, size
):
    paths = new_advert(live_server, image=True)
    page, scripts = first_visit(new_page, size, paths["bid"])
    assert page.evaluate(IS_REACT_ROOT, ".bid-card .bid-form-root")
    # The vehicle card is the server's, outside React.
    assert not page.evaluate(IS_REACT_ROOT, ".bid-advert")
    # One React chunk, fetched once, beside the page's own files.
    shared = [url for url in scripts if "/public/chunks/" in url]
    assert shared and len(shared) == len(set(shared)), scripts


@pytest.mark.timed
@pytest.mark.parametrize("size", [DESKTOP, MOBILE], ids=["1280", "375"])
def test_the_bid_page_paints_within_a_second(live_server, new_page, size):
    """Wall-clock: `make lighthouse`, not `make test`. The best of three first visits."""
    paths = new_advert(live_server, image=True)
    paints = []
    for _attempt in range(3):
        page, _scripts = first_visit(new_page, size, paths["bid"])
        paints.append(page.evaluate(LCP))
        if paints[-1] < 1000:
            break
    assert min(paints) < 1000, f"largest contentful paint {paints} ms"


@pytest.mark.parametrize("action", ["allocate", "change-status"])
def test_the_sellers_forms_are_react(live_server, new_page, action):
    paths = new_advert(live_server)
    page = new_page(viewport=MOBILE)
    page.goto(paths[action])
    expect(page.locator("form.bid-form")).to_be_visible()
    assert page.evaluate(IS_REACT_ROOT, ".bid-card .bid-form-root")


def test_the_invitation_forms_are_react(new_page, live_server):
    with live_server.app.app_context():
        invite = make_invite(live_server.app)
        db.session.commit()
        path = f"/market-invite/{invite.hash}"
    page = new_page(viewport=MOBILE)
    page.goto(path)
    expect(page.locator("#invite-terms")).to_be_visible()
    assert page.evaluate(IS_REACT_ROOT, "#invite-app")
    page.locator("#invite-accept-terms").click()
    expect(page.locator("#invite-form")).to_be_visible()
    expect(page.locator("#company-name")).to_be_focused()
