"""What happens in the product, announced to whoever listens: a vehicle added, a state
changed, a vehicle sold, an advert published or allocated, a station task overdue, a bid placed
(the engine reads nothing for it unless an instance listens: a bid's path counts its statements,
docs/decisions.md), a module's rule coming to hold for a vehicle (app/automation/rules.py), a
task's estimate put to the managers (app/preparation/recon.py).

A feature announces with `announce(name, instance_id, **facts)` (many things at once, e.g. a
nightly job's vehicles: `announce_all`); the event engine (app/automation) listens with
`@listener`. This module sits in core so that no feature imports the engine
(tests/test_import_graph.py): the features know only this registry.

`facts` are plain JSON values (ids, names, numbers, ISO times): they become the webhook payload's
`data` as they are.
"""

from collections.abc import Callable

# The events, by name: what the product announces (the engine's choices and the webhook schema).
EVENTS = (
    "vehicle.added",
    "vehicle.state_changed",
    "vehicle.sold",
    "advert.published",
    "advert.allocated",
    "task.overdue",
    "bid.placed",
    "rule.matched",
    "task.approval_requested",
)

_LISTENERS: list[Callable[[str, int, list[dict]], None]] = []


def listener(
    fn: Callable[[str, int, list[dict]], None],
) -> Callable[[str, int, list[dict]], None]:
    """Register `fn(name, instance_id, many)`, called for every announcement with the facts of
    each thing it is about (one, or many at once: `announce_all`)."""
    if fn not in _LISTENERS:
        _LISTENERS.append(fn)
    return fn


def announce(name: str, instance_id: int | None, **facts) -> None:
    """Tell every listener that `name` happened in an instance (inside the caller's unit of
    work: what the listeners add is committed, or rolled back, with it)."""
    announce_all(name, instance_id, [facts])


def announce_all(name: str, instance_id: int | None, many: list[dict]) -> None:
    """`announce` for many things at once (a nightly job's vehicles): each listener hears them
    together, so that it reads what it needs once, not once per thing."""
    if name not in EVENTS:
        raise ValueError(f"unknown event {name}")
    if instance_id is None or not many:
        return
    for fn in _LISTENERS:
        fn(name, instance_id, many)
