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


@snapshot_part("custom_lists", empty=())
def custom_lists(user, instance) -> tuple[ListRef, ...]:
    """The user's custom lists by name (`v.custom_lists`)."""
    rows = db.session.execute(
        select(CustomList.id, CustomList.name)
        .where(CustomList.user_id == user.id)
        .order_by(CustomList.name)
    ).all()
    return tuple(ListRef(i, n) for i, n in rows)


@snapshot_part("dynamic_lists", empty=())
def dynamic_lists(user, instance) -> tuple[DynamicListRef, ...]:
    """The user's dynamic lists by title (`v.dynamic_lists`)."""
    rows = db.session.execute(
        select(DynamicList.uuid, DynamicList.title)
        .where(DynamicList.user_id == user.id)
        .order_by(DynamicList.title)
    ).all()
    return tuple(DynamicListRef(u, t) for u, t in rows)


menu_sources(CustomList, DynamicList)


@me_fields
def me_lists(user) -> dict:
    """/api/me's custom lists and saved filters in the user's active instance (global users have
    none: spec 01 section 6), across instances: the sign-in call answers before tenancy is set."""
    if user.is_global or user.active_instance_id is None:
        return {}
    scope = {"all_instances": True}
    custom = db.session.execute(
        select(CustomList.id, CustomList.name)
        .where(CustomList.user_id == user.id, CustomList.instance_id == user.active_instance_id)
        .order_by(CustomList.name)
        .execution_options(**scope)
    ).all()
    dynamic = db.session.execute(
        select(DynamicList.title, DynamicList.uuid)
        .where(DynamicList.user_id == user.id, DynamicList.instance_id == user.active_instance_id)
        .order_by(DynamicList.title)
        .execution_options(**scope)
    ).all()
    return {
        "custom_lists": [NamedRef(id=i, name=n) for i, n in custom],
        "dynamic_list_menu_items": [
            DynamicListMenuItem(dynamic_list=DynamicListRefOut(title=t, uuid=u)) for t, u in dynamic
        ],
    }
