"""The fixed vehicle states of both modules (DOMAIN.md): id, route segment and name."""

from dataclasses import dataclass

from flask_babel import lazy_gettext as _l

MODULES = ("begcare", "newcare")


@dataclass(frozen=True)
class State:
    id: int
    key: str  # the name the menu counts use (spec 01 section 2)
    segment: str  # the route segment: /{module}/items/{segment}
    title: object


STATES: tuple[State, ...] = (
    State(1, "leads", "leads", _l("Leads")),
    State(2, "incoming", "incoming", _l("Incoming")),
    State(3, "awaiting", "awaiting", _l("Awaiting")),
    State(4, "flow", "list", _l("Flow")),
    State(5, "parked", "parked", _l("Parked")),
    State(6, "showroom", "showroom", _l("Showroom")),
    State(7, "sold", "sold", _l("Sold, not delivered")),
    State(8, "deliveryflow", "deliveryflow", _l("Delivery flow")),
    State(9, "archived", "archived", _l("Archived")),
)
BY_ID = {s.id: s for s in STATES}
BY_SEGMENT = {s.segment: s for s in STATES}
UTILIZE_STATES = frozenset({3, 5, 7})  # spec 02: stations-utilize for these, else stations-manage
