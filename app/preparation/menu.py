"""What preparation adds to the shell's main menu: the vehicle modules with a count per state."""

from flask_babel import lazy_gettext as _l

from app.core import roles as R
from app.core.modules import MODULE_NAMES
from app.preparation.services import state_counts
from app.preparation.states import STATES, state_enabled
from app.shell.layout import menu_counts
from app.shell.menu import Entry, any_of, any_role_prefix, has, main_entry, module


def vehicle_module(name: str) -> Entry:
    base = f"/{name}"
    items = tuple(
        Entry(
            f"{name}.items.{s.segment}",
            s.title,
            f"{base}/items/{s.segment}",
            rule=(lambda state: lambda v: state_enabled(v, name, state))(s),
            count=(name, s.id),
        )  # fmt: skip
        for s in STATES
    )
    return Entry(
        name,
        MODULE_NAMES[name],
        base,
        rule=module(name),
        icon="car",
        children=(
            Entry(f"{name}.dashboard", _l("Dashboard"), f"{base}/dashboard"),
            *items,
            Entry(
                f"{name}.statistics",
                _l("Statistics"),
                f"{base}/statistics",
                rule=has(R.ROLE_STATISTICS),
            ),
            Entry(
                f"{name}.add",
                _l("Add vehicle"),
                f"{base}/manage/vehicle?action=add",
                rule=any_role_prefix(R.add_vehicle(name)),
            ),  # fmt: skip
            Entry(f"{name}.overview", _l("Overview"), f"{base}/overview"),
            Entry(
                f"{name}.recon-approvals",
                _l("Estimates to approve"),
                f"{base}/recon/approvals",
                rule=has(R.ROLE_MANAGER_ADMIN),
            ),  # fmt: skip
            Entry(
                f"{name}.admin",
                _l("Module administration"),
                f"{base}/admin",
                rule=any_of(has(R.ROLE_ADMIN), lambda v: v.is_division_admin),
            ),  # fmt: skip
        ),
    )


main_entry(vehicle_module("begcare"), after="my-lists")
main_entry(vehicle_module("newcare"), after="begcare")


@menu_counts(applies=lambda v: bool({"begcare", "newcare"} & set(v.modules)))
def vehicle_counts(v) -> dict[str, dict[int, int]]:
    """Vehicle counts per module and state: one grouped query over the maintained counters."""
    return dict(state_counts(v.selected_division_ids))
