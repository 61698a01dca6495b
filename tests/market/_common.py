"""What the market's test helpers share: the demo's users and companies, and adverts made to
order."""

from datetime import timedelta
from itertools import count

from sqlalchemy import select

from app.auth.models import User
from app.core.models import utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.market.models import Advert, InstanceGroup

_numbers = count(1)


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


def make_advert(
    group: InstanceGroup,
    status: str = "published",
    *,
    prefix: str = "TST",
    published_ago: timedelta = timedelta(0),
    **values,
) -> Advert:
    """An advert of `group` in its own instance (flushed); leaves no instance active. Unless
    given, its registration number is `prefix` and a number, it ends in two days and (but for
    a draft) was published `published_ago`."""
    activate(group.instance_id)
    n = next(_numbers)
    now = utcnow()
    advert = Advert(
        seller_group_id=group.id,
        regno=values.pop("regno", f"{prefix}{n:03d}"),
        brand=values.pop("brand", "Volvo"),
        model=values.pop("model", "V60"),
        currency=group.currency,
        start_price=values.pop("start_price", 100_000),
        bid_step=values.pop("bid_step", 1_000),
        ends_at=values.pop("ends_at", now + timedelta(days=2)),
        status=status,
        published_at=values.pop("published_at", None if status == "draft" else now - published_ago),
        **values,
    )
    db.session.add(advert)
    db.session.flush()
    activate(None)
    return advert
