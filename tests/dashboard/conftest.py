"""Fixtures for the dashboard tests: the demo users signed in, and empty caches."""

import pytest

from app.auth.viewer import SNAPSHOTS
from app.dashboard.services import AVERAGES, VALUES
from app.shell.layout import COUNTS
from tests.shell.conftest import as_demo, demo_user  # noqa: F401


@pytest.fixture(autouse=True)
def fresh_caches():
    """The caches are keyed by versions that a rolled-back test reuses: empty them around each."""
    for cache in (VALUES, AVERAGES, COUNTS, SNAPSHOTS):
        cache.clear()
    yield
    for cache in (VALUES, AVERAGES, COUNTS, SNAPSHOTS):
        cache.clear()
