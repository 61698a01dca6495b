"""What preparation adds to the viewer (app.auth.viewer) and to /api/me: the user's custom and
dynamic lists."""

from dataclasses import dataclass

from sqlalchemy import select

from app.auth.api import DynamicListMenuItem, DynamicListRefOut, NamedRef, me_fields
from app.auth.viewer import menu_sources, snapshot_part
from app.extensions import db
from app.preparation.models import CustomList, DynamicList


@dataclass(frozen=True)
class ListRef:
    id: int
    name: str


@dataclass(frozen=True)
class DynamicListRef:
    uuid: str
    title: str


def _names(key, name, user_id: int, instance_id: int | None = None) -> list:
    """(key, name) of the user's lists of one kind (the columns' model), by name; with
    `instance_id`, that instance's lists read across instances (tenancy may not be set yet)."""
    model = key.class_
    stmt = select(key, name).where(model.user_id == user_id).order_by(name)
    if instance_id is not None:
        stmt = stmt.where(model.instance_id == instance_id).execution_options(all_instances=True)
    return db.session.execute(stmt).all()


@snapshot_part("custom_lists", empty=())
def custom_lists(user, instance) -> tuple[ListRef, ...]:
    """The user's custom lists by name (`v.custom_lists`)."""
    return tuple(ListRef(i, n) for i, n in _names(CustomList.id, CustomList.name, user.id))


@snapshot_part("dynamic_lists", empty=())
def dynamic_lists(user, instance) -> tuple[DynamicListRef, ...]:
    """The user's dynamic lists by title (`v.dynamic_lists`)."""
    rows = _names(DynamicList.uuid, DynamicList.title, user.id)
    return tuple(DynamicListRef(u, t) for u, t in rows)


menu_sources(CustomList, DynamicList)


@me_fields
def me_lists(user) -> dict:
    """/api/me's custom lists and saved filters in the user's active instance (global users have
    none: spec 01 section 6), across instances: the sign-in call answers before tenancy is set."""
    if user.is_global or user.active_instance_id is None:
        return {}
    instance_id = user.active_instance_id
    custom = _names(CustomList.id, CustomList.name, user.id, instance_id)
    dynamic = _names(DynamicList.uuid, DynamicList.title, user.id, instance_id)
    return {
        "custom_lists": [NamedRef(id=i, name=n) for i, n in custom],
        "dynamic_list_menu_items": [
            DynamicListMenuItem(dynamic_list=DynamicListRefOut(title=t, uuid=u)) for u, t in dynamic
        ],
    }
