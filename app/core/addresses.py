"""The divisions' addresses (admin/general/address) as the features use them: where an advert's
car stands (app/market) and where a delivery hands one over (app/bookings). A feature offers
and accepts only the active instance's addresses of the divisions at hand (the vehicle's, or
the ones the user sees) and those of the whole instance (division None)."""

from collections.abc import Iterable

from flask_babel import gettext as _
from sqlalchemy import func, or_, select
from wtforms import SelectField
from wtforms.validators import Optional

from app.core.settings import Address
from app.extensions import db


def offered(division_ids: Iterable[int]) -> list[Address]:
    """The active instance's addresses of these divisions and of the whole instance, by name."""
    ids = sorted(set(division_ids))
    return list(
        db.session.scalars(
            select(Address)  # the active instance's only (app.core.tenancy)
            .where(or_(Address.division_id.is_(None), Address.division_id.in_(ids)))
            .order_by(func.lower(Address.name), Address.id)
        )
    )


def address_field(label, description) -> SelectField:
    """A form's choice of one of the offered addresses, or none: the view gives the choices
    (offered) and the service checks the one chosen (refusal)."""
    return SelectField(
        label, validators=[Optional()], validate_choice=False, description=description
    )


def refusal(address_id: int | None, division_ids: Iterable[int]) -> str | None:
    """Why the address cannot be chosen for these divisions, or None (None: no address)."""
    if address_id is None or any(a.id == address_id for a in offered(division_ids)):
        return None
    return _("Choose one of the division's addresses.")


def first_of(division_id: int) -> Address | None:
    """The division's own first address (the default where a car of the division stands)."""
    return next((a for a in offered([division_id]) if a.division_id == division_id), None)


def one_line(address: Address | None) -> str:
    """The address as one line: name, street, postcode and city, the empty parts left out."""
    if address is None:
        return ""
    town = " ".join(p for p in (address.postcode, address.city) if p)
    return ", ".join(p for p in (address.name, address.street, town) if p)


def choices(division_ids: Iterable[int], divisions: dict[int, str] | None = None) -> list:
    """A select's choices: ("", "Not given") and (id, one line) for each address offered, with
    the division's name when `divisions` (id -> name) holds several."""
    rows = offered(division_ids)
    several = divisions is not None and len({a.division_id for a in rows} - {None}) > 1
    return [("", _("Not given"))] + [
        (
            str(a.id),
            f"{one_line(a)} ({divisions[a.division_id]})"
            if several and a.division_id in divisions
            else one_line(a),
        )
        for a in rows
    ]


def shown(address_id: int | None, instance_id: int) -> str:
    """The address as one line, read for whoever is shown it: another instance's bidder too,
    so by its owner's instance rather than the active one ("" when none)."""
    if address_id is None:
        return ""
    found = db.session.scalar(
        select(Address)
        .where(Address.id == address_id, Address.instance_id == instance_id)
        .execution_options(all_instances=True)
    )
    return one_line(found)
