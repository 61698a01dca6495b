"""The fixed vehicle states of both modules (DOMAIN.md): id, route segment and name."""

from dataclasses import dataclass

from flask_babel import lazy_gettext as _l

from app.core.models import Instance
from app.core.tenancy import active_instance_id
from app.extensions import db

MODULES = ("begcare", "newcare")


@dataclass(frozen=True)
class State:
    id: int
    key: str  # the name the menu counts use (spec 01 section 2)
    segment: str  # the route segment: /{module}/items/{segment}
    title: object
    option: str | None = None  # the module option that switches the state (and its pages) on


STATES: tuple[State, ...] = (
    State(1, "leads", "leads", _l("Leads"), "leads"),
    State(2, "incoming", "incoming", _l("Incoming")),
    State(3, "awaiting", "awaiting", _l("Awaiting")),
    State(4, "flow", "list", _l("Flow")),
    State(5, "parked", "parked", _l("Parked")),
    State(6, "showroom", "showroom", _l("Showroom")),
    State(7, "sold", "sold", _l("Sold, not delivered")),
    State(8, "deliveryflow", "deliveryflow", _l("Delivery flow"), "soldFlow"),
    State(9, "archived", "archived", _l("Archived")),
)
BY_ID = {s.id: s for s in STATES}
ARCHIVED = 9  # out of stock: kept as history
BY_SEGMENT = {s.segment: s for s in STATES}
UTILIZE_STATES = frozenset({3, 5, 7})  # spec 02: stations-utilize for these, else stations-manage


def state_enabled(v, module: str, state: State) -> bool:
    """Whether the instance uses this state: leads and the delivery flow can be switched off
    (admin/general/configuration), and then neither their menu entries nor their pages exist."""
    return state.option is None or v.module_option(module, state.option)


def states_off(module: str) -> frozenset[int]:
    """The states the active instance has switched off (leads, the delivery flow): no state
    button leads into them and no move into them is accepted (docs/decisions.md)."""
    instance_id = active_instance_id()
    instance = db.session.get(Instance, instance_id) if instance_id is not None else None
    if instance is None:
        return frozenset()
    return frozenset(
        s.id for s in STATES if s.option and not instance.module_option(module, s.option)
    )
