"""Tenancy: every ORM query on an InstanceScoped model is limited to the active instance.

The active instance is set per request (from the signed-in user) with `activate()`. Code that
must look across instances (sign-in, CLI commands, the admin of instances) passes the execution
option `all_instances=True` or runs with no active instance.
"""

from flask import g, has_app_context
from sqlalchemy import event
from sqlalchemy.orm import ORMExecuteState, Session, with_loader_criteria

from app.core.models import InstanceScoped


def active_instance_id() -> int | None:
    """Return the instance the current request works in, if any."""
    return g.get("instance_id") if has_app_context() else None


def activate(instance_id: int | None) -> None:
    """Make `instance_id` the instance that queries and new rows belong to."""
    g.instance_id = instance_id


@event.listens_for(Session, "do_orm_execute")
def _limit_to_instance(state: ORMExecuteState) -> None:
    if state.is_column_load or state.is_relationship_load or not state.is_orm_statement:
        return  # loader criteria reach only ORM entities: a statement on tables is explicit
    if not (state.is_select or state.is_update or state.is_delete):
        return
    if state.execution_options.get("all_instances"):
        return
    instance_id = active_instance_id()
    if instance_id is None:
        return
    state.statement = state.statement.options(
        with_loader_criteria(
            InstanceScoped, lambda cls: cls.instance_id == instance_id, include_aliases=True
        )
    )


@event.listens_for(Session, "before_flush")
def _stamp_instance(session: Session, flush_context, instances) -> None:
    instance_id = active_instance_id()
    for obj in session.new:
        if isinstance(obj, InstanceScoped) and getattr(obj, "instance_id", None) is None:
            if instance_id is None:
                raise RuntimeError(f"{type(obj).__name__} created without an instance")
            obj.instance_id = instance_id
        elif (
            isinstance(obj, InstanceScoped)
            and instance_id is not None
            and obj.instance_id != instance_id
        ):
            raise PermissionError(f"{type(obj).__name__} written into another instance")
