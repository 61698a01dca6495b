"""Fixtures for the advert screen tests: demo users signed in, and adverts made to order."""

from datetime import timedelta
from itertools import count

from sqlalchemy import select

from app.auth.models import User
from app.core.models import utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.market.models import Advert, InstanceGroup
from tests.helpers import sign_in

_regnos = count(1)


def demo_user(email: str) -> User:
    return db.session.scalars(select(User).where(User.email == email)).one()


def group_named(name: str) -> InstanceGroup:
    return db.session.scalars(
        select(InstanceGroup)
        .where(InstanceGroup.name == name)
        .execution_options(all_instances=True)
    ).one()


def nordbil() -> InstanceGroup:
    return group_named("Nordbil AB")


def make_advert(group: InstanceGroup, status: str = "published", **values) -> Advert:
    """An advert of `group` in its own instance (flushed)."""
    activate(group.instance_id)
    n = next(_regnos)
    advert = Advert(
        seller_group_id=group.id,
        regno=values.pop("regno", f"TST{n:03d}"),
        brand=values.pop("brand", "Volvo"),
        model=values.pop("model", "V60"),
        currency=group.currency,
        start_price=values.pop("start_price", 100_000),
        bid_step=values.pop("bid_step", 1_000),
        ends_at=values.pop("ends_at", utcnow() + timedelta(days=2)),
        status=status,
        published_at=None if status == "draft" else utcnow() - timedelta(days=1),
        **values,
    )
    db.session.add(advert)
    db.session.flush()
    activate(None)
    return advert


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
