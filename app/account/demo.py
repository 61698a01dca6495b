"""Demo data of the user's own pages: My events on for every demo company, and the seller
reading times in Stockholm's zone."""

from sqlalchemy import select
from sqlalchemy.orm.attributes import flag_modified

from app.core.models import Instance
from app.demo import seeder
from app.extensions import db


@seeder(90)
def seed_my_events(ctx: dict) -> None:
    """enable_my_events for each company; seller@demo.test in Europe/Stockholm."""
    for instance in db.session.scalars(select(Instance).order_by(Instance.id)):
        options = dict(instance.options or {})
        options["configuration"] = {
            **(options.get("configuration") or {}),
            "enable_my_events": True,
        }
        instance.options = options
        flag_modified(instance, "options")
    seller = ctx["users"]["seller@demo.test"]
    seller.options = {**(seller.options or {}), "timeZone": "Europe/Stockholm"}
    db.session.flush()
