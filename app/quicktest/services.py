"""Quick-test rules: the storage tree, starting, filling in and finishing a test. How a test
reads (on the pages and in the calls) is app.quicktest.display. Plain functions; the views
commit."""

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation

from flask_babel import gettext as _
from sqlalchemy import or_, select
from sqlalchemy.orm import selectinload

from app.core import audit
from app.core.models import utcnow
from app.extensions import db
from app.preparation import files
from app.preparation.items import division_country, normalise_regno, regno_error
from app.preparation.models import FileObject, PreparationItem
from app.quicktest.models import (
    Information,
    Storage,
    StorageContainer,
    StorageContainerValue,
    StorageGroup,
    StorageGroupInformation,
)

TEXT_MAX = 255
TEXTAREA_MAX = 5000
NUMBER_MAX = Decimal("1e12")
SEARCH_LIMIT = 50


class Refused(ValueError):
    """A value or change the rules refuse: the field it concerns and the message to show."""

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


# --- the storage tree ------------------------------------------------------------------------


@dataclass
class GroupNode:
    group: StorageGroup
    informations: list[Information] = field(default_factory=list)
    children: list["GroupNode"] = field(default_factory=list)
    level: int = 0

    def walk(self):
        """This group and every group under it, in order."""
        yield self
        for child in self.children:
            yield from child.walk()


def group_tree(storage_id: int) -> list[GroupNode]:
    """The storage's top-level groups, each with its informations and children, in order."""
    groups = db.session.scalars(
        select(StorageGroup)
        .where(StorageGroup.storage_id == storage_id)
        .options(selectinload(StorageGroup.links).selectinload(StorageGroupInformation.information))
        .order_by(StorageGroup.ordering, StorageGroup.id)
    ).all()
    nodes = {
        g.id: GroupNode(
            g,
            sorted(
                (link.information for link in g.links),
                key=lambda i: (i.ordering, i.title.lower(), i.id),
            ),
        )
        for g in groups
    }
    roots = []
    for g in groups:
        parent = nodes.get(g.parent_id) if g.parent_id else None
        (parent.children if parent else roots).append(nodes[g.id])

    def level(node_list, depth):
        for node in node_list:
            node.level = depth
            level(node.children, depth + 1)

    level(roots, 0)
    return roots


def flat_groups(storage_id: int) -> list[GroupNode]:
    return [n for root in group_tree(storage_id) for n in root.walk()]


# --- values ----------------------------------------------------------------------------------


def clean_value(information: Information, raw: str | None) -> str | None:
    """The value to store for what was typed into an information (None clears it).

    Raises Refused with a message when the text does not fit the information's type."""
    kind = information.type
    text_value = (raw or "").strip()
    if kind == "image":
        raise Refused("value", _("Add an image with the camera or a file."))
    if text_value == "":
        return None
    if "\x00" in text_value:
        raise Refused("value", _("The value holds a character that cannot be stored."))
    if kind == "text":
        if len(text_value) > TEXT_MAX:
            raise Refused("value", _("Use at most %(max)s characters.", max=TEXT_MAX))
        return text_value
    if kind == "textarea":
        if len(text_value) > TEXTAREA_MAX:
            raise Refused("value", _("Use at most %(max)s characters.", max=TEXTAREA_MAX))
        return text_value
    if kind == "date":
        try:
            return date.fromisoformat(text_value).isoformat()
        except ValueError:
            raise Refused("value", _("Enter a date as year-month-day, e.g. 2026-05-31.")) from None
    if kind == "select":
        if text_value not in (information.choices or []):
            raise Refused("value", _("Choose one of the options."))
        return text_value
    if kind == "link":
        if len(text_value) > TEXT_MAX or not re.match(r"^https?://[^\s/$.?#].[^\s]*$", text_value):
            raise Refused("value", _("Enter a web address starting with http:// or https://."))
        return text_value
    if kind == "checkbox":
        if text_value.lower() in ("1", "true", "yes", "on"):
            return "1"
        if text_value.lower() in ("0", "false", "no", "off"):
            return "0"
        raise Refused("value", _("Answer yes or no."))
    # number, mileage, currency: digits with a decimal point or comma, spaces as grouping.
    number_text = re.sub(r"[\s\u00a0\u202f]", "", text_value).replace(",", ".")
    try:
        number = Decimal(number_text)
    except InvalidOperation:
        number = None
    if number is None or not number.is_finite() or abs(number) >= NUMBER_MAX:
        raise Refused("value", _("Enter a number."))
    if kind == "mileage":
        if number < 0 or number != number.to_integral_value():
            raise Refused("value", _("Enter the mileage as a whole number, 0 or more."))
        return str(int(number))
    if kind == "currency":
        if number < 0:
            raise Refused("value", _("Enter an amount of 0 or more."))
        return str(number.quantize(Decimal("0.01")).normalize())
    return str(number.normalize()) if number != number.to_integral_value() else str(int(number))


