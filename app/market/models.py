"""The market: instance groups, partners, invites, exchange rates, adverts, bids and the
public links that let people act on an advert without signing in.

Amounts are whole units of their currency. An advert, its links and its bids belong to the
seller's instance; a bidder's group belongs to another instance, so the buyer's views query
across instances in app.market.queries, always narrowed by the buyer's own group.
"""

import secrets
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    String,
    Text,
    UniqueConstraint,
    exists,
    false,
    true,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.core.i18n import current_locale
from app.core.localized import instance_locale, localized
from app.core.models import InstanceScoped, TimestampMixin, UTCDateTime, utcnow
from app.extensions import db
from app.preparation.items import ACTIVE_ADVERT_STATUSES, advertised_items

CURRENCIES = ("SEK", "NOK", "DKK", "EUR")
COUNTRIES = ("SE", "NO", "FI", "DE", "DK")
MAX_AMOUNT = 999_999_999
SOFT_CLOSE_SECONDS = 120  # a bid this close to the end moves the end this far after the bid
RATE_MAX_AGE_DAYS = 7  # an exchange rate older than this warns the seller before publishing


def public_hash() -> str:
    """A random token of 128 bits for public links."""
    return secrets.token_urlsafe(16)


class InstanceGroup(InstanceScoped, TimestampMixin, db.Model):
    """A company's presence on the market."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    buyer: Mapped[bool] = mapped_column(Boolean, default=False)
    seller: Mapped[bool] = mapped_column(Boolean, default=False)
    currency: Mapped[str] = mapped_column(String(3))
    country_code: Mapped[str] = mapped_column(String(2))
    hash: Mapped[str] = mapped_column(String(32), unique=True, default=public_hash)
    options: Mapped[dict] = mapped_column(JSON, default=dict)
    # Company and invoicing details given when the company registered through an invite.
    company_id: Mapped[str | None] = mapped_column(String(50))
    contact_name: Mapped[str | None] = mapped_column(String(200))
    contact_email: Mapped[str | None] = mapped_column(String(254))
    contact_phone: Mapped[str | None] = mapped_column(String(50))
    invoice_reference: Mapped[str | None] = mapped_column(String(200))
    invoice_email: Mapped[str | None] = mapped_column(String(254))
    # Seller settings: the bid step new adverts start with and the terms invitees accept.
    bid_step: Mapped[int] = mapped_column(Integer, default=1000, server_default="1000")
    invite_terms: Mapped[str | None] = mapped_column(Text)
    # Defaults of new adverts (issue 16): proxy bids, soft close; and how old an exchange rate
    # may be before the advert form warns the seller.
    proxy_bidding: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    soft_close_seconds: Mapped[int] = mapped_column(
        Integer, default=SOFT_CLOSE_SECONDS, server_default=str(SOFT_CLOSE_SECONDS)
    )
    rate_max_age_days: Mapped[int] = mapped_column(
        Integer, default=RATE_MAX_AGE_DAYS, server_default=str(RATE_MAX_AGE_DAYS)
    )
    # Reserve defaults: a new advert's reserve as a percentage above its start price (None: no
    # reserve unless the advert sets one), and the hours each side has to answer a provisional
    # sale (the seller after the end, the bidder after a counteroffer).
    reserve_percent: Mapped[int | None] = mapped_column(Integer)
    decision_hours: Mapped[int] = mapped_column(Integer, default=48, server_default="48")

    @property
    def enable_vehicle_request(self) -> bool:
        return bool(((self.options or {}).get("market") or {}).get("enableVehicleRequest"))


class MarketPartner(db.Model):
    """A buyer group that accepted a seller group's invite: it sees and bids on its adverts.
    Spans two instances, so it is not instance-scoped; queries name both groups."""

    __table_args__ = (UniqueConstraint("seller_group_id", "buyer_group_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    seller_group_id: Mapped[int] = mapped_column(
        ForeignKey("instance_group.id", ondelete="CASCADE"), index=True
    )
    buyer_group_id: Mapped[int] = mapped_column(
        ForeignKey("instance_group.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class MarketInvite(InstanceScoped, db.Model):
    """A seller's invitation of a company by e-mail (the seller's instance)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    seller_group_id: Mapped[int] = mapped_column(
        ForeignKey("instance_group.id", ondelete="CASCADE"), index=True
    )
    hash: Mapped[str] = mapped_column(String(32), unique=True, default=public_hash)
    company_name: Mapped[str] = mapped_column(String(200))
    company_id: Mapped[str | None] = mapped_column(String(50))
    email: Mapped[str] = mapped_column(String(254))
    language: Mapped[str] = mapped_column(String(5), default="sv-SE")
    # The group of a company already on the platform; None invites a new company.
    invited_group_id: Mapped[int | None] = mapped_column(
        ForeignKey("instance_group.id", ondelete="SET NULL")
    )
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    accepted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    denied_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    accepted_user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))

    seller_group: Mapped[InstanceGroup] = relationship(foreign_keys=[seller_group_id])
    invited_group: Mapped[InstanceGroup | None] = relationship(foreign_keys=[invited_group_id])

    @property
    def is_open(self) -> bool:
        return self.accepted_at is None and self.denied_at is None


