"""Creating and editing adverts: the form's data, the vehicle it is filled from, its images,
publishing (which e-mails the bid links) and the exchange rates too old to publish with.
Services only flush; the view commits."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import delete, select

from app.core import audit
from app.core.happenings import announce
from app.core.models import utcnow
from app.extensions import db
from app.market.adverts import advert_images, aware
from app.market.bid_links import send_bid_links
from app.market.models import (
    SOFT_CLOSE_SECONDS,
    Advert,
    AdvertImage,
    ExchangeRate,
    InstanceGroup,
)
from app.market.reserve import default_reserve
from app.preparation.files import IMAGE_TYPES, store_file
from app.preparation.items import ARCHIVED, normalise_regno
from app.preparation.models import FileObject, ItemFile, PreparationItem

MAX_IMAGES = 20


@dataclass
class AdvertData:
    regno: str
    brand: str
    model: str
    start_price: int
    bid_step: int
    ends_at: datetime
    model_year: int | None = None
    vin: str | None = None
    mileage: int | None = None
    fuel_type: str | None = None
    color: str | None = None
    description: str | None = None
    description_texts: dict = field(default_factory=dict)  # {tag: text}: the seller's and more
    item_id: int | None = None
    proxy_bidding: bool = True
    soft_close_seconds: int = SOFT_CLOSE_SECONDS
    buy_now_price: int | None = None
    reserve_price: int | None = None  # 0: none, even where the seller has a default
    address_id: int | None = None  # where the car stands (app/core/addresses.py)


def stock_items(q: str, division_ids: list[int], limit: int = 10) -> list[PreparationItem]:
    """The instance's vehicles (not archived) whose registration number holds the search."""
    regno = normalise_regno(q)[:20]
    if not regno or not division_ids:
        return []
    return list(
        db.session.scalars(
            select(PreparationItem)
            .where(
                PreparationItem.module.in_(("begcare", "newcare")),
                PreparationItem.state != ARCHIVED,
                PreparationItem.division_id.in_(division_ids),
                PreparationItem.regno.contains(regno, autoescape=True),
            )
            .order_by(PreparationItem.regno, PreparationItem.id)
            .limit(limit)
        )
    )


def stock_item(item_id: int | None, division_ids: list[int]) -> PreparationItem | None:
    if not item_id or not division_ids:
        return None
    return db.session.scalar(
        select(PreparationItem).where(
            PreparationItem.id == item_id,
            PreparationItem.module.in_(("begcare", "newcare")),
            PreparationItem.state != ARCHIVED,
            PreparationItem.division_id.in_(division_ids),
        )
    )


def address_divisions(item: PreparationItem | None, division_ids: list[int]) -> list[int]:
    """Whose addresses the advert may name: its vehicle's division's, else those of the
    divisions the seller sees (and the whole instance's, app.core.addresses)."""
    return [item.division_id] if item is not None else division_ids


def vehicle_photos(item_id: int) -> list[ItemFile]:
    """The vehicle's images (not its documents), oldest first: what an advert started from it
    offers to carry over."""
    return list(
        db.session.scalars(
            select(ItemFile)
            .join(FileObject, FileObject.id == ItemFile.file_object_id)
            .where(ItemFile.item_id == item_id, FileObject.content_type.in_(IMAGE_TYPES))
            .order_by(ItemFile.created_at, ItemFile.id)
        )
    )


def _copy(file: FileObject, user_id: int) -> FileObject:
    """A copy of a vehicle's stored photo that the advert owns: removing it from the advert, or
    the photo from the vehicle, leaves the other alone."""
    copy = FileObject(
        name=file.name, content_type=file.content_type, size=file.size, data=file.data,
        small=file.small, created_by_id=user_id,
    )  # fmt: skip
    db.session.add(copy)
    return copy


def _apply(advert: Advert, data: AdvertData) -> None:
    for name in (
        "regno", "vin", "brand", "model", "model_year", "mileage", "fuel_type", "color",
        "description", "description_texts", "start_price", "bid_step", "ends_at", "item_id",
        "reserve_price", "proxy_bidding", "soft_close_seconds", "buy_now_price", "address_id",
    ):  # fmt: skip
        setattr(advert, name, getattr(data, name))


