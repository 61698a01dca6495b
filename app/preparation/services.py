"""Preparation rules that other features rely on: creating and moving items, and the counters."""

from collections import defaultdict
from collections.abc import Iterable

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from app.core.happenings import announce
from app.core.models import Instance, new_version, utcnow
from app.extensions import db
from app.preparation.models import ItemStateCount, ItemStateEvent, PreparationItem
from app.preparation.states import BY_ID, STATES


def _bump(instance_id: int, module: str, division_id: int, state: int, delta: int) -> None:
    """Add `delta` to one counter row, creating the row when it does not exist yet."""
    table = ItemStateCount.__table__
    result = db.session.execute(
        update(table)
        .where(
            table.c.instance_id == instance_id,
            table.c.module == module,
            table.c.division_id == division_id,
            table.c.state == state,
        )
        .values(count=table.c.count + delta)
    )
    if result.rowcount:
        return
    try:
        with db.session.begin_nested():
            db.session.execute(
                table.insert().values(
                    instance_id=instance_id, module=module, division_id=division_id,
                    state=state, count=delta,
                )
            )  # fmt: skip
    except IntegrityError:  # a parallel transaction created the row first
        _bump(instance_id, module, division_id, state, delta)


def bump_counts_version(instance_id: int) -> None:
    """Mark an instance's vehicle counts as changed, for the shell's counts cache."""
    table = Instance.__table__
    db.session.execute(
        update(table).where(table.c.id == instance_id).values(counts_version=new_version())
    )


def add_item(item: PreparationItem, user_id: int | None = None) -> PreparationItem:
    """Store a new item in its first state, with its first state event."""
    if item.state not in BY_ID:
        raise ValueError(f"unknown state {item.state}")
    item.state_changed_at = item.state_changed_at or utcnow()
    db.session.add(item)
    db.session.flush()
    db.session.add(
        ItemStateEvent(
            instance_id=item.instance_id, item_id=item.id, from_state=None, to_state=item.state,
            user_id=user_id, created_at=item.state_changed_at,
        )
    )  # fmt: skip
    _bump(item.instance_id, item.module, item.division_id, item.state, +1)
    bump_counts_version(item.instance_id)
    announce("vehicle.added", item.instance_id, **_facts(item))
    return item


def _facts(item: PreparationItem) -> dict:
    """What an event about a vehicle tells (app/core/happenings.py)."""
    return {
        "itemId": item.id, "module": item.module, "regno": item.regno, "vin": item.vin,
        "brand": item.brand, "model": item.model, "divisionId": item.division_id,
        "state": BY_ID[item.state].key,
    }  # fmt: skip


def move_item(item: PreparationItem, to_state: int, user_id: int | None = None, when=None) -> None:
    """Move an item to another state, recording the event and keeping the counters right."""
    if to_state not in BY_ID:
        raise ValueError(f"unknown state {to_state}")
    if to_state == item.state:
        return
    when = when or utcnow()
    db.session.add(
        ItemStateEvent(
            instance_id=item.instance_id, item_id=item.id, from_state=item.state,
            to_state=to_state, user_id=user_id, created_at=when,
        )
    )  # fmt: skip
    _bump(item.instance_id, item.module, item.division_id, item.state, -1)
    _bump(item.instance_id, item.module, item.division_id, to_state, +1)
    bump_counts_version(item.instance_id)
    previous = BY_ID[item.state].key
    item.state, item.state_changed_at = to_state, when
    announce("vehicle.state_changed", item.instance_id, **_facts(item), previousState=previous)
    if BY_ID[to_state].key == "sold":
        announce("vehicle.sold", item.instance_id, **_facts(item))


def state_counts(division_ids: Iterable[int] | None) -> dict[str, dict[int, int]]:
    """Items per module and state in the active instance for these divisions (None: all).

    One grouped query over the counter rows, for every module at once."""
    stmt = select(ItemStateCount.module, ItemStateCount.state, func.sum(ItemStateCount.count))
    if division_ids is not None:
        stmt = stmt.where(ItemStateCount.division_id.in_(list(division_ids)))
    stmt = stmt.group_by(ItemStateCount.module, ItemStateCount.state)
    counts: dict[str, dict[int, int]] = defaultdict(lambda: {s.id: 0 for s in STATES})
    for module, state, total in db.session.execute(stmt):
        counts[module][state] = int(total or 0)
    return counts


def recount(instance_id: int) -> int:
    """Rebuild one instance's counters from the items; returns the number of counter rows."""
    table = ItemStateCount.__table__
    db.session.execute(table.delete().where(table.c.instance_id == instance_id))
    rows = db.session.execute(
        select(
            PreparationItem.module, PreparationItem.division_id, PreparationItem.state, func.count()
        )
        .where(PreparationItem.instance_id == instance_id)
        .group_by(PreparationItem.module, PreparationItem.division_id, PreparationItem.state)
        .execution_options(all_instances=True)
    ).all()
    for module, division_id, state, count in rows:
        db.session.execute(
            table.insert().values(
                instance_id=instance_id, module=module, division_id=division_id, state=state,
                count=count,
            )
        )  # fmt: skip
    bump_counts_version(instance_id)
    return len(rows)
