"""Fixtures for the advert screen tests: demo users signed in, and adverts made to order."""

from datetime import timedelta

from app.auth.models import User
from app.extensions import db
from app.market.models import Advert, InstanceGroup
from tests.helpers import sign_in
from tests.market import _common
from tests.market._common import demo_user as demo_user
from tests.market._common import group_named as group_named
from tests.market._common import nordbil as nordbil


def make_advert(group: InstanceGroup, status: str = "published", **values) -> Advert:
    """An advert of `group` in its own instance (flushed), published a day ago unless a draft."""
    return _common.make_advert(group, status, published_ago=timedelta(days=1), **values)


def sign_in_english(client, user: User) -> str:
    """Sign in with the user's pages in English (for this test only), so the assertions read
    the texts whatever the catalogues hold."""
    user.options = {**(user.options or {}), "language": "en-GB"}
    db.session.flush()
    return sign_in(client, user)


def demo_login(client):
    """`login("seller")` signs the client in as that demo user, reading English, and returns
    (client, csrf token)."""

    def login(name: str):
        token = sign_in_english(client, demo_user(f"{name}@demo.test"))
        return client, token

    return login
