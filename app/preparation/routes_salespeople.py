"""Who sold a vehicle: chosen with the move into a sold state (the state buttons), changed on
the vehicle page of a sold vehicle. The rules are app/preparation/salespeople.py."""

from flask import abort, flash, redirect, request
from flask_babel import gettext as _

from app.auth.session import safe_next
from app.auth.viewer import viewer
from app.core.numbers import request_int
from app.extensions import db
from app.preparation import bp, manage, salespeople
from app.preparation.items import manage_path


@bp.post("/<any(begcare, newcare):module>/items/<int:item_id>/salesperson")
def choose_salesperson(module: str, item_id: int):
    """Record or change who sold the vehicle; an empty choice removes it. Anyone who may see
    the vehicle may, as with its state buttons."""
    v = viewer()
    if module not in v.modules:
        abort(404)
    item = manage.find_item(item_id, [module], [d.id for d in v.visible_divisions])
    if item is None:
        abort(404)
    back = safe_next(request.form.get("next")) or manage_path(item) + "#salesperson"
    seller_id = request_int("salesperson_id", None, low=1, form=True)
    try:
        chosen = salespeople.choose(item, seller_id, v.user)
    except salespeople.SalespersonRefused as exc:
        db.session.rollback()
        flash(str(exc), "danger")
        return redirect(back)
    db.session.commit()
    if chosen:
        name = salespeople.name_of(seller_id)
        flash(
            _("%(regno)s was sold by %(name)s.", regno=item.regno, name=name)
            if name
            else _("%(regno)s has no salesperson now.", regno=item.regno),
            "success",
        )
    return redirect(back)


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
