"""Custom lists, their vehicles and the per-user seen markers; the dynamic lists' counts.

Every function works in the active instance (app.core.tenancy) and is given the user and the
divisions the user may see, so a list, item or marker outside them is simply not found.
"""

import re
from collections import defaultdict
from dataclasses import dataclass

from flask_babel import gettext as _
from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from app.core import audit
from app.core.localized import for_reader
from app.core.models import Division, utcnow
from app.core.workdays import DayCounter, calendar_days
from app.extensions import db
from app.preparation.items import active_advert_ids, manage_path
from app.preparation.models import (
    CustomList,
    CustomListItem,
    CustomListSeen,
    DynamicList,
    ItemStationTask,
    PreparationItem,
    Station,
)
from app.preparation.queries import ItemFilters, item_query
from app.preparation.states import BY_ID

NAME_MAX = 100
SEARCH_LIMIT = 20


class ListError(ValueError):
    """A refused change to a custom list, with a message for the user."""


class SeenExists(Exception):
    """The user has already marked this item of this list as seen."""

    def __init__(self, seen_id: int) -> None:
        super().__init__(seen_id)
        self.seen_id = seen_id


# --- lists -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ListSummary:
    id: int
    name: str
    count: int


def user_lists(user_id: int, division_ids: list[int]) -> list[ListSummary]:
    """The user's lists by name, each with the number of its vehicles the user may see."""
    counted = (
        select(CustomListItem.custom_list_id, func.count().label("n"))
        .join(PreparationItem, PreparationItem.id == CustomListItem.item_id)
        .where(PreparationItem.division_id.in_(division_ids))
        .group_by(CustomListItem.custom_list_id)
        .subquery()
    )
    rows = db.session.execute(
        select(CustomList.id, CustomList.name, func.coalesce(counted.c.n, 0))
        .outerjoin(counted, counted.c.custom_list_id == CustomList.id)
        .where(CustomList.user_id == user_id)
        .order_by(func.lower(CustomList.name), CustomList.id)
    ).all()
    return [ListSummary(i, n, c) for i, n, c in rows]


def get_list(list_id: int, user_id: int) -> CustomList | None:
    """The user's own list with this id, or None (another user's list is not found)."""
    return db.session.scalars(
        select(CustomList).where(CustomList.id == list_id, CustomList.user_id == user_id)
    ).first()


def clean_name(name: str | None) -> str:
    """A list name with its spaces tidied; raises ListError when it is empty or too long."""
    name = " ".join((name or "").split())
    if not name:
        raise ListError(_("Enter a name for the list."))
    if len(name) > NAME_MAX:
        raise ListError(_("The name can be at most %(max)s characters long.", max=NAME_MAX))
    return name


def _check_unique(
    model: type[CustomList] | type[DynamicList],
    field: str,
    user_id: int,
    name: str,
    except_id: int | None = None,
) -> None:
    """Refuse `name` when another of the user's lists of `model` has it in `field` already
    (custom and dynamic lists each have their own names, letter case aside)."""
    stmt = select(model.id).where(
        model.user_id == user_id, func.lower(getattr(model, field)) == name.lower()
    )
    if except_id is not None:
        stmt = stmt.where(model.id != except_id)
    if db.session.scalar(stmt) is not None:
        raise ListError(_("You already have a list called %(name)s.", name=name))


def _rename(record: CustomList | DynamicList, field: str, name: str) -> None:
    name = clean_name(name)
    _check_unique(type(record), field, record.user_id, name, except_id=record.id)
    setattr(record, field, name)
    db.session.flush()


def create_list(user_id: int, name: str) -> CustomList:
    """Create a list for the user; the name is required and unique among the user's lists."""
    name = clean_name(name)
    _check_unique(CustomList, "name", user_id, name)
    custom_list = CustomList(user_id=user_id, name=name)
    db.session.add(custom_list)
    db.session.flush()
    return custom_list


def rename_list(custom_list: CustomList, name: str) -> None:
    """Give a list a new name, unique among its owner's lists."""
    _rename(custom_list, "name", name)


def delete_list(custom_list: CustomList) -> None:
    """Delete a list with its entries and seen markers (the vehicles stay)."""
    db.session.execute(
        delete(CustomListSeen).where(CustomListSeen.custom_list_id == custom_list.id)
    )
    db.session.execute(
        delete(CustomListItem).where(CustomListItem.custom_list_id == custom_list.id)
    )
    db.session.delete(custom_list)
    db.session.flush()


