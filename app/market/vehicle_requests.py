"""Vehicle requests: what a buyer is looking for, kept by the buyer and read by its partner
sellers."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, or_, select

from app.extensions import db
from app.market.groups import partner_seller_ids
from app.market.models import (
    Advert,
    InstanceGroup,
    MarketPartner,
    VehicleRequest,
)


@dataclass
class PartnerRequest:
    request: VehicleRequest
    company: str
    matching: int


def own_requests(group: InstanceGroup) -> list[VehicleRequest]:
    """The buyer's own requests, active ones first, newest first."""
    return list(
        db.session.scalars(
            select(VehicleRequest)
            .where(VehicleRequest.group_id == group.id)
            .order_by(
                VehicleRequest.active.desc(),
                VehicleRequest.created_at.desc(),
                VehicleRequest.id.desc(),
            )
        )
    )


def partner_requests(group: InstanceGroup) -> list[PartnerRequest]:
    """The active requests of the seller's partner buyers, with the number of the seller's own
    published or draft adverts of that brand (and model, when the request names one)."""
    same_model = or_(
        VehicleRequest.model.is_(None),
        VehicleRequest.model == "",
        func.lower(Advert.model) == func.lower(VehicleRequest.model),
    )
    matching = (
        select(func.count(Advert.id))
        .where(
            Advert.seller_group_id == group.id,
            Advert.status.in_(("published", "draft")),
            func.lower(Advert.brand) == func.lower(VehicleRequest.brand),
            same_model,
        )
        .correlate(VehicleRequest)
        .scalar_subquery()
    )
    buyers = select(MarketPartner.buyer_group_id).where(MarketPartner.seller_group_id == group.id)
    rows = db.session.execute(
        select(VehicleRequest, InstanceGroup.name, matching)
        .join(InstanceGroup, InstanceGroup.id == VehicleRequest.group_id)
        .where(VehicleRequest.group_id.in_(buyers), VehicleRequest.active.is_(True))
        .order_by(VehicleRequest.created_at.desc(), VehicleRequest.id.desc())
        .execution_options(all_instances=True)
    ).all()
    return [PartnerRequest(r, name, int(n or 0)) for r, name, n in rows]


def known_brands(group: InstanceGroup) -> list[str]:
    """The brands the buyer's sellers have advertised, as suggestions for a request."""
    brands = db.session.scalars(
        select(Advert.brand)
        .where(Advert.seller_group_id.in_(partner_seller_ids(group.id)))
        .group_by(Advert.brand)
        .order_by(Advert.brand)
        .limit(200)
        .execution_options(all_instances=True)
    )
    return [b for b in brands if b]


def own_request(group: InstanceGroup, request_id: int) -> VehicleRequest | None:
    """One of the buyer's own requests (None for any other, in any instance)."""
    return db.session.scalar(
        select(VehicleRequest).where(
            VehicleRequest.id == request_id, VehicleRequest.group_id == group.id
        )
    )


def add_request(group: InstanceGroup, user_id: int, **values) -> VehicleRequest:
    """A new active request in the buyer's currency."""
    text = {k: (v.strip() or None) if isinstance(v, str) else v for k, v in values.items()}
    request = VehicleRequest(
        group_id=group.id,
        currency=group.currency,
        created_by_id=user_id,
        active=True,
        **text,
    )
    db.session.add(request)
    db.session.flush()
    return request


def set_request_active(request: VehicleRequest, active: bool) -> None:
    request.active = active
    db.session.flush()
