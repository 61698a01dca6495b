"""Who sold a vehicle: chosen with the move into a sold state (the state buttons), changed on
the vehicle page of a sold vehicle. The rules are app/preparation/salespeople.py."""

from flask_babel import gettext as _

from app.auth.viewer import viewer
from app.core.numbers import request_int
from app.preparation import bp, manage, salespeople
from app.preparation.routes_manage import act_then_back, back_path


@bp.post("/<any(begcare, newcare):module>/items/<int:item_id>/salesperson")
def choose_salesperson(module: str, item_id: int):
    """Record or change who sold the vehicle; an empty choice removes it. Anyone who may see
    the vehicle may, as with its state buttons."""
    v = viewer()
    item = manage.item_or_404(module, item_id)
    seller_id = request_int("salesperson_id", None, low=1, form=True)

    def done(chosen: bool) -> str | None:
        if not chosen:
            return None
        name = salespeople.name_of(seller_id)
        if name:
            return _("%(regno)s was sold by %(name)s.", regno=item.regno, name=name)
        return _("%(regno)s has no salesperson now.", regno=item.regno)

    return act_then_back(
        back_path(item, "#salesperson"),
        lambda: salespeople.choose(item, seller_id, v.user),
        salespeople.SalespersonRefused,
        done,
    )


@bp.app_template_global()
def sale_sellers(item, to_state=None):
    """The salespeople the vehicle page offers: for a move to `to_state`, those the sale asks
    to choose from (empty when it does not ask); without it, its division's."""
    if to_state is not None and not salespeople.asks(item, to_state):
        return []
    return salespeople.offered(item)


@bp.app_template_global()
def salesperson_name(item):
    """Who sold the vehicle (None: not given)."""
    return salespeople.name_of(item.salesperson_id)