# --- a list's vehicles -----------------------------------------------------------------------


def find_item(item_id: int, division_ids: list[int]) -> PreparationItem | None:
    """An item the user may see (active instance, visible divisions), or None."""
    return db.session.scalars(
        select(PreparationItem).where(
            PreparationItem.id == item_id, PreparationItem.division_id.in_(division_ids)
        )
    ).first()


REGNO_SEARCH = re.compile(r"[^A-Z0-9]")


def search_items(phrase: str, division_ids: list[int], exclude_list_id: int | None = None):
    """Up to SEARCH_LIMIT items whose registration number contains the phrase (spaces and dashes
    ignored), in the divisions the user may see, leaving out those already on the list."""
    wanted = REGNO_SEARCH.sub("", (phrase or "").upper())
    if not wanted:
        return []
    stmt = (
        select(PreparationItem, Division.name)
        .join(Division, Division.id == PreparationItem.division_id)
        .where(
            PreparationItem.division_id.in_(division_ids),
            func.replace(func.replace(PreparationItem.regno, " ", ""), "-", "").like(f"%{wanted}%"),
        )
        .order_by(PreparationItem.regno, PreparationItem.id)
        .limit(SEARCH_LIMIT)
    )
    if exclude_list_id is not None:
        on_list = select(CustomListItem.item_id).where(
            CustomListItem.custom_list_id == exclude_list_id
        )
        stmt = stmt.where(PreparationItem.id.not_in(on_list))
    return db.session.execute(stmt).all()


def add_to_list(custom_list: CustomList, item: PreparationItem) -> bool:
    """Put an item on a list; False when it was on the list already."""
    exists = db.session.scalar(
        select(CustomListItem.id).where(
            CustomListItem.custom_list_id == custom_list.id, CustomListItem.item_id == item.id
        )
    )
    if exists is not None:
        return False
    try:
        with db.session.begin_nested():
            db.session.add(CustomListItem(custom_list_id=custom_list.id, item_id=item.id))
    except IntegrityError:  # added by a parallel request a moment ago
        return False
    return True


def remove_from_list(custom_list: CustomList, item_id: int) -> bool:
    """Take an item off a list, with the seen markers of that list and item; False if absent."""
    result = db.session.execute(
        delete(CustomListItem).where(
            CustomListItem.custom_list_id == custom_list.id, CustomListItem.item_id == item_id
        )
    )
    db.session.execute(
        delete(CustomListSeen).where(
            CustomListSeen.custom_list_id == custom_list.id, CustomListSeen.item_id == item_id
        )
    )
    return bool(result.rowcount)


@dataclass
class ListRow:
    """One vehicle of a custom list as its table shows it."""

    id: int
    module: str
    regno: str
    model: str
    state: int
    state_title: str
    division: str
    days_in_state: int
    stations_done: int
    stations_total: int
    active_station: str | None
    warning: bool
    active_advert: bool
    seen_id: int | None
    manage_url: str

    @property
    def row_classes(self) -> list[str]:
        """Spec 02 section 4: warning rows red, unseen rows highlighted, active adverts blue."""
        classes = []
        if self.warning:
            classes.append("row-warning")
        if self.seen_id is None:
            classes.append("row-unseen")
        if self.active_advert:
            classes.append("row-advert")
        return classes


def list_rows(
    custom_list: CustomList,
    user_id: int,
    division_ids: list[int],
    count_days: DayCounter = calendar_days,
) -> list[ListRow]:
    """The list's vehicles the user may see, with seen markers and station progress.

    Two queries whatever the number of vehicles: the items with their division and marker,
    then the station tasks of all of them at once."""
    seen = (
        select(CustomListSeen.item_id, CustomListSeen.id.label("seen_id"))
        .where(CustomListSeen.custom_list_id == custom_list.id, CustomListSeen.user_id == user_id)
        .subquery()
    )
    rows = db.session.execute(
        select(PreparationItem, Division.name, seen.c.seen_id)
        .join(CustomListItem, CustomListItem.item_id == PreparationItem.id)
        .join(Division, Division.id == PreparationItem.division_id)
        .outerjoin(seen, seen.c.item_id == PreparationItem.id)
        .where(
            CustomListItem.custom_list_id == custom_list.id,
            PreparationItem.division_id.in_(division_ids),
        )
        .order_by(CustomListItem.created_at, CustomListItem.id)
    ).all()
    return build_rows(rows, count_days)


