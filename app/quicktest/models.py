"""Quick tests: storage templates (nested, ordered groups of typed informations) and the
filled-in protocols (storage containers) with their values."""

import secrets
from datetime import datetime

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.core.models import Division, InstanceScoped, TimestampMixin, UTCDateTime, utcnow
from app.extensions import db
from app.preparation.models import FileObject, unique_where

# Spec 02 section 3 (dynamic field types, the same set for informations).
TYPES = (
    "text", "textarea", "date", "select", "link", "number", "mileage", "currency", "checkbox",
    "image",
)  # fmt: skip


def new_uuid() -> str:
    """A public link's key: 128 random bits as 32 hex digits."""
    return secrets.token_hex(16)


class InformationGroup(InstanceScoped, db.Model):
    """A heading the admin files informations under (the information catalogue's sections)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    title: Mapped[str] = mapped_column(String(100))
    ordering: Mapped[int] = mapped_column(Integer, default=0)


class Information(InstanceScoped, db.Model):
    """A typed field a storage group can ask for (text, number, yes/no, choice, image …)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    title: Mapped[str] = mapped_column(String(100))
    title_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    type: Mapped[str] = mapped_column(String(20))
    # The choices of a select, one per entry: the value an answer stores, as first written.
    choices: Mapped[list] = mapped_column(JSON, default=list)
    # The choices in each language, {tag: options one on each line in the order of `choices`}.
    choices_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    ordering: Mapped[int] = mapped_column(Integer, default=0)
    information_group_id: Mapped[int | None] = mapped_column(
        ForeignKey("information_group.id", ondelete="SET NULL"), index=True
    )

    information_group: Mapped[InformationGroup | None] = relationship()


class Storage(InstanceScoped, TimestampMixin, db.Model):
    """A quick-test template: a title and a tree of storage groups."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    title: Mapped[str] = mapped_column(String(100))
    # What kind of test it is ("Inbytesbil", "Leveranskontroll"): spec 02's storage group.
    group: Mapped[str | None] = mapped_column(String(100))
    # Both per language (issue 37, app.core.localized); the words above are the last fall-back.
    title_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    group_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")


class StorageGroupInformation(InstanceScoped, db.Model):
    """An information asked for in a storage group."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    storage_group_id: Mapped[int] = mapped_column(
        ForeignKey("storage_group.id", ondelete="CASCADE"), index=True
    )
    information_id: Mapped[int] = mapped_column(
        ForeignKey("information.id", ondelete="CASCADE"), index=True
    )

    information: Mapped[Information] = relationship()


class StorageGroup(InstanceScoped, db.Model):
    """A group of a storage: ordered among its siblings, nested under a parent group or none."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    storage_id: Mapped[int] = mapped_column(
        ForeignKey("storage.id", ondelete="CASCADE"), index=True
    )
    parent_id: Mapped[int | None] = mapped_column(
        ForeignKey("storage_group.id", ondelete="CASCADE"), index=True
    )
    title: Mapped[str] = mapped_column(String(100))
    title_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    ordering: Mapped[int] = mapped_column(Integer, default=0)
    image_support: Mapped[bool] = mapped_column(Boolean, default=False)
    show_title: Mapped[bool] = mapped_column(Boolean, default=True)

    links: Mapped[list[StorageGroupInformation]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True
    )


class StorageContainer(InstanceScoped, db.Model):
    """A quick test: one vehicle's filled-in protocol of a storage, reported when finished."""

    __table_args__ = (Index("ix_storage_container_instance_created", "instance_id", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(32), unique=True, default=new_uuid)
    identifier: Mapped[str] = mapped_column(String(20))
    storage_id: Mapped[int] = mapped_column(ForeignKey("storage.id", ondelete="RESTRICT"))
    division_id: Mapped[int] = mapped_column(ForeignKey("division.id", ondelete="RESTRICT"))
    item_id: Mapped[int | None] = mapped_column(
        ForeignKey("preparation_item.id", ondelete="SET NULL"), index=True
    )
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    reported_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    storage: Mapped[Storage] = relationship()
    division: Mapped[Division] = relationship()
    user = relationship("User")


class StorageContainerValue(InstanceScoped, TimestampMixin, db.Model):
    """One answer of a quick test: an information's value in a group, or an image (of an image
    information, or a photo of a group with image support, then without information)."""

    __table_args__ = (
        # One value per information and group; group photos (no information) may be many.
        unique_where(
            "uq_container_value_field",
            "container_id",
            "group_id",
            "information_id",
            where="information_id IS NOT NULL",
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    container_id: Mapped[int] = mapped_column(
        ForeignKey("storage_container.id", ondelete="CASCADE"), index=True
    )
    group_id: Mapped[int] = mapped_column(ForeignKey("storage_group.id", ondelete="CASCADE"))
    information_id: Mapped[int | None] = mapped_column(
        ForeignKey("information.id", ondelete="CASCADE")
    )
    value: Mapped[str | None] = mapped_column(Text)
    file_object_id: Mapped[int | None] = mapped_column(
        ForeignKey("file_object.id", ondelete="SET NULL"), index=True
    )
    description: Mapped[str | None] = mapped_column(String(200))

    file: Mapped[FileObject | None] = relationship()
