"""Tenancy: every ORM query on an InstanceScoped model is limited to the active instance.

The active instance is set per request (from the signed-in user) with `activate()`. Code that
must look across instances (sign-in, CLI commands, the admin of instances) passes the execution
option `all_instances=True` or runs with no active instance.
"""

from functools import lru_cache

from flask import g, has_app_context
from sqlalchemy import Executable, event, inspect
from sqlalchemy.orm import ORMExecuteState, Session, with_loader_criteria

from app.core.models import InstanceScoped


def active_instance_id() -> int | None:
    """Return the instance the current request works in, if any."""
    return g.get("instance_id") if has_app_context() else None


def activate(instance_id: int | None) -> None:
    """Make `instance_id` the instance that queries and new rows belong to."""
    g.instance_id = instance_id


BUILT_ONCE = "tenancy_built_once"


def built_once(stmt: Executable) -> Executable:
    """Mark a statement that is built once and run on every request with bound parameters:
    the hook below scopes it once per instance and keeps that, where it otherwise makes a new
    statement on each run whose cache key SQLAlchemy then works out again."""
    return stmt.execution_options(**{BUILT_ONCE: True})


def _criteria(instance_id: int):
    return with_loader_criteria(
        InstanceScoped, lambda cls: cls.instance_id == instance_id, include_aliases=True
    )


@lru_cache(maxsize=512)
def _scoped_once(stmt: Executable, instance_id: int) -> Executable:
    return stmt.options(_criteria(instance_id))


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
    if state.execution_options.get(BUILT_ONCE):
        state.statement = _scoped_once(state.statement, instance_id)
    else:
        state.statement = state.statement.options(_criteria(instance_id))


# Where a row was stamped when it was added (kept on the object), so that a flush can tell a
# row moved to another instance afterwards.
_ADDED_IN = "_tenancy_added_in"


@event.listens_for(Session, "before_attach")
def _stamp_on_add(session: Session, obj) -> None:
    """A new row belongs to the instance active when it is added (`session.add`, or cascaded in
    through a relationship), not whichever is active when the session flushes: code that adds
    rows for several instances in turn cannot put one into the wrong instance. A row that
    names another instance than the active one is refused here."""
    if not isinstance(obj, InstanceScoped) or inspect(obj).key is not None:
        return  # not scoped, or already stored (a row merged or moved between sessions)
    instance_id = active_instance_id()
    current = getattr(obj, "instance_id", None)
    if current is None and instance_id is not None:
        obj.instance_id = current = instance_id
    elif current is not None and instance_id is not None and current != instance_id:
        raise PermissionError(f"{type(obj).__name__} written into another instance")
    setattr(obj, _ADDED_IN, current)


@event.listens_for(Session, "before_flush")
def _check_instance(session: Session, flush_context, instances) -> None:
    """A new row without an instance is refused, as is one whose instance was changed after it
    was added (to another than the active one)."""
    instance_id = active_instance_id()
    for obj in session.new:
        if not isinstance(obj, InstanceScoped):
            continue
        current = getattr(obj, "instance_id", None)
        if current is None:
            if instance_id is None:
                raise RuntimeError(f"{type(obj).__name__} created without an instance")
            obj.instance_id = current = instance_id  # added before any instance was active
        added_in = getattr(obj, _ADDED_IN, None)
        if added_in is not None and current != added_in and current != instance_id:
            raise PermissionError(f"{type(obj).__name__} written into another instance")