def build_rows(rows, count_days: DayCounter = calendar_days) -> list[ListRow]:
    """ListRows from (item, division name, seen id) triples, with one query for the tasks;
    days in state as `count_days` counts them (app.core.workdays)."""
    ids = [item.id for item, _name, _seen in rows]
    progress, adverts = _station_progress(ids), active_advert_ids(ids)
    now = utcnow()
    result = []
    for item, division_name, seen_id in rows:
        done, total, active, task_warning = progress.get(item.id, (0, 0, None, False))
        result.append(
            ListRow(
                id=item.id,
                module=item.module,
                regno=item.regno,
                model=item.full_model_name,
                state=item.state,
                state_title=str(BY_ID[item.state].title),
                division=division_name,
                days_in_state=count_days(item.state_changed_at, now, item.division_id),
                stations_done=done,
                stations_total=total,
                active_station=active,
                warning=bool(item.warning or task_warning),
                active_advert=item.id in adverts,
                seen_id=seen_id,
                manage_url=manage_path(item),
            )  # fmt: skip
        )
    return result


def manager_rows(user_id: int, division_ids: list[int]) -> list[tuple[int, ListRow]]:
    """(list id, row) for every vehicle on every list of the user, in two queries."""
    rows = db.session.execute(
        select(CustomListItem.custom_list_id, PreparationItem, Division.name)
        .join(CustomList, CustomList.id == CustomListItem.custom_list_id)
        .join(PreparationItem, PreparationItem.id == CustomListItem.item_id)
        .join(Division, Division.id == PreparationItem.division_id)
        .where(CustomList.user_id == user_id, PreparationItem.division_id.in_(division_ids))
        .order_by(CustomListItem.created_at, CustomListItem.id)
    ).all()
    built = build_rows([(item, name, None) for _list_id, item, name in rows])
    return [(list_id, row) for (list_id, _item, _name), row in zip(rows, built, strict=True)]


def item_rows(
    items: list[PreparationItem],
    division_names: dict[int, str],
    count_days: DayCounter = calendar_days,
) -> list[ListRow]:
    """Rows for items already loaded (a page of a dynamic list)."""
    named = [(item, division_names.get(item.division_id, ""), None) for item in items]
    return build_rows(named, count_days)


def _station_progress(item_ids: list[int]) -> dict[int, tuple[int, int, str | None, bool]]:
    """Per item: tasks done, tasks in all, the active station's name, whether it is overdue."""
    if not item_ids:
        return {}
    tasks = db.session.execute(
        select(
            ItemStationTask.item_id,
            ItemStationTask.status,
            ItemStationTask.started_at,
            ItemStationTask.target_minutes,
            Station.name,
            Station.name_texts,
        )  # fmt: skip
        .join(Station, Station.id == ItemStationTask.station_id)
        .where(ItemStationTask.item_id.in_(item_ids))
        .order_by(ItemStationTask.item_id, ItemStationTask.ordering)
    ).all()
    now = utcnow()
    found: dict[int, list] = defaultdict(lambda: [0, 0, None, False])
    for item_id, status, started_at, target, name, texts in tasks:
        entry = found[item_id]
        entry[1] += 1
        if status == "done":
            entry[0] += 1
        elif status == "active":
            entry[2] = for_reader(texts, name)
            if started_at and (now - started_at).total_seconds() > target * 60:
                entry[3] = True
    return {k: tuple(v) for k, v in found.items()}


# --- seen markers ----------------------------------------------------------------------------


def list_item_in_scope(list_id: int, item_id: int, user_id: int, division_ids: list[int]) -> bool:
    """Whether the item is on the user's own list and in a division the user may see."""
    return (
        db.session.scalar(
            select(CustomListItem.id)
            .join(CustomList, CustomList.id == CustomListItem.custom_list_id)
            .join(PreparationItem, PreparationItem.id == CustomListItem.item_id)
            .where(
                CustomListItem.custom_list_id == list_id,
                CustomListItem.item_id == item_id,
                CustomList.user_id == user_id,
                PreparationItem.division_id.in_(division_ids),
            )
        )
        is not None
    )