def group_information(container: StorageContainer, group_id: int, information_id: int | None):
    """The storage group of the test (and its information link): None when not in the test."""
    group = db.session.get(StorageGroup, group_id)
    if group is None or group.storage_id != container.storage_id:
        return None, None
    if information_id is None:
        return group, None
    link = next((li for li in group.links if li.information_id == information_id), None)
    return (group, link.information) if link else (None, None)


def _field_value(container_id: int, group_id: int, information_id: int):
    return db.session.scalars(
        select(StorageContainerValue).where(
            StorageContainerValue.container_id == container_id,
            StorageContainerValue.group_id == group_id,
            StorageContainerValue.information_id == information_id,
        )
    ).first()


def save_value(container, group: StorageGroup, information: Information, raw: str | None):
    """Store (or clear) one information's value in a group of the test; return the row or None."""
    value = clean_value(information, raw)
    row = _field_value(container.id, group.id, information.id)
    if value is None:
        if row is not None:
            db.session.delete(row)
        return None
    if row is None:
        row = StorageContainerValue(
            container_id=container.id, group_id=group.id, information_id=information.id
        )
        db.session.add(row)
    row.value = value
    row.modified_at = utcnow()
    db.session.flush()
    return row


def add_image(container, group: StorageGroup, information: Information | None, data, name, user):
    """Store an image of an image information (replacing the one before) or a group photo.

    The file is checked by its content as the preparation's files are; only images are taken."""
    if information is None and not group.image_support:
        raise Refused("file", _("This group takes no images."))
    if information is not None and information.type != "image":
        raise Refused("file", _("This field takes no image."))
    try:
        kind, clean = files.check_upload(data, name)
    except files.UploadError as exc:
        raise Refused("file", str(exc)) from None
    if not kind.pillow_format:
        raise Refused("file", _("Only JPEG, PNG and WebP images can be added."))
    file = FileObject(
        name=clean, content_type=kind.content_type, size=len(data), data=data,
        small=files.small_variation(data), created_by_id=user.id,
    )  # fmt: skip
    db.session.add(file)
    row = _field_value(container.id, group.id, information.id) if information else None
    if row is None:
        row = StorageContainerValue(
            container_id=container.id,
            group_id=group.id,
            information_id=information.id if information else None,
        )
        db.session.add(row)
    row.file = file
    row.value = None
    row.modified_at = utcnow()
    db.session.flush()
    return row


def remove_image(container, value_id: int) -> bool:
    row = db.session.get(StorageContainerValue, value_id)
    if row is None or row.container_id != container.id or row.file_object_id is None:
        return False
    db.session.delete(row)
    return True


def container_values(container_id: int) -> list[StorageContainerValue]:
    return list(
        db.session.scalars(
            select(StorageContainerValue)
            .where(StorageContainerValue.container_id == container_id)
            .options(selectinload(StorageContainerValue.file))
            .order_by(StorageContainerValue.id)
        )
    )


def image_of(container_id: int, file_uuid: str) -> FileObject | None:
    """A file that is one of this test's images (the only files its links may show)."""
    return db.session.scalars(
        select(FileObject)
        .join(StorageContainerValue, StorageContainerValue.file_object_id == FileObject.id)
        .where(StorageContainerValue.container_id == container_id, FileObject.uuid == file_uuid)
    ).first()


