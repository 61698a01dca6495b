"""Preparation items (vehicles), their state history and the maintained per-state counters."""

import uuid
from datetime import date, datetime
from typing import ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    Computed,
    Date,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    String,
    UniqueConstraint,
    false,
    func,
    text,
)
from sqlalchemy.orm import Mapped, declared_attr, mapped_column, relationship

from app.core.audit import MadeBy
from app.core.division_settings import DivisionSetting
from app.core.localized import Named
from app.core.models import (
    Division,
    InstanceScoped,
    TimestampMixin,
    UTCDateTime,
    link_table,
    utcnow,
)
from app.extensions import db

SEARCH_TEXT = (
    "lower(regno || ' ' || coalesce(vin, '') || ' ' || brand || ' ' || model || ' ' "
    "|| coalesce(model_series, ''))"
)


def full_model_name(brand: str | None, model: str | None, series: str | None) -> str:
    """Brand, model and series as the tables and forms show them (also for rows read as columns)."""
    return " ".join(p for p in (brand, model, series) if p)


def unique_where(name: str, *columns: str, where: str) -> Index:
    """A unique index over the rows that `where` (SQL) holds for, on PostgreSQL and SQLite alike."""
    return Index(
        name, *columns, unique=True, postgresql_where=text(where), sqlite_where=text(where)
    )


class VehicleColumns:
    """What a vehicle is, as a prepared vehicle and a purchase analysis both keep it."""

    regno: Mapped[str] = mapped_column(String(20))
    brand: Mapped[str] = mapped_column(String(60))
    model: Mapped[str] = mapped_column(String(80))
    model_series: Mapped[str | None] = mapped_column(String(80))
    model_year: Mapped[int | None] = mapped_column(Integer)
    fuel_type: Mapped[str | None] = mapped_column(String(30))
    color: Mapped[str | None] = mapped_column(String(40))
    mileage: Mapped[int | None] = mapped_column(Integer)  # kilometres

    @property
    def full_model_name(self) -> str:
        """Brand, model and series, derived rather than stored twice."""
        return full_model_name(self.brand, self.model, self.model_series)