def mark_seen(list_id: int, item_id: int, user_id: int) -> int:
    """Record that the user has seen the item on the list; raises SeenExists with the marker
    that is already there."""
    existing = _seen_id(list_id, item_id, user_id)
    if existing is not None:
        raise SeenExists(existing)
    marker = CustomListSeen(custom_list_id=list_id, item_id=item_id, user_id=user_id)
    try:
        with db.session.begin_nested():
            db.session.add(marker)
    except IntegrityError:  # a parallel request marked it a moment ago
        raise SeenExists(_seen_id(list_id, item_id, user_id) or 0) from None
    return marker.id


def _seen_id(list_id: int, item_id: int, user_id: int) -> int | None:
    return db.session.scalar(
        select(CustomListSeen.id).where(
            CustomListSeen.custom_list_id == list_id,
            CustomListSeen.item_id == item_id,
            CustomListSeen.user_id == user_id,
        )
    )


def seen_owner(seen_id: int) -> tuple[int, int] | None:
    """(instance id, user id) of a marker in any instance, or None when it does not exist."""
    row = db.session.execute(
        select(CustomListSeen.instance_id, CustomListSeen.user_id)
        .where(CustomListSeen.id == seen_id)
        .execution_options(all_instances=True)
    ).first()
    return (row[0], row[1]) if row else None


def unmark_seen(seen_id: int, user_id: int) -> bool:
    """Delete the user's marker; False when it no longer exists."""
    result = db.session.execute(
        delete(CustomListSeen).where(
            CustomListSeen.id == seen_id, CustomListSeen.user_id == user_id
        )
    )
    return bool(result.rowcount)


# --- dynamic lists ---------------------------------------------------------------------------


def user_dynamic_lists(user_id: int) -> list[DynamicList]:
    return list(
        db.session.scalars(
            select(DynamicList)
            .where(DynamicList.user_id == user_id)
            .order_by(func.lower(DynamicList.title), DynamicList.id)
        )
    )


def get_dynamic_list(uuid: str, user_id: int) -> DynamicList | None:
    return db.session.scalars(
        select(DynamicList).where(DynamicList.uuid == uuid, DynamicList.user_id == user_id)
    ).first()


def dynamic_filters(dynamic: DynamicList) -> ItemFilters | None:
    """The saved filters as overview filters; None when they can no longer be read."""
    try:
        return ItemFilters.from_args({k: str(v) for k, v in (dynamic.filters or {}).items()})
    except ValueError:
        return None


def dynamic_counts(lists: list[DynamicList], division_ids: list[int]) -> dict[int, int | None]:
    """The number of vehicles each saved filter finds, in one statement for all of them."""
    counts: dict[int, int | None] = {}
    columns = []
    for dynamic in lists:
        filters = dynamic_filters(dynamic)
        if filters is None or dynamic.module not in ("begcare", "newcare"):
            counts[dynamic.id] = None
            continue
        stmt = item_query(dynamic.module, division_ids, filters=filters)
        inner = stmt.order_by(None).with_only_columns(PreparationItem.id).subquery()
        columns.append((dynamic.id, select(func.count()).select_from(inner).scalar_subquery()))
    if columns:
        values = db.session.execute(select(*(c.label(f"c{i}") for i, c in columns))).one()
        counts.update({i: int(v or 0) for (i, _c), v in zip(columns, values, strict=True)})
    return counts


def create_dynamic_list(user_id: int, module: str, title: str, filters: ItemFilters) -> DynamicList:
    """Save the overview's filters under a name (required, unique among the user's lists)."""
    title = clean_name(title)
    _check_unique(DynamicList, "title", user_id, title)
    dynamic = DynamicList(user_id=user_id, title=title, module=module, filters=filters.to_args())
    dynamic.stamp(user_id)
    db.session.add(dynamic)
    db.session.flush()
    audit.record("my_lists.dynamic_list.create", list_id=dynamic.id, title=title, module=module)
    return dynamic


def rename_dynamic_list(dynamic: DynamicList, title: str) -> None:
    """Give a saved filter a new name, unique among its owner's dynamic lists."""
    _rename(dynamic, "title", title)


def delete_dynamic_list(dynamic: DynamicList) -> None:
    db.session.delete(dynamic)
    db.session.flush()
