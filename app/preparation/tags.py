"""Tags on vehicles: the instance's tags (admin/general/tags), any number per vehicle, set on the
vehicle page and for every vehicle of a custom list at once; the overview filters by them and
the tables show them as coloured labels with their name (the text's colour chosen for contrast).
Only the active instance's tags exist here (tenancy): another instance's id is refused.
Services only flush; the view commits."""

from collections.abc import Iterable
from dataclasses import dataclass

from flask import has_request_context, request
from flask_babel import gettext as _
from sqlalchemy import delete, func, select

from app.core import audit
from app.core.localized import for_reader
from app.core.settings import Tag
from app.core.tenancy import active_instance_id
from app.extensions import db
from app.preparation.models import ItemRuleMatch, ItemTag, PreparationItem

# Black or white: one of them contrasts at least 4.58:1 with any colour (WCAG AA for text).
DARK, LIGHT = "#000000", "#ffffff"


class TagRefused(ValueError):
    """A tag that is not one of the instance's: a translated message."""


@dataclass(frozen=True)
class Label:
    """A tag as a table shows it: its name on its colour, in a text colour that reads."""

    id: int
    name: str
    color: str
    text: str


def _luminance(hex_color: str) -> float:
    """The relative luminance of a #rrggbb colour (WCAG 2)."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    """The WCAG contrast ratio of two #rrggbb colours."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def text_color(background: str) -> str:
    """Dark or white text, whichever contrasts more with the tag's colour."""
    return DARK if contrast(background, DARK) >= contrast(background, LIGHT) else LIGHT


def _label(tag: Tag) -> Label:
    color = tag.color if _valid(tag.color) else "#4a6fa5"
    return Label(tag.id, tag.shown_name, color, text_color(color))


def _valid(color: str | None) -> bool:
    return bool(color) and len(color) == 7 and color.startswith("#")


def available() -> list[Label]:
    """The instance's tags, by name (read once per request: the overview's filter and its
    table both ask)."""
    cache = request.environ if has_request_context() else {}
    key = ("preparation.tags", active_instance_id())
    if key not in cache:
        cache[key] = [
            _label(t)
            for t in db.session.scalars(select(Tag).order_by(func.lower(Tag.name), Tag.id))
        ]
    return cache[key]


def of_items(item_ids: Iterable[int]) -> dict[int, list[Label]]:
    """Item id -> its tags by name, for a page of items in one query."""
    ids = list(item_ids)
    if not ids or not available():  # a company without tags pays one small query at most
        return {}
    found: dict[int, list[Label]] = {}
    for item_id, tag in db.session.execute(
        select(ItemTag.item_id, Tag)
        .join(Tag, Tag.id == ItemTag.tag_id)
        .where(ItemTag.item_id.in_(ids))
        .order_by(func.lower(Tag.name), Tag.id)
    ):
        found.setdefault(item_id, []).append(_label(tag))
    return found


def _checked(tag_ids: Iterable[int]) -> set[int]:
    wanted = set(tag_ids)
    known = set(db.session.scalars(select(Tag.id).where(Tag.id.in_(wanted)))) if wanted else set()
    if wanted - known:  # another instance's tag, or none at all
        raise TagRefused(_("Choose among the tags of your company."))
    return wanted


def set_tags(item: PreparationItem, tag_ids: Iterable[int], user) -> bool:
    """Give the vehicle exactly these tags; audited. False when nothing changed."""
    wanted = _checked(tag_ids)
    current = set(db.session.scalars(select(ItemTag.tag_id).where(ItemTag.item_id == item.id)))
    if wanted == current:
        return False
    if current - wanted:
        db.session.execute(
            delete(ItemTag).where(ItemTag.item_id == item.id, ItemTag.tag_id.in_(current - wanted))
        )
    db.session.add_all(ItemTag(item_id=item.id, tag_id=t) for t in sorted(wanted - current))
    audit.record(
        "preparation.item.tagged", user=user, division_id=item.division_id, item_id=item.id,
        added=sorted(wanted - current), removed=sorted(current - wanted),
    )  # fmt: skip
    db.session.flush()
    return True


def tag_all(items: list[PreparationItem], tag_id: int, user) -> int:
    """Put one tag on every one of these vehicles; how many got it (the others had it)."""
    _checked([tag_id])
    ids = [i.id for i in items]
    having = set(
        db.session.scalars(
            select(ItemTag.item_id).where(ItemTag.tag_id == tag_id, ItemTag.item_id.in_(ids))
        )
    )
    new = [i for i in items if i.id not in having]
    db.session.add_all(ItemTag(item_id=i.id, tag_id=tag_id) for i in new)
    for item in new:
        audit.record(
            "preparation.item.tagged", user=user, division_id=item.division_id,
            item_id=item.id, added=[tag_id], removed=[],
        )  # fmt: skip
    db.session.flush()
    return len(new)


def rule_warnings(item_ids: Iterable[int], instance) -> dict[int, list[str]]:
    """Item id -> the warnings of the rules that hold for it (app/automation/rules.py), for a
    page of items in one query; none read while no active rule of the instance warns."""
    ids = list(item_ids)
    found: dict[int, list[str]] = {}
    if not ids or not (instance.options or {}).get("ruleWarnings"):
        return found
    for item_id, text, texts in db.session.execute(
        select(ItemRuleMatch.item_id, ItemRuleMatch.text, ItemRuleMatch.text_texts)
        .where(ItemRuleMatch.item_id.in_(ids), ItemRuleMatch.text != "")
        .order_by(ItemRuleMatch.id)
    ):
        found.setdefault(item_id, []).append(for_reader(texts, text))
    return found
