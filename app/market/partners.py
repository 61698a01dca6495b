"""A seller's market partners and the invitations it sent: who trades with it, whom it may
invite, and whether an invite is already open."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import exists, func, literal, select

from app.extensions import db
from app.market.models import (
    InstanceGroup,
    MarketInvite,
    MarketPartner,
)


@dataclass
class Partner:
    name: str
    country_code: str
    currency: str
    since: datetime


def sent_invites(group: InstanceGroup) -> list[MarketInvite]:
    """The seller's invites, newest first."""
    return list(
        db.session.scalars(
            select(MarketInvite)
            .where(MarketInvite.seller_group_id == group.id)
            .order_by(MarketInvite.created_at.desc(), MarketInvite.id.desc())
        )
    )


def partners(group: InstanceGroup) -> list[Partner]:
    """The buyer companies that trade with the seller, by name (across instances)."""
    rows = db.session.execute(
        select(
            InstanceGroup.name,
            InstanceGroup.country_code,
            InstanceGroup.currency,
            MarketPartner.created_at,
        )
        .join(MarketPartner, MarketPartner.buyer_group_id == InstanceGroup.id)
        .where(MarketPartner.seller_group_id == group.id)
        .order_by(InstanceGroup.name, InstanceGroup.id)
        .execution_options(all_instances=True)
    )
    return [Partner(*row) for row in rows]


def invitable_companies(group: InstanceGroup, user) -> list[tuple[int, str]]:
    """Companies on the platform the seller may invite as such: the buyer companies the signed-in
    user works for besides the seller (what the user already knows), that are not partners yet;
    id and name only. Any other company is invited through the e-mail address of one of its
    people, whose administrator then answers signed in."""
    partners_ = select(MarketPartner.buyer_group_id).where(
        MarketPartner.seller_group_id == group.id
    )
    own = [i.id for i in user.instances if i.id != group.instance_id]
    if not own:
        return []
    rows = db.session.execute(
        select(InstanceGroup.id, InstanceGroup.name)
        .where(
            InstanceGroup.instance_id.in_(own),
            InstanceGroup.buyer.is_(True),
            InstanceGroup.id != group.id,
            InstanceGroup.id.not_in(partners_),
        )
        .order_by(InstanceGroup.name, InstanceGroup.id)
        .execution_options(all_instances=True)
    )
    return [(gid, name) for gid, name in rows]


def invitable_group(group: InstanceGroup, user, group_id: int) -> InstanceGroup | None:
    """The buyer group a seller may invite by its id, or None."""
    if not any(gid == group_id for gid, _name in invitable_companies(group, user)):
        return None
    return db.session.scalar(
        select(InstanceGroup)
        .where(InstanceGroup.id == group_id)
        .execution_options(all_instances=True)
    )


def open_invite_exists(group: InstanceGroup, email: str) -> bool:
    """Whether the seller already has an open invite to this e-mail address."""
    found = db.session.scalar(
        select(literal(1)).where(
            exists().where(
                MarketInvite.seller_group_id == group.id,
                func.lower(MarketInvite.email) == email.strip().lower(),
                MarketInvite.accepted_at.is_(None),
                MarketInvite.denied_at.is_(None),
            )
        )
    )
    return found is not None


# --- vehicle requests --------------------------------------------------------------------------
