"""Moving a vehicle or its keys: one form, from the vehicle page (a choice) and from a station
phone (one button per place). The rules are app/preparation/locations.py."""

from flask_babel import gettext as _

from app.auth.viewer import viewer
from app.core.numbers import request_int
from app.preparation import bp, locations, manage
from app.preparation.routes_manage import act_then_back, back_path

KIND_RULE = "<any(parking, key, delivery):kind>"


@bp.post("/<any(begcare, newcare):module>/items/<int:item_id>/locations/" + KIND_RULE)
def move_location(module: str, item_id: int, kind: str):
    """Put the vehicle (parking, delivery) or its keys at one of its division's locations; an
    empty choice takes it from where it was. Anyone who may see the vehicle may move it."""
    v = viewer()
    item = manage.item_or_404(module, item_id)
    location_id = request_int("location_id", None, low=1, form=True)

    def done(moved: bool) -> str | None:
        if not moved:
            return None
        place = locations.current(item)[kind]
        return _message(kind, item.regno, place.shown_name if place else None)

    return act_then_back(
        back_path(item, "#locations"),
        lambda: locations.move(item, kind, location_id, v.user),
        locations.LocationRefused,
        done,
    )


def _message(kind: str, regno: str, place: str | None) -> str:
    if place is None:
        return {
            "parking": _("%(regno)s has no parking location now.", regno=regno),
            "key": _("The keys of %(regno)s have no key location now.", regno=regno),
            "delivery": _("%(regno)s has no delivery location now.", regno=regno),
        }[kind]
    return {
        "parking": _("%(regno)s is parked at %(place)s.", regno=regno, place=place),
        "key": _("The keys of %(regno)s are in %(place)s.", regno=regno, place=place),
        "delivery": _("%(regno)s is delivered from %(place)s.", regno=regno, place=place),
    }[kind]


@bp.app_template_global()
def item_places(item):
    """The places of the vehicle page's card (templates/preparation/manage/_locations.html)."""
    return locations.item_places(item)


@bp.app_template_global()
def station_places(rows):
    """The places a station phone's cards offer, per item id, read once for every card."""
    return locations.station_places(row.item for row in rows)