def _add_images(
    advert: Advert, uploads: list[tuple[bytes, str]], user_id: int, photos: list[ItemFile] = ()
) -> None:
    """Add the vehicle's photos carried over (copied) and then the uploads, after the images
    the advert has."""
    start = len(advert_images(advert.id)) if advert.id else 0
    files = [_copy(photo.file, user_id) for photo in photos]
    files += [store_file(content, name, user_id) for content, name in uploads]
    db.session.flush()
    for position, file in enumerate(files, start=start):
        db.session.add(AdvertImage(advert_id=advert.id, file_object_id=file.id, position=position))


def _remove_images(advert: Advert, image_ids: set[int]) -> None:
    """Delete the advert's images of those ids and their stored files; others' ids do nothing."""
    images = [image for image in advert_images(advert.id) if image.id in image_ids]
    file_ids = [image.file_object_id for image in images]
    for image in images:
        db.session.delete(image)
    db.session.flush()
    if file_ids:
        db.session.execute(
            delete(FileObject).where(
                FileObject.id.in_(file_ids), FileObject.instance_id == advert.instance_id
            )
        )
    # The images left keep their order, numbered from 0 again.
    for position, image in enumerate(advert_images(advert.id)):
        image.position = position


def publish(advert: Advert, group: InstanceGroup) -> int:
    """Put a draft on the market and send the bid links; return how many were sent."""
    from app.market.watch import advert_published  # watch builds on this module

    if advert.published_at is None:
        advert_published(advert)
    advert.status = "published"
    advert.published_at = advert.published_at or utcnow()
    db.session.flush()
    announce("advert.published", advert.instance_id, **advert_facts(advert))
    return send_bid_links(advert, group)


def advert_facts(advert: Advert) -> dict:
    """What an event about an advert tells (app/core/happenings.py)."""
    return {
        "advertId": advert.id, "regno": advert.regno, "brand": advert.brand,
        "model": advert.model, "currency": advert.currency, "startPrice": advert.start_price,
    }  # fmt: skip


def create_advert(
    group: InstanceGroup, data: AdvertData, uploads, user, publish_now: bool, photos=()
) -> tuple[Advert, int]:
    """A new advert of the group in its currency, with its images (the vehicle's `photos`
    copied, then the uploads); published (and its bid links sent) when asked. Returns the
    advert and how many bid links were sent."""
    advert = Advert(
        seller_group_id=group.id, currency=group.currency, status="draft", created_by_id=user.id
    )
    if data.reserve_price is None:  # left empty: the seller's default, if any
        data.reserve_price = default_reserve(data.start_price, group.reserve_percent)
    _apply(advert, data)
    db.session.add(advert)
    db.session.flush()
    _add_images(advert, uploads, user.id, photos)
    return advert, _publish_recorded(advert, group, user, publish_now, "market_advert_created")


def update_draft(
    advert: Advert,
    group: InstanceGroup,
    data: AdvertData,
    uploads,
    user,
    publish_now: bool,
    remove_image_ids: set[int] = frozenset(),
) -> int:
    """Save a draft's fields, remove the images asked for (of this advert only) and add the new
    ones; publish it when asked."""
    _apply(advert, data)
    _remove_images(advert, remove_image_ids)
    _add_images(advert, uploads, user.id)
    db.session.flush()
    return _publish_recorded(advert, group, user, publish_now, "market_advert_edited")


def _publish_recorded(
    advert: Advert, group: InstanceGroup, user, publish_now: bool, event: str
) -> int:
    """Publish the saved advert when asked and audit the save; returns the bid links sent."""
    sent = publish(advert, group) if publish_now else 0
    audit.record(
        event,
        instance_id=advert.instance_id,
        advert=advert.id,
        status=advert.status,
        by=user.id,
    )
    return sent


@dataclass
class StaleRate:
    to_currency: str
    modified_at: datetime
    days: int


def stale_rates(group: InstanceGroup) -> list[StaleRate]:
    """The group's exchange rates last changed longer ago than its setting allows: the advert
    form warns about them before publishing (bids are converted at these rates)."""
    now = utcnow()
    limit = now - timedelta(days=group.rate_max_age_days)
    rows = db.session.execute(
        select(ExchangeRate.to_currency, ExchangeRate.modified_at)
        .where(
            ExchangeRate.instance_id == group.instance_id,
            ExchangeRate.currency == group.currency,
            ExchangeRate.modified_at < limit,
        )
        .order_by(ExchangeRate.to_currency)
        .execution_options(all_instances=True)
    ).all()
    return [StaleRate(to, aware(at), (now - aware(at)).days) for to, at in rows]
