"""The finished test's page shows its public link without an inline event handler: the
Content-Security-Policy (script-src 'self') blocks those, and the browser logs an error."""

import re

from tests.quicktest.conftest import finished_tests


def test_the_share_link_has_no_inline_handler(seller):
    client, _ = seller
    first = finished_tests()[0]
    html = client.get(f"/quick-test/{first.id}?lang=sv").get_data(as_text=True)
    assert 'id="share-link"' in html and f"/quick-test/view/{first.uuid}" in html
    assert "Publik länk" in html
    assert not re.search(r"<[^>]+\son[a-z]+=", html)
