"""Demo market presence: the first company sells, the second buys."""

from app.core.tenancy import activate
from app.demo import seeder
from app.extensions import db
from app.market.models import InstanceGroup


@seeder(25)
def seed_groups(ctx: dict) -> None:
    first, second = ctx["instances"]
    for instance, buyer, seller, currency, country in (
        (first, False, True, "SEK", "SE"),
        (second, True, False, "NOK", "NO"),
    ):
        activate(instance.id)
        db.session.add(
            InstanceGroup(
                name=instance.company_name, buyer=buyer, seller=seller, currency=currency,
                country_code=country, options={"market": {"enableVehicleRequest": True}},
            )
        )  # fmt: skip
        db.session.flush()
    activate(None)
