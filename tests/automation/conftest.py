"""Shared fixtures of the automation tests."""

from tests.shell.conftest import as_demo  # noqa: F401