class PreparationItem(InstanceScoped, TimestampMixin, VehicleColumns, db.Model):
    """A vehicle being prepared, in one module (begcare or newcare) and one state."""

    __table_args__ = (
        Index(
            "ix_item_instance_module_state_division",
            "instance_id",
            "module",
            "state",
            "division_id",
        ),
        Index("ix_item_instance_regno", "instance_id", "regno"),
        # No two vehicles in work (not archived) share a regno or VIN within an instance; the
        # services check first for a clear message, these close the race of two at once.
        unique_where("uq_item_live_regno", "instance_id", "regno", where="state <> 9"),
        unique_where(
            "uq_item_live_vin", "instance_id", "vin", where="state <> 9 AND vin IS NOT NULL"
        ),
        Index("ix_item_instance_vin", "instance_id", "vin"),
        # The item tables' filters and sorts (app/preparation/queries.py).
        Index("ix_item_module_state_changed", "instance_id", "module", "state", "state_changed_at"),
        Index("ix_item_module_changed", "instance_id", "module", "state_changed_at"),
        Index("ix_item_module_brand_model", "instance_id", "module", "brand", "model"),
        Index("ix_item_module_mileage", "instance_id", "module", "mileage"),
        Index("ix_item_module_price", "instance_id", "module", "sales_price"),
        Index("ix_item_module_year", "instance_id", "module", "model_year"),
        Index("ix_item_module_fuel", "instance_id", "module", "fuel_type"),
        Index("ix_item_module_color", "instance_id", "module", "color"),
        Index("ix_item_module_warning", "instance_id", "module", "warning"),
        Index("ix_item_module_service_due", "instance_id", "module", "service_due"),
        # Where the vehicle and its keys are (app/preparation/locations.py): the overview's
        # filters and the "in use by N vehicles" of a location's delete.
        Index("ix_item_parking_location", "parking_location_id"),
        Index("ix_item_key_location", "key_location_id"),
        Index("ix_item_delivery_location", "delivery_location_id"),
        # Who sold it (app/preparation/salespeople.py): the statistics' and the lists' filter
        # and the "sold by N vehicles" of a seller user's delete.
        Index("ix_item_salesperson", "salesperson_id"),
        # The vehicles that refer to another as their hub or central vehicle: a vehicle's
        # delete clears them (ON DELETE SET NULL) by these, not by reading every vehicle.
        Index("ix_item_hub_item", "hub_item_id"),
        Index("ix_item_central_item", "central_item_id"),
        # Search phrase, brand, model and series: a trigram index on PostgreSQL (pg_trgm).
        Index(
            "ix_item_search_text",
            "search_text",
            postgresql_using="gin",
            postgresql_ops={"search_text": "gin_trgm_ops"},
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    module: Mapped[str] = mapped_column(String(10))
    division_id: Mapped[int] = mapped_column(ForeignKey("division.id", ondelete="RESTRICT"))
    state: Mapped[int] = mapped_column(Integer)
    state_changed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    vin: Mapped[str | None] = mapped_column(String(17))
    purchase_price: Mapped[float | None] = mapped_column(Numeric(12, 2))
    sales_price: Mapped[float | None] = mapped_column(Numeric(12, 2))
    warning: Mapped[bool] = mapped_column(Boolean, default=False)
    # The last service (app/preparation/service_due.py): unknown means since stock-in, at 0 km;
    # `service_due` is what the last evaluation found, so that lists filter on a column.
    last_service_on: Mapped[date | None] = mapped_column(Date)
    last_service_mileage: Mapped[int | None] = mapped_column(Integer)
    service_due: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # What the search phrase looks through, kept by the database itself (a generated column,
    # so bulk imports fill it too): regno, VIN, brand, model and series in lower case.
    search_text: Mapped[str | None] = mapped_column(
        String(300), Computed(SEARCH_TEXT, persisted=True)
    )
    package_id: Mapped[int | None] = mapped_column(
        ForeignKey("station_package.id", ondelete="SET NULL")
    )
    hub_item_id: Mapped[int | None] = mapped_column(
        ForeignKey("preparation_item.id", ondelete="SET NULL")
    )
    central_item_id: Mapped[int | None] = mapped_column(
        ForeignKey("preparation_item.id", ondelete="SET NULL")
    )
    # The current parking, key and (in the delivery flow) delivery location, each a Location
    # of the item's module, kind and division; every move is in the item's history.
    parking_location_id: Mapped[int | None] = mapped_column(
        ForeignKey("location.id", ondelete="SET NULL")
    )
    key_location_id: Mapped[int | None] = mapped_column(
        ForeignKey("location.id", ondelete="SET NULL")
    )
    delivery_location_id: Mapped[int | None] = mapped_column(
        ForeignKey("location.id", ondelete="SET NULL")
    )
    # The salesperson who sold it: a seller user (admin/general/seller-users, a SettingRow of
    # kind "seller") of its division or of the whole instance, chosen on the move to sold.
    salesperson_id: Mapped[int | None] = mapped_column(
        ForeignKey("setting_row.id", ondelete="SET NULL")
    )

    division: Mapped[Division] = relationship()


# The overview's brand filter compares the whole brand in any case (queries.item_query): a
# b-tree on the lower-case brand, then the state, so that a brand with or without a state is
# found without reading every vehicle of that brand's trigrams (issue 34). PostgreSQL only
# (SQLite reads its vehicles without it, and cannot reflect an index on an expression).
Index(
    "ix_item_module_brand_lower",
    PreparationItem.instance_id,
    PreparationItem.module,
    func.lower(PreparationItem.brand),
    PreparationItem.state,
).ddl_if(dialect="postgresql")
# The overview's search looks through the vehicles in stock first (queries.in_stock): their
# own trigram index, whose posting lists do not grow with the archived history.
Index(
    "ix_item_search_stock",
    PreparationItem.search_text,
    postgresql_using="gin",
    postgresql_ops={"search_text": "gin_trgm_ops"},
    postgresql_where=text("state <> 9"),
    sqlite_where=text("state <> 9"),
)


class ItemTag(InstanceScoped, db.Model):
    """A tag on a vehicle (app/preparation/tags.py): any number per vehicle."""

    __table_args__ = (UniqueConstraint("item_id", "tag_id"), Index("ix_item_tag_tag", "tag_id"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("preparation_item.id", ondelete="CASCADE"))
    tag_id: Mapped[int] = mapped_column(ForeignKey("tag.id", ondelete="CASCADE"))


class VehiclePropertyValue(InstanceScoped, db.Model):
    """A vehicle's value of one specification field (a global `property` setting row):
    app/preparation/specification.py. The instance is the vehicle's."""

    __table_args__ = (
        UniqueConstraint("item_id", "property_id"),
        Index("ix_property_value_property", "property_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("preparation_item.id", ondelete="CASCADE"))
    property_id: Mapped[int] = mapped_column(
        ForeignKey("global_setting_row.id", ondelete="CASCADE")
    )
    value: Mapped[str] = mapped_column(String(200))


class ItemRuleMatch(InstanceScoped, db.Model):
    """A rule holds for a vehicle (app/automation/rules.py): made when its conditions come to
    hold (its actions run then, once), gone when they no longer do. While it is here the lists
    show the rule's warning `text` (when it has one) as a label, in the reader's language
    (`text_texts`, {locale tag: text}, the rule's warning in each language)."""

    __table_args__ = (UniqueConstraint("item_id", "rule_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("preparation_item.id", ondelete="CASCADE"))
    rule_id: Mapped[int] = mapped_column(
        ForeignKey("setting_row.id", ondelete="CASCADE"), index=True
    )
    text: Mapped[str] = mapped_column(String(120), default="")
    text_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")


class ItemStateEvent(InstanceScoped, db.Model):
    """One state change: who moved which item from where to where, and when."""

    __table_args__ = (
        Index("ix_state_event_item", "item_id", "created_at"),
        # A period's events (statistics.days_per_state).
        Index("ix_state_event_instance_created", "instance_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("preparation_item.id", ondelete="CASCADE"))
    from_state: Mapped[int | None] = mapped_column(Integer)
    to_state: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ItemStateCount(InstanceScoped, db.Model):
    """Items per module, division and state, kept up to date by the services that move items,
    so that the menu counts on every page read a few dozen rows instead of counting items."""

    __table_args__ = (UniqueConstraint("instance_id", "module", "division_id", "state"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    module: Mapped[str] = mapped_column(String(10))
    division_id: Mapped[int] = mapped_column(ForeignKey("division.id", ondelete="CASCADE"))
    state: Mapped[int] = mapped_column(Integer)
    count: Mapped[int] = mapped_column(Integer, default=0)


class CustomList(InstanceScoped, TimestampMixin, db.Model):
    """A named list of items owned by one user."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))


class CustomListItem(InstanceScoped, db.Model):
    __table_args__ = (
        UniqueConstraint("custom_list_id", "item_id"),
        Index("ix_custom_list_item_item", "item_id"),  # a vehicle's delete cascades by it
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    custom_list_id: Mapped[int] = mapped_column(ForeignKey("custom_list.id", ondelete="CASCADE"))
    item_id: Mapped[int] = mapped_column(ForeignKey("preparation_item.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class DynamicList(MadeBy, InstanceScoped, TimestampMixin, db.Model):
    """A saved overview filter, shown under My lists of `user_id`; `MadeBy` says who made it
    (an administrator acting as the user: both)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True, default=lambda: str(uuid.uuid4()))
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(100))
    module: Mapped[str] = mapped_column(String(10))
    filters: Mapped[dict] = mapped_column(JSON, default=dict)


# --- configuration per module: state buttons, stations, packages, locations --------------------


class StateButton(DivisionSetting, InstanceScoped, db.Model):
    """An allowed transition: the button that moves an item from one state to another."""

    __table_args__ = (UniqueConstraint("instance_id", "module", "from_state", "to_state"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    module: Mapped[str] = mapped_column(String(10))
    from_state: Mapped[int] = mapped_column(Integer)
    to_state: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(String(80))
    # The title per language, {tag: text} (app.core.localized); `title` is the last fall-back.
    title_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    ordering: Mapped[int] = mapped_column(Integer, default=0)


class StationGroup(DivisionSetting, Named, InstanceScoped, db.Model):
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    module: Mapped[str] = mapped_column(String(10))
    name: Mapped[str] = mapped_column(String(80))


class Station(DivisionSetting, Named, InstanceScoped, db.Model):
    """A preparation step (wash, mechanical, bodywork, photo, ...)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    module: Mapped[str] = mapped_column(String(10))
    name: Mapped[str] = mapped_column(String(80))
    station_group_id: Mapped[int | None] = mapped_column(
        ForeignKey("station_group.id", ondelete="SET NULL")
    )
    target_minutes: Mapped[int] = mapped_column(Integer, default=60)
    ordering: Mapped[int] = mapped_column(Integer, default=0)
    # What an hour of labour here costs, in the division's currency (reconditioning cost lines).
    hourly_rate: Mapped[float | None] = mapped_column(Numeric(10, 2))

    group: Mapped[StationGroup | None] = relationship()


class StationPackage(Named, DivisionSetting, InstanceScoped, db.Model):
    """A named sequence of stations an item goes through (its name per language: `Named`)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    module: Mapped[str] = mapped_column(String(10))
    name: Mapped[str] = mapped_column(String(80))

    steps: Mapped[list["StationPackageStep"]] = relationship(
        order_by="StationPackageStep.ordering", cascade="all, delete-orphan"
    )


class StationPackageStep(InstanceScoped, db.Model):
    __table_args__ = (UniqueConstraint("package_id", "station_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    package_id: Mapped[int] = mapped_column(ForeignKey("station_package.id", ondelete="CASCADE"))
    station_id: Mapped[int] = mapped_column(ForeignKey("station.id", ondelete="CASCADE"))
    ordering: Mapped[int] = mapped_column(Integer, default=0)

    station: Mapped[Station] = relationship()


class Location(Named, InstanceScoped, db.Model):
    """A place in a division: a parking location, a key location or a delivery location."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    module: Mapped[str] = mapped_column(String(10))
    kind: Mapped[str] = mapped_column(String(10))  # parking, key, delivery
    name: Mapped[str] = mapped_column(String(80))
    division_id: Mapped[int | None] = mapped_column(ForeignKey("division.id", ondelete="CASCADE"))


user_stations = link_table("user_station", "user", "station")


# --- an item's work: station tasks, files, comments, seen markers -----------------------------


class ItemStationTask(InstanceScoped, db.Model):
    """One station's work on one item: pending, active or done, with times and a target."""

    __table_args__ = (
        Index("ix_task_item", "item_id", "ordering"),
        Index("ix_task_station_status", "station_id", "status"),
        # The tasks finished in a period (statistics.minutes_per_station).
        Index("ix_task_instance_finished", "instance_id", "finished_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("preparation_item.id", ondelete="CASCADE"))
    station_id: Mapped[int] = mapped_column(ForeignKey("station.id", ondelete="CASCADE"))
    status: Mapped[str] = mapped_column(String(10), default="pending")  # pending, active, done
    ordering: Mapped[int] = mapped_column(Integer, default=0)
    target_minutes: Mapped[int] = mapped_column(Integer, default=60)
    assigned_user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # A service check-up's task (a global `checkup_task` row) given by app/preparation/service_due.py.
    checkup_task_id: Mapped[int | None] = mapped_column(
        ForeignKey("global_setting_row.id", ondelete="SET NULL")
    )

    station: Mapped[Station] = relationship()


class FileObject(InstanceScoped, db.Model):
    """An uploaded file, checked by content, with a small variation for images."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True, default=lambda: str(uuid.uuid4()))
    name: Mapped[str] = mapped_column(String(200))
    content_type: Mapped[str] = mapped_column(String(100))
    size: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(db.LargeBinary)
    small: Mapped[bytes | None] = mapped_column(db.LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))


class AttachedFile:
    """A row that holds one uploaded file (a comment's image, an analysis field's upload); who
    may read the file is the owning row's rule (app.core.file_access)."""

    file_object_id: Mapped[int] = mapped_column(
        ForeignKey("file_object.id", ondelete="CASCADE"), index=True
    )

    @declared_attr
    def file(cls) -> Mapped[FileObject]:  # noqa: N805
        return relationship(FileObject)


class CommentImage(AttachedFile):
    """An image of a comment; `comment_table` names the comment's table."""

    comment_table: ClassVar[str]

    id: Mapped[int] = mapped_column(Integer, primary_key=True)

    @declared_attr
    def comment_id(cls) -> Mapped[int]:  # noqa: N805
        return mapped_column(ForeignKey(f"{cls.comment_table}.id", ondelete="CASCADE"), index=True)


class ItemFile(InstanceScoped, db.Model):
    """A file attached to an item (a photo or a document)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[int] = mapped_column(
        ForeignKey("preparation_item.id", ondelete="CASCADE"), index=True
    )
    file_object_id: Mapped[int] = mapped_column(ForeignKey("file_object.id", ondelete="CASCADE"))
    title: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    file: Mapped[FileObject] = relationship()


class ItemComment(InstanceScoped, TimestampMixin, db.Model):
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[int] = mapped_column(
        ForeignKey("preparation_item.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    content: Mapped[str] = mapped_column(db.Text)

    images: Mapped[list["ItemCommentImage"]] = relationship(
        order_by="ItemCommentImage.id", cascade="all, delete-orphan"
    )


class ItemCommentImage(InstanceScoped, CommentImage, db.Model):
    """An image of a vehicle comment: readable by who may see the vehicle (file_access)."""

    comment_table = "item_comment"


class CustomListSeen(InstanceScoped, db.Model):
    """A user has seen an item of a custom list (spec 02: unseen items are highlighted)."""

    __table_args__ = (
        UniqueConstraint("custom_list_id", "item_id", "user_id"),
        Index("ix_custom_list_seen_item", "item_id"),  # a vehicle's delete cascades by it
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    custom_list_id: Mapped[int] = mapped_column(ForeignKey("custom_list.id", ondelete="CASCADE"))
    item_id: Mapped[int] = mapped_column(ForeignKey("preparation_item.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