# --- tests -----------------------------------------------------------------------------------


def storages() -> list[Storage]:
    return list(db.session.scalars(select(Storage).order_by(Storage.title, Storage.id)))


def start_test(user, regno_raw: str, storage_id, division_id, visible_division_ids, item=None):
    """Start a quick test of a vehicle; Refused names the field that is wrong."""
    regno = normalise_regno(regno_raw)
    storage = db.session.get(Storage, storage_id) if storage_id else None
    if storage is None:
        raise Refused("storage", _("Choose a quick-test template."))
    if division_id not in visible_division_ids:
        raise Refused("division", _("Choose one of your divisions."))
    if item is None and (message := regno_error(regno, division_country(division_id))):
        raise Refused("regno", message)
    if item is None:
        item = db.session.scalars(
            select(PreparationItem)
            .where(
                PreparationItem.regno == regno,
                PreparationItem.division_id.in_(visible_division_ids),
            )
            .order_by(PreparationItem.state == 9, PreparationItem.id.desc())
        ).first()
    test = StorageContainer(
        identifier=item.regno if item else regno,
        storage_id=storage.id,
        division_id=division_id,
        item_id=item.id if item else None,
        user_id=user.id,
    )
    db.session.add(test)
    db.session.flush()
    audit.record("quicktest.start", user=user, container_id=test.id, identifier=test.identifier)
    return test


def finish(container: StorageContainer, user) -> bool:
    """Report the test (once); False when it already was."""
    if container.reported_at is not None:
        return False
    container.reported_at = utcnow()
    audit.record("quicktest.finish", user=user, container_id=container.id)
    return True


def find_test(test_id: int, division_ids) -> StorageContainer | None:
    return db.session.scalars(
        select(StorageContainer).where(
            StorageContainer.id == test_id, StorageContainer.division_id.in_(division_ids)
        )
    ).first()


def search_tests(division_ids, phrase: str = "", status: str = "") -> list[StorageContainer]:
    """The newest tests in these divisions whose regno (or its vehicle's model) holds the phrase."""
    query = (
        select(StorageContainer)
        .outerjoin(PreparationItem, PreparationItem.id == StorageContainer.item_id)
        .where(StorageContainer.division_id.in_(division_ids))
        .options(selectinload(StorageContainer.storage), selectinload(StorageContainer.division))
        .order_by(StorageContainer.created_at.desc(), StorageContainer.id.desc())
        .limit(SEARCH_LIMIT)
    )
    for word in phrase.lower().split()[:5]:
        pattern = f"%{word.replace(' ', '')}%"
        query = query.where(
            or_(
                StorageContainer.identifier.ilike(pattern),
                PreparationItem.search_text.like(pattern),
            )
        )
    if status == "finished":
        query = query.where(StorageContainer.reported_at.is_not(None))
    elif status == "open":
        query = query.where(StorageContainer.reported_at.is_(None))
    return list(db.session.scalars(query))


def finished_tests_of_regno(regno: str, division_ids) -> list[StorageContainer]:
    """The finished tests of a registration number in these divisions, newest first (a
    purchase analysis shows them as the vehicle's previous tests)."""
    return list(
        db.session.scalars(
            select(StorageContainer)
            .where(
                StorageContainer.identifier == normalise_regno(regno or ""),
                StorageContainer.division_id.in_(division_ids),
                StorageContainer.reported_at.is_not(None),
            )
            .options(
                selectinload(StorageContainer.storage), selectinload(StorageContainer.division)
            )
            .order_by(StorageContainer.reported_at.desc(), StorageContainer.id.desc())
        )
    )


def item_tests(item_id: int) -> list[StorageContainer]:
    """The finished tests of a vehicle, newest first."""
    return list(
        db.session.scalars(
            select(StorageContainer)
            .where(StorageContainer.item_id == item_id, StorageContainer.reported_at.is_not(None))
            .options(selectinload(StorageContainer.storage))
            .order_by(StorageContainer.reported_at.desc())
        )
    )
