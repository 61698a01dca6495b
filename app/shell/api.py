"""Shell calls: the user's instances, changing the active one, and users to act as."""

from flask import Blueprint, session
from flask_login import current_user
from pydantic import Field
from sqlalchemy import func, select

from app.auth import impersonation
from app.auth.models import User, user_instances
from app.auth.viewer import DIVISION_SESSION_KEY
from app.core import audit
from app.core.api import ApiError, Schema, api_call
from app.core.messages import message
from app.core.roles import IS_IMPERSONATOR, ROLE_MANAGER_ADMIN, global_read
from app.extensions import db

bp = Blueprint("shell_api", __name__, url_prefix="/api")


class InstanceOut(Schema):
    id: int
    company_name: str = Field(serialization_alias="companyName")
    active: bool


class InstanceList(Schema):
    items: list[InstanceOut] = Field(serialization_alias="hydra:member")
    active_instance_id: int | None = Field(serialization_alias="activeInstanceId")


class UserOut(Schema):
    id: int
    username: str
    firstname: str
    lastname: str
    full_name: str = Field(serialization_alias="fullName")


class UserList(Schema):
    items: list[UserOut] = Field(serialization_alias="hydra:member")
    current_user_id: int = Field(serialization_alias="currentUserId")


class UsersQuery(Schema):
    pagination: str | None = Field(default=None, max_length=5)
    search: str | None = Field(default=None, max_length=100)


def _instances_out() -> InstanceList:
    return InstanceList(
        items=[
            InstanceOut(id=i.id, company_name=i.company_name, active=i.active)
            for i in current_user.instances
        ],
        active_instance_id=current_user.active_instance_id,
    )


@api_call(bp, "/me/instances", "GET", response=InstanceList)
def my_instances():
    """The companies the signed-in user may work in."""
    return _instances_out()


@api_call(bp, "/me/change-active-instance/<int:instance_id>", "PATCH", response=InstanceList)
def change_active_instance(instance_id: int):
    """Make another of the user's companies the active one (the page reloads afterwards)."""
    if instance_id not in {i.id for i in current_user.instances}:
        raise ApiError(404, message("ERROR.NOT_FOUND"))
    if instance_id != current_user.active_instance_id:
        audit.record(
            "instance_change",
            from_instance=current_user.active_instance_id,
            to_instance=instance_id,
        )
        current_user.active_instance_id = instance_id
        session.pop(DIVISION_SESSION_KEY, None)  # divisions belong to the old instance
        db.session.commit()
    return _instances_out()


@api_call(bp, "/users/detailed-list", "GET", query=UsersQuery, response=UserList)
def users_detailed_list(query: UsersQuery):
    """Users of the active instance, for acting as one of them."""
    if not (current_user.has_role(IS_IMPERSONATOR) or current_user.has_role(ROLE_MANAGER_ADMIN)):
        raise ApiError(403, message("ERROR.FORBIDDEN"))
    stmt = (
        select(User)
        .where(User.active.is_(True), User.login_type != "api")  # not the API tokens' users
        .order_by(User.firstname, User.lastname)
    )
    phrase = (query.search or "").strip().lower()
    if phrase and current_user.has_role(global_read("USER")):
        # A global user admin finds users of every instance by name or e-mail (issue 13).
        like = f"%{phrase}%"
        stmt = stmt.where(
            func.lower(User.email).like(like)
            | func.lower(User.firstname + " " + User.lastname).like(like)
        ).limit(50)
    else:
        members = select(user_instances.c.user_id).where(
            user_instances.c.instance_id == current_user.active_instance_id
        )
        stmt = stmt.where(User.id.in_(members))
    users = db.session.scalars(stmt)
    return UserList(
        items=[
            UserOut(
                id=u.id,
                username=u.email,
                firstname=u.firstname,
                lastname=u.lastname,
                full_name=u.full_name,
            )
            for u in users
        ],
        current_user_id=current_user.id,
    )


@api_call(bp, "/impersonate/<int:user_id>", "POST", response=UserOut)
def impersonate(user_id: int):
    """Act as another user; the session keeps the original user to return to."""
    target = db.session.get(User, user_id)
    if target is None or not impersonation.can_impersonate(current_user, target):
        raise ApiError(404, message("ERROR.NOT_FOUND"))
    impersonation.start(current_user._get_current_object(), target)
    db.session.commit()
    return UserOut(
        id=target.id, username=target.email, firstname=target.firstname, lastname=target.lastname,
        full_name=target.full_name,
    )  # fmt: skip


from app.shell import menu_island  # noqa: E402,F401 - the menu island's counts call (issue 17)
