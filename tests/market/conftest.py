"""Fixtures of the market's tests."""

import pytest

from tests.market._bid import new_address


@pytest.fixture
def bidder(demo_app):
    """A client of the demo database from an address of its own (the rate limit counts per
    address), signed in as no one."""
    client = demo_app.test_client()
    client.environ_base["REMOTE_ADDR"] = new_address()
    return client
