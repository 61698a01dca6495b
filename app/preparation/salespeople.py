"""Who sold a vehicle: one of the seller users (admin/general/seller-users, SettingRow rows of
kind "seller"), of the vehicle's division or of the whole instance, chosen when the vehicle is
moved into a sold state. Moving between the sold states keeps it; when the division has seller
users the sale asks for one. Every choice is kept as an audit row the vehicle's history reads
(who, when, from, to: the names as they were). Services only flush; the view commits.
"""

from collections.abc import Iterable

from flask import has_request_context, request
from flask_babel import gettext as _
from flask_babel import ngettext
from sqlalchemy import func, or_, select

from app.core import audit
from app.core.settings import SettingRow
from app.core.tenancy import active_instance_id
from app.extensions import db
from app.preparation.models import PreparationItem

KIND = "seller"  # the SettingRow kind of admin/general/seller-users
SET_ACTION = "preparation.salesperson.set"
SOLD_STATES = frozenset({7, 8})  # sold, not delivered; the delivery flow
FILTER_ARG = "salesperson"  # the overview's advancedFilter[salesperson]
NONE = 0  # the filter's "no salesperson"


class SalespersonRefused(ValueError):
    """A salesperson the vehicle cannot take: a translated message."""


def sellers(division_ids: Iterable[int]) -> list[SettingRow]:
    """The active seller users of these divisions and of the whole instance, by name (read once
    per request: the state buttons, the filters and the tables all ask)."""
    ids = tuple(sorted(set(division_ids)))
    cache = request.environ.setdefault("preparation.sellers", {}) if has_request_context() else {}
    key = (active_instance_id(), ids)
    if key not in cache:
        cache[key] = list(
            db.session.scalars(
                select(SettingRow)  # the active instance's only (app.core.tenancy)
                .where(
                    SettingRow.kind == KIND,
                    SettingRow.active.is_(True),
                    or_(SettingRow.division_id.is_(None), SettingRow.division_id.in_(ids)),
                )
                .order_by(func.lower(SettingRow.name), SettingRow.id)
            )
        )
    return cache[key]


def offered(item: PreparationItem) -> list[SettingRow]:
    """The salespeople a sale of this vehicle offers: its division's and the instance's."""
    return sellers([item.division_id])


def asks(item: PreparationItem, to_state: int) -> bool:
    """Whether a move of the vehicle to `to_state` is a sale that asks for the salesperson:
    into a sold state from outside them, when the division has seller users."""
    return to_state in SOLD_STATES and item.state not in SOLD_STATES and bool(offered(item))


def refusal(item: PreparationItem, seller_id: int | None) -> str | None:
    """Why `seller_id` cannot be this vehicle's salesperson, or None."""
    if seller_id is None:
        return None
    if any(s.id == seller_id for s in offered(item)):
        return None
    return _("Choose one of the division's salespeople.")


def name_of(seller_id: int | None) -> str | None:
    """A seller user's name (None: none, or not the active instance's)."""
    if seller_id is None:
        return None
    return db.session.scalar(select(SettingRow.name).where(SettingRow.id == seller_id))


def choose(item: PreparationItem, seller_id: int | None, user) -> bool:
    """Record `seller_id` as who sold the vehicle (None: nobody given), with who chose, from
    and to. False when it was so already; SalespersonRefused for another division's."""
    before = item.salesperson_id
    if before == seller_id:  # kept, even when they no longer sell (inactive)
        return False
    if message := refusal(item, seller_id):
        raise SalespersonRefused(message)
    was = name_of(before)
    item.salesperson_id = seller_id
    audit.record(
        SET_ACTION, user=user, division_id=item.division_id, item_id=item.id,
        from_id=before, to_id=seller_id, **{"from": was, "to": name_of(seller_id)},
    )  # fmt: skip
    db.session.flush()
    return True


def for_sale(item: PreparationItem, to_state: int, seller_id: int | None) -> None:
    """Check the salesperson a move to `to_state` brings before the move is made: refused when
    the sale asks for one and none is given, or when it is not the division's."""
    if asks(item, to_state) and seller_id is None:
        raise SalespersonRefused(_("Choose the salesperson who sold the vehicle."))
    if message := refusal(item, seller_id):
        raise SalespersonRefused(message)


def history_text(details: dict) -> str:
    """A choice as the vehicle's history writes it."""
    before, after = details.get("from"), details.get("to")
    if after is None:
        return _("Salesperson %(from)s removed", **{"from": before})
    if before is None:
        return _("Sold by %(to)s", to=after)
    return _("Salesperson changed from %(from)s to %(to)s", **{"from": before, "to": after})


def names(division_ids: Iterable[int]) -> dict[int, str]:
    """Seller id -> name for the tables, the inactive ones too (they may have sold before)."""
    ids = tuple(sorted(set(division_ids)))
    rows = db.session.execute(
        select(SettingRow.id, SettingRow.name).where(
            SettingRow.kind == KIND,
            or_(SettingRow.division_id.is_(None), SettingRow.division_id.in_(ids)),
        )
    )
    return dict(rows.all())


def filter_choices(divisions: dict[int, str]) -> tuple:
    """The overview's salesperson filter: ((id, name), ...) with "No salesperson" first, or ()
    when these divisions have no seller users. A tuple: part of the cached filter form's key."""
    found = sellers(divisions)
    if not found:
        return ()
    several = len({s.division_id for s in found}) > 1
    return ((NONE, _("No salesperson")),) + tuple(
        (
            s.id,
            f"{s.name} ({divisions[s.division_id]})"
            if several and s.division_id in divisions
            else s.name,
        )
        for s in found
    )


def sold_counts(seller_ids: Iterable[int]) -> dict[int, int]:
    """Seller id -> how many vehicles they sold, for a page of the seller screen (one query)."""
    ids = list(seller_ids)
    if not ids:
        return {}
    rows = db.session.execute(
        select(PreparationItem.salesperson_id, func.count())
        .where(PreparationItem.salesperson_id.in_(ids))
        .group_by(PreparationItem.salesperson_id)
    )
    return dict(rows.all())


def in_use(seller: SettingRow) -> int:
    """How many vehicles this seller user sold."""
    return (
        db.session.scalar(
            select(func.count())
            .select_from(PreparationItem)
            .where(PreparationItem.salesperson_id == seller.id)
        )
        or 0
    )


def in_use_text(seller: SettingRow) -> str | None:
    """Why the seller user cannot be deleted (the vehicles they sold), or None."""
    count = in_use(seller)
    if not count:
        return None
    return ngettext(
        "%(num)s vehicle was sold by this salesperson. Switch “Active” off instead: they are then no longer offered on sales.",
        "%(num)s vehicles were sold by this salesperson. Switch “Active” off instead: they are then no longer offered on sales.",
        count,
    )
