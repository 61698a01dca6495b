"""Accessibility gate (issue 15, part 3): axe-core finds no serious or critical violation on any
page of the demo users' menus, the public pages or the print views, at 1280 and 375 px; and a
keyboard alone walks the menu tree, fills a form and bids.

`make test` checks one page of each kind (each route once, whoever reached it first);
`make a11y` (A11Y_FULL=1) walks every page of every user's menus.
"""

import pytest

from tests.browser.a11y import DEMO_PASSWORD, USERS
from tests.browser.conftest import MOBILE
from tests.browser.test_market_bid import bid_amounts, new_advert

pytestmark = pytest.mark.browser


def report(visits) -> str:
    lines = [line for visit in visits for line in visit.failures()]
    return "\n".join(lines)


@pytest.mark.parametrize("who", USERS)
def test_menu_pages_have_no_serious_violations(a11y_walk, who):
    visits = [v for v in a11y_walk.menus if v.who == who]
    assert visits, f"no page of {who}'s menus was walked"
    assert not report(visits), report(visits)


def test_every_kind_of_menu_page_was_walked(a11y_walk):
    """The walk reached the pages the menus promise (a broken link walk would pass silently)."""
    paths = {v.path for v in a11y_walk.menus}
    for expected in ("/user", "/admin", "/begcare/overview", "/market/dashboard", "/my-dashboard"):
        assert any(p.startswith(expected) for p in paths), (expected, sorted(paths))
    assert len(a11y_walk.menus) >= 40, sorted(paths)


def test_public_pages_and_print_views_have_no_serious_violations(a11y_walk):
    assert {v.path for v in a11y_walk.public} >= set(a11y_walk.public_paths)
    assert not report(a11y_walk.public), report(a11y_walk.public)


# --- keyboard only ------------------------------------------------------------------------------

# The focused element, and whether a sighted keyboard user sees where the focus is: it matches
# :focus-visible and draws an outline or a shadow ring of at least 2 px.
FOCUS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const style = getComputedStyle(el);
  const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
  const ring = style.boxShadow !== 'none';
  return {
    tag: el.tagName.toLowerCase(), id: el.id, name: el.getAttribute('name'),
    role: el.getAttribute('role'), text: (el.innerText || el.value || '').trim().slice(0, 40),
    href: el.getAttribute('href'), visible: el.matches(':focus-visible') && (outline || ring),
  };
}"""


def tab_to(page, wanted, limit: int = 80) -> dict:
    """Press Tab until `wanted(focus)` holds; every stop on the way must show its focus."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        focus = page.evaluate(FOCUS)
        if focus is None:
            continue
        assert focus["visible"], f"focus not visible on {focus}"
        if wanted(focus):
            return focus
    raise AssertionError(f"Tab never reached the wanted element within {limit} stops")


def test_a_keyboard_alone_signs_in_and_follows_the_menu_tree(new_page):
    page = new_page()
    page.goto("/login")
    tab_to(page, lambda f: f["id"] == "email")
    page.keyboard.type("seller@demo.test")
    tab_to(page, lambda f: f["id"] == "password", limit=2)
    page.keyboard.type(DEMO_PASSWORD)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.goto("/begcare/items/incoming")
    page.wait_for_selector('#shell-nav ul[data-react="menu-tree"]')
    # The tree is one tab stop (the current page's entry); the arrows move inside it.
    focus = tab_to(page, lambda f: f["role"] == "treeitem")
    assert focus["href"] == "/begcare/items/incoming", focus
    page.keyboard.press("ArrowDown")
    focus = page.evaluate(FOCUS)
    assert focus["visible"] and focus["href"] == "/begcare/items/awaiting", focus
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith("/begcare/items/awaiting")


def test_a_keyboard_alone_places_a_bid(live_server, new_page):
    paths = new_advert(live_server)
    page = new_page(viewport=MOBILE)
    page.goto(paths["bid"])
    page.wait_for_selector("form.bid-form")
    tab_to(page, lambda f: f["id"] == "bid-amount")
    page.keyboard.press("ControlOrMeta+A")
    page.keyboard.type("193000")
    tab_to(page, lambda f: f["tag"] == "button" and "bid" in f["text"].lower(), limit=10)
    page.keyboard.press("Space")
    # The bid binds: a dialog asks first, and its confirming button is reached by keyboard too.
    page.get_by_role("dialog").wait_for()
    tab_to(page, lambda f: f["tag"] == "button" and "binding bid" in f["text"].lower(), limit=6)
    page.keyboard.press("Space")
    success = page.locator(".bid-result .alert-success")
    success.wait_for()
    assert 193_000 in bid_amounts(live_server, paths["id"])
