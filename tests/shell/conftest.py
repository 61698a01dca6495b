"""Fixtures for the shell tests: the demo users signed in on the demo database."""

import pytest
from sqlalchemy import select

from app.auth.models import User
from app.extensions import db
from tests.helpers import sign_in


def demo_user(email: str) -> User:
    return db.session.scalars(select(User).where(User.email == email)).one()


@pytest.fixture
def as_demo(demo_client):
    """Sign the demo client in as a demo user: `as_demo("seller")` → (client, csrf token)."""

    def login(name: str):
        token = sign_in(demo_client, demo_user(f"{name}@demo.test"))
        return demo_client, token

    return login
