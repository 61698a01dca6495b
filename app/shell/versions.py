"""Keep the shell cache honest: bump an instance's menu version when what menus show changes."""

from sqlalchemy import event, update
from sqlalchemy.orm import Session

from app.auth.models import Group, User
from app.core.models import Country, Division, Instance, Region, new_version, utcnow
from app.market.models import InstanceGroup
from app.preparation.models import CustomList, DynamicList

# Rows whose change alters some user's menu, division selector or lists.
MENU_SOURCES = (CustomList, DynamicList, Division, Region, Country, Group, InstanceGroup)


@event.listens_for(Session, "before_flush")
def _bump_menu_versions(session: Session, flush_context, instances) -> None:
    changed = set()
    for obj in (*session.new, *session.dirty, *session.deleted):
        if isinstance(obj, MENU_SOURCES) and getattr(obj, "instance_id", None) is not None:
            changed.add(obj.instance_id)
        elif isinstance(obj, Instance) and obj in session.dirty and session.is_modified(obj):
            obj.menu_version = new_version()
        elif isinstance(obj, User) and obj in session.dirty:
            obj.modified_at = utcnow()  # also for changes to its groups, divisions, instances
    if changed:
        table = Instance.__table__
        session.execute(
            update(table).where(table.c.id.in_(changed)).values(menu_version=new_version())
        )
