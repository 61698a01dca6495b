"""Pages that ran wider than a 375 px phone in Swedish or German (a long link value, a table
with a visually hidden caption or label, a long German button label): the page itself must not
scroll sideways; wide tables scroll inside their own box."""

import pytest

from tests.browser.conftest import MOBILE
from tests.browser.test_station import sign_in

pytestmark = pytest.mark.browser

PAGES = {
    "seller@demo.test": [
        "/purchase-analysis/2",
        "/my-lists",
        "/market/dashboard",
        "/pdf-preview/quick-test/1",
    ],
    "station@demo.test": ["/begcare/station/profile"],
    "buyer@demo.test": ["/market/vehicle-requests"],
    "admin@demo.test": ["/admin/general/goals", "/admin/general/calculators"],
}


@pytest.mark.parametrize("email", sorted(PAGES))
def test_pages_fit_a_phone_in_swedish_and_german(new_page, email):
    page = new_page(viewport=MOBILE)
    sign_in(page, email)
    for path in PAGES[email]:
        for lang in ("sv", "de"):
            answer = page.goto(f"{path}?lang={lang}")
            assert answer.status == 200, (path, lang)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 375, (path, lang, width)
