"""The market settings of a group: its exchange rates, default bid step, invitation terms and
advert defaults."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import delete, select

from app.core.models import utcnow
from app.extensions import db
from app.market.models import (
    CURRENCIES,
    ExchangeRate,
    InstanceGroup,
)


def other_currencies(group: InstanceGroup) -> list[str]:
    return [c for c in CURRENCIES if c != group.currency]


def exchange_rates(group: InstanceGroup) -> dict[str, ExchangeRate]:
    """The group's rates from its own currency, by the currency they lead to."""
    rows = db.session.scalars(
        select(ExchangeRate).where(
            ExchangeRate.instance_id == group.instance_id,
            ExchangeRate.currency == group.currency,
        )
    )
    return {r.to_currency: r for r in rows}


def save_settings(
    group: InstanceGroup,
    rates: dict[str, Decimal | None],
    bid_step: int,
    invite_terms: str | None,
    **defaults,
) -> None:
    """Store the rates (None removes one), the default bid step and the invitation terms, and
    the advert defaults given by name (proxy_bidding, soft_close_seconds, rate_max_age_days)."""
    existing = exchange_rates(group)
    removed = [c for c, rate in rates.items() if rate is None and c in existing]
    if removed:
        db.session.execute(
            delete(ExchangeRate).where(
                ExchangeRate.instance_id == group.instance_id,
                ExchangeRate.currency == group.currency,
                ExchangeRate.to_currency.in_(removed),
            )
        )
    for to_currency, rate in rates.items():
        if rate is None:
            continue
        row = existing.get(to_currency)
        if row is None:
            db.session.add(
                ExchangeRate(
                    instance_id=group.instance_id,
                    currency=group.currency,
                    to_currency=to_currency,
                    rate=rate,
                )
            )
        elif Decimal(row.rate) != rate:
            row.rate = rate
            row.modified_at = utcnow()
    group.bid_step = bid_step
    group.invite_terms = (invite_terms or "").strip() or None
    for name, value in defaults.items():
        if value is not None:  # a number left empty keeps its value
            setattr(group, name, value)
    db.session.flush()


# --- invites -----------------------------------------------------------------------------------