class ExchangeRate(InstanceScoped, db.Model):
    """1 unit of `currency` is worth `rate` units of `to_currency` (kept by the seller)."""

    __table_args__ = (UniqueConstraint("instance_id", "currency", "to_currency"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    currency: Mapped[str] = mapped_column(String(3))
    to_currency: Mapped[str] = mapped_column(String(3))
    rate: Mapped[Decimal] = mapped_column(Numeric(14, 6))
    modified_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class Advert(InstanceScoped, TimestampMixin, db.Model):
    """A vehicle a seller group offers, with its bidding terms and status."""

    __table_args__ = (
        Index("ix_advert_instance_status", "instance_id", "status"),
        # The market statistics' adverts of a seller published, won and sold in a period.
        Index("ix_advert_seller_published", "seller_group_id", "published_at"),
        Index("ix_advert_seller_allocated", "seller_group_id", "allocated_at"),
        Index("ix_advert_seller_sold", "seller_group_id", "sold_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    hash: Mapped[str] = mapped_column(String(32), unique=True, default=public_hash)
    seller_group_id: Mapped[int] = mapped_column(
        ForeignKey("instance_group.id", ondelete="CASCADE"), index=True
    )
    item_id: Mapped[int | None] = mapped_column(
        ForeignKey("preparation_item.id", ondelete="SET NULL"), index=True
    )
    regno: Mapped[str] = mapped_column(String(20))
    vin: Mapped[str | None] = mapped_column(String(17))
    brand: Mapped[str] = mapped_column(String(100))
    model: Mapped[str] = mapped_column(String(100))
    model_year: Mapped[int | None] = mapped_column(Integer)
    mileage: Mapped[int | None] = mapped_column(Integer)
    fuel_type: Mapped[str | None] = mapped_column(String(50))
    color: Mapped[str | None] = mapped_column(String(50))
    description: Mapped[str | None] = mapped_column(Text)
    # The description per language (issue 37): the seller's, and any translations they add;
    # a bidder reads theirs, else the seller company's, else `description` as written.
    description_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    currency: Mapped[str] = mapped_column(String(3))
    start_price: Mapped[int] = mapped_column(Integer)
    bid_step: Mapped[int] = mapped_column(Integer)
    ends_at: Mapped[datetime] = mapped_column(UTCDateTime)
    status: Mapped[str] = mapped_column(String(20), default="draft")
    status_notes: Mapped[str | None] = mapped_column(String(255))
    published_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The highest bid in the advert's currency, kept with the bid under the advert's row lock.
    highest_bid: Mapped[int | None] = mapped_column(Integer)
    bid_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    allocated_group_id: Mapped[int | None] = mapped_column(
        ForeignKey("instance_group.id", ondelete="SET NULL"), index=True
    )
    allocated_price: Mapped[int | None] = mapped_column(Integer)
    allocated_notes: Mapped[str | None] = mapped_column(String(255))
    allocated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    sold_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The hidden reserve (advert's currency): bidding that ends under it makes the advert
    # provisionally sold to the highest bidder's group, which the seller accepts, declines or
    # counters (counter_price), each side before decision_due_at (app.market.reserve).
    reserve_price: Mapped[int | None] = mapped_column(Integer)
    provisional_group_id: Mapped[int | None] = mapped_column(
        ForeignKey("instance_group.id", ondelete="SET NULL")
    )
    counter_price: Mapped[int | None] = mapped_column(Integer)
    decision_due_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    # Issue 16: the group holding the highest bid (kept with it under the row lock), proxy
    # bidding, the soft close (0: off) and an optional buy-now price (advert's currency).
    highest_group_id: Mapped[int | None] = mapped_column(
        ForeignKey("instance_group.id", ondelete="SET NULL")
    )
    proxy_bidding: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    soft_close_seconds: Mapped[int] = mapped_column(
        Integer, default=SOFT_CLOSE_SECONDS, server_default=str(SOFT_CLOSE_SECONDS)
    )
    buy_now_price: Mapped[int | None] = mapped_column(Integer)
    # How many maxima bidders hold (a column of the locked row, so a waiting bid reads it fresh).
    maxima_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Where the car stands: one of the seller's division addresses (admin/general/address),
    # shown on the advert and to bidders (app/market/advert_places.py).
    address_id: Mapped[int | None] = mapped_column(ForeignKey("address.id", ondelete="SET NULL"))
    # Issue 33: the seller's choices of the vehicle passport shown to bidders (None: none);
    # app.market.passport reads them and computes the passport when it is shown.
    passport: Mapped[dict | None] = mapped_column(JSON)

    seller_group: Mapped[InstanceGroup] = relationship(foreign_keys=[seller_group_id])
    allocated_group: Mapped[InstanceGroup | None] = relationship(foreign_keys=[allocated_group_id])
    images: Mapped[list["AdvertImage"]] = relationship(
        order_by="AdvertImage.position", cascade="all, delete-orphan"
    )

    @property
    def title(self) -> str:
        return " ".join(p for p in (self.brand, self.model, str(self.model_year or "")) if p)

    @property
    def description_read(self) -> str:
        """The description as the current reader reads it (description_in)."""
        return self.description_in(current_locale())

    def description_in(self, locale: str) -> str:
        """The description in `locale`, else in the seller company's language, else as written
        (the company's language is only looked up when the reader's text is missing)."""
        texts = self.description_texts or {}
        return texts.get(locale) or localized(
            texts, None, instance_locale(self.instance_id) if texts else None,
            self.description or "",
        )  # fmt: skip


class AdvertImage(InstanceScoped, db.Model):
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    advert_id: Mapped[int] = mapped_column(ForeignKey("advert.id", ondelete="CASCADE"), index=True)
    file_object_id: Mapped[int] = mapped_column(ForeignKey("file_object.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer, default=0)


class MarketLink(InstanceScoped, db.Model):
    """One person's public link to one advert: `bid` for a bidder of a buyer group, `seller`
    for a user of the selling group (allocate and change-status). Its hash is the {userHash}
    of market-bid/{action}/{instanceGroupHash}/{advertHash}/{userHash}."""

    __table_args__ = (UniqueConstraint("advert_id", "user_id", "kind"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    hash: Mapped[str] = mapped_column(String(32), unique=True, default=public_hash)
    kind: Mapped[str] = mapped_column(String(10))
    advert_id: Mapped[int] = mapped_column(ForeignKey("advert.id", ondelete="CASCADE"), index=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("instance_group.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The holder asked for no more bidder e-mails about this advert (app.market.bidder_mail).
    unsubscribed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    advert: Mapped[Advert] = relationship()
    group: Mapped[InstanceGroup] = relationship()


class AdvertBid(InstanceScoped, db.Model):
    """A bid: never updated or deleted. `advert_amount` is the amount in the advert's currency
    (rounded down), which is what the next bid is computed from."""

    __table_args__ = (
        UniqueConstraint("link_id", "request_key"),
        Index("ix_advert_bid_advert_amount", "advert_id", "advert_amount"),
        Index("ix_advert_bid_created", "created_at"),  # the market statistics' period
        Index("ix_advert_bid_group_created", "group_id", "created_at"),  # a buyer's period
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    advert_id: Mapped[int] = mapped_column(ForeignKey("advert.id", ondelete="CASCADE"))
    group_id: Mapped[int] = mapped_column(ForeignKey("instance_group.id", ondelete="CASCADE"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    link_id: Mapped[int | None] = mapped_column(ForeignKey("market_link.id", ondelete="SET NULL"))
    # A random key per form: the same form sent twice (a double tap) records one bid.
    request_key: Mapped[str] = mapped_column(String(40))
    amount: Mapped[int] = mapped_column(Integer)
    currency: Mapped[str] = mapped_column(String(3))
    advert_amount: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # Issue 16: the rate `amount` was converted with (1 for the advert's own currency), and
    # whether the system placed the bid for a maximum (automatic) or it bought the advert.
    rate: Mapped[Decimal | None] = mapped_column(Numeric(14, 6))
    automatic: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    buy_now: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    group: Mapped[InstanceGroup] = relationship()


class AdvertBidMonth(InstanceScoped, db.Model):
    """How many bids a buyer group placed on a seller group's adverts in a UTC month: kept as
    bids are stored (app.market.bid_totals), so that the statistics read a year of bids in a
    row per company and month however many bids there are (issue 34). The seller's instance."""

    __tablename__ = "advert_bid_month"
    __table_args__ = (UniqueConstraint("seller_group_id", "buyer_group_id", "month"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    seller_group_id: Mapped[int] = mapped_column(
        ForeignKey("instance_group.id", ondelete="CASCADE")
    )
    buyer_group_id: Mapped[int] = mapped_column(
        ForeignKey("instance_group.id", ondelete="CASCADE"), index=True
    )
    month: Mapped[date] = mapped_column(Date)  # its first day
    bids: Mapped[int] = mapped_column(Integer)


class AdvertMaximum(InstanceScoped, db.Model):
    """A bidder's hidden maximum on an advert (proxy bidding), one per bid link, in the bidder's
    currency. It can only be raised; `set_at` (the time of the latest raise) breaks ties: the
    earliest maximum wins. Never shown to the seller."""

    __tablename__ = "advert_maximum"
    __table_args__ = (UniqueConstraint("link_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    advert_id: Mapped[int] = mapped_column(ForeignKey("advert.id", ondelete="CASCADE"), index=True)
    link_id: Mapped[int] = mapped_column(ForeignKey("market_link.id", ondelete="CASCADE"))
    group_id: Mapped[int] = mapped_column(ForeignKey("instance_group.id", ondelete="CASCADE"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    amount: Mapped[int] = mapped_column(Integer)
    currency: Mapped[str] = mapped_column(String(3))
    set_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class VehicleRequest(InstanceScoped, TimestampMixin, db.Model):
    """A buyer's wish for a vehicle, shown to the sellers it trades with."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    group_id: Mapped[int] = mapped_column(
        ForeignKey("instance_group.id", ondelete="CASCADE"), index=True
    )
    brand: Mapped[str] = mapped_column(String(100))
    model: Mapped[str | None] = mapped_column(String(100))
    model_year_from: Mapped[int | None] = mapped_column(Integer)
    model_year_to: Mapped[int | None] = mapped_column(Integer)
    max_mileage: Mapped[int | None] = mapped_column(Integer)
    max_price: Mapped[int | None] = mapped_column(Integer)
    currency: Mapped[str] = mapped_column(String(3))
    notes: Mapped[str | None] = mapped_column(String(1000))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))

    group: Mapped[InstanceGroup] = relationship()


class MarketWatch(InstanceScoped, db.Model):
    """An advert a user of a buyer company watches (the user's company's instance; the advert
    lives in the seller's)."""

    __table_args__ = (UniqueConstraint("instance_id", "user_id", "advert_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    advert_id: Mapped[int] = mapped_column(ForeignKey("advert.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class SavedSearch(InstanceScoped, TimestampMixin, db.Model):
    """A user's named market search (the advert list's filters, app.market.filters); while
    `notify` is on, each new advert it matches is e-mailed once. `token` is the e-mail's
    switch-off link."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    criteria: Mapped[dict] = mapped_column(JSON, default=dict)
    notify: Mapped[bool] = mapped_column(Boolean, default=True)
    token: Mapped[str] = mapped_column(String(32), unique=True, default=public_hash)


class SavedSearchHit(InstanceScoped, db.Model):
    """An advert a saved search was e-mailed about: at most one per advert and search."""

    __table_args__ = (UniqueConstraint("search_id", "advert_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    search_id: Mapped[int] = mapped_column(
        ForeignKey("saved_search.id", ondelete="CASCADE"), index=True
    )
    advert_id: Mapped[int] = mapped_column(ForeignKey("advert.id", ondelete="CASCADE"), index=True)
    mail_id: Mapped[int | None] = mapped_column(ForeignKey("email_message.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


@advertised_items
def has_active_advert(item_id):
    """An item's row is a blue callout while it has an active advert (spec 02)."""
    return exists().where(Advert.item_id == item_id, Advert.status.in_(ACTIVE_ADVERT_STATUSES))
