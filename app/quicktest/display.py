"""How a quick test reads: its values formatted as its division writes numbers and money,
its groups and fields as the page shows them, and the test as the calls answer it (JSON)."""

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from babel.numbers import format_currency, format_decimal
from flask_babel import gettext as _
from sqlalchemy import select

from app.core.localized import for_reader, option_labels
from app.core.models import Country, Division, Region
from app.extensions import db
from app.quicktest.models import (
    Information,
    StorageContainer,
    StorageContainerValue,
)
from app.quicktest.services import GroupNode, container_values, group_tree


@dataclass
class DivisionFormat:
    """A division's way of writing numbers (its country's locale), its unit and currency."""

    locale: str
    milage_unit: str
    currency: str

    @classmethod
    def of(cls, division_id: int, **options) -> "DivisionFormat":
        row = db.session.execute(
            select(Country.locale, Country.milage_unit, Country.currency)
            .join(Region, Region.country_id == Country.id)
            .join(Division, Division.region_id == Region.id)
            .where(Division.id == division_id)
            .execution_options(**options)
        ).first()
        locale, unit, currency = row or ("en-GB", "km", "EUR")
        return cls(locale.replace("-", "_"), unit or "km", currency or "EUR")

    def number(self, value: str) -> str:
        return format_decimal(Decimal(value), format="#,##0.##", locale=self.locale)

    def mileage(self, value: str) -> str:
        return (
            f"{format_decimal(int(value), format='#,##0', locale=self.locale)} {self.milage_unit}"
        )

    def money(self, value: str) -> str:
        return format_currency(Decimal(value), self.currency, locale=self.locale)


def display(information: Information, value: str | None, fmt: DivisionFormat) -> str:
    """A stored value as a reader sees it."""
    if value is None or value == "":
        return ""
    try:
        if information.type == "select":  # stored as first written, read in a language
            return option_labels(information.choices, information.choices_texts).get(value, value)
        if information.type == "checkbox":
            return _("Yes") if value == "1" else _("No")
        if information.type == "number":
            return fmt.number(value)
        if information.type == "mileage":
            return fmt.mileage(value)
        if information.type == "currency":
            return fmt.money(value)
    except (InvalidOperation, ValueError):
        return value
    return value


@dataclass
class ShownField:
    information: Information
    value: StorageContainerValue | None
    text: str


@dataclass
class ShownGroup:
    node: GroupNode
    fields: list[ShownField]
    images: list[StorageContainerValue]
    children: list["ShownGroup"]

    @property
    def empty(self) -> bool:
        return (
            not any(f.value for f in self.fields)
            and not self.images
            and all(c.empty for c in self.children)
        )


def shown_groups(container: StorageContainer, fmt: DivisionFormat) -> list[ShownGroup]:
    """The test's groups in order with each information's value as text, and group photos."""
    values = container_values(container.id)
    by_field = {(v.group_id, v.information_id): v for v in values if v.information_id}
    photos: dict[int, list] = {}
    for v in values:
        if v.information_id is None and v.file_object_id:
            photos.setdefault(v.group_id, []).append(v)

    def shown(node: GroupNode) -> ShownGroup:
        fields = []
        for info in node.informations:
            row = by_field.get((node.group.id, info.id))
            fields.append(ShownField(info, row, display(info, row.value if row else None, fmt)))
        return ShownGroup(
            node,
            fields,
            photos.get(node.group.id, []) if node.group.image_support else [],
            [shown(c) for c in node.children],
        )

    return [shown(root) for root in group_tree(container.storage_id)]


def group_json(node: GroupNode) -> dict:
    g = node.group
    return {
        "id": g.id,
        "title": for_reader(g.title_texts, g.title),
        "ordering": g.ordering,
        "options": {"imageSupport": g.image_support, "showTitle": g.show_title},
        "informations": [
            {
                "id": i.id,
                "title": for_reader(i.title_texts, i.title),
                "type": i.type,
                "ordering": i.ordering,
            }  # fmt: skip
            for i in node.informations
        ],
        "children": [group_json(c) for c in node.children],
    }


def container_json(container: StorageContainer, image_url) -> dict:
    """A test as spec 02 section 3 names its fields; `image_url(file, small)` links images."""
    division = container.division
    country = division.region.country
    user = container.user
    return {
        "id": container.id,
        "uuid": container.uuid,
        "identifier": container.identifier,
        "createdAt": container.created_at.isoformat(),
        "reportedAt": container.reported_at.isoformat() if container.reported_at else None,
        "division": {
            "id": division.id,
            "name": division.name,
            "milageUnit": country.milage_unit,
            "currency": country.currency,
            "region": {
                "id": division.region.id,
                "name": division.region.name,
                "country": {
                    "code": country.code,
                    "milageUnit": country.milage_unit,
                    "currency": country.currency,
                    "locale": country.locale,
                },
            },
        },
        "storage": {
            "id": container.storage.id,
            "title": for_reader(container.storage.title_texts, container.storage.title),
            "group": for_reader(container.storage.group_texts, container.storage.group),
            "groups": [group_json(n) for n in group_tree(container.storage_id)],
        },
        "user": {"firstname": user.firstname, "lastname": user.lastname} if user else None,
        "values": [
            {
                "id": v.id,
                "information": (
                    {"id": v.information_id, "type": _type_of(v)} if v.information_id else None
                ),
                "group": v.group_id,
                "value": v.value,
                "type": "image" if v.file_object_id else None,
                "fileObject": (
                    {
                        "uuid": v.file.uuid,
                        "description": v.description,
                        "url": image_url(v.file, False),
                        "smallUrl": image_url(v.file, True),
                    }
                    if v.file
                    else None
                ),
                "locale": country.locale,
            }
            for v in container_values(container.id)
        ],
    }


def _type_of(value: StorageContainerValue) -> str | None:
    info = db.session.get(Information, value.information_id)
    return info.type if info else None
