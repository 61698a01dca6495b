"""Fixtures for the admin tests: the demo users signed in on the demo database."""

from tests.shell.conftest import as_demo, demo_user  # noqa: F401
