"""What the item manage page shows: the item within the user's rights, its details, tasks,
files, comments and history; and the comment rules.

Every read is one query however many rows it returns, so the page costs the same number of
statements for an item with two tasks or twenty.
"""

from dataclasses import dataclass
from datetime import datetime

from flask import abort
from flask_babel import gettext as _
from sqlalchemy import and_, select
from sqlalchemy.orm import aliased, selectinload

from app.auth.models import User
from app.auth.viewer import viewer
from app.core import audit
from app.core.audit import AuditLog
from app.core.localized import for_reader
from app.core.models import Country, Division, Region, utcnow
from app.core.tenancy import active_instance_id
from app.extensions import db
from app.preparation import files, locations, recon, salespeople, service_due
from app.preparation.models import (
    FileObject,
    ItemComment,
    ItemCommentImage,
    ItemFile,
    ItemStateEvent,
    ItemStationTask,
    PreparationItem,
    StateButton,
    Station,
    StationGroup,
    StationPackage,
)
from app.preparation.states import BY_ID, states_off

COMMENT_MAX = 5000
HISTORY_LIMIT = 200


class CommentError(ValueError):
    """A refused comment, with a message for the user."""


class CommentImageError(CommentError):
    """A refused image of a comment (its message belongs next to the images field)."""


def find_item(item_id: int, modules, division_ids) -> PreparationItem | None:
    """The item with this id if it is in one of `modules` and `division_ids` (else None)."""
    return db.session.scalars(
        select(PreparationItem).where(
            PreparationItem.id == item_id,
            PreparationItem.module.in_(list(modules)),
            PreparationItem.division_id.in_(list(division_ids)),
        )
    ).first()


def item_or_404(module: str | None, item_id: int) -> PreparationItem:
    """The item, if it is of this module, the viewer has the module and may see its division;
    anything else is a 404 (the manage page and its forms: tasks, tags, locations). Without a
    `module` (a path that names none: bookings), of any module the viewer has."""
    v = viewer()
    if module is not None and module not in v.modules:
        abort(404)
    modules = [module] if module is not None else v.modules
    return _or_404(find_item(item_id, modules, [d.id for d in v.visible_divisions]))


def _or_404(found):
    """What a lookup found; nothing (or what the viewer may not see) is a 404."""
    if found is None:
        abort(404)
    return found


@dataclass(frozen=True)
class Details:
    division: str
    region: str
    currency: str
    mileage_unit: str
    package: str | None


def item_details(item: PreparationItem) -> Details:
    """The item's division, region, currency, mileage unit and station package (one query)."""
    row = db.session.execute(
        select(Division.name, Region.name, Country.currency, Country.milage_unit)
        .add_columns(StationPackage.name, StationPackage.name_texts)
        .select_from(Division)
        .join(Region, Region.id == Division.region_id)
        .join(Country, Country.id == Region.country_id)
        .outerjoin(StationPackage, StationPackage.id == item.package_id)
        .where(Division.id == item.division_id)
    ).one()
    *named, package, package_texts = row
    return Details(*named, for_reader(package_texts, package) if package else None)


@dataclass(frozen=True)
class TaskRow:
    task: ItemStationTask
    station: str
    group: str | None
    assigned: str | None
    checkup: str | None = None  # the service check-up task it is, by name


def item_tasks(item_id: int) -> list[TaskRow]:
    """The item's station tasks in order, with station and assigned user names."""
    rows = db.session.execute(
        select(ItemStationTask, Station, StationGroup, User)
        .join(Station, Station.id == ItemStationTask.station_id)
        .outerjoin(StationGroup, StationGroup.id == Station.station_group_id)
        .outerjoin(User, User.id == ItemStationTask.assigned_user_id)
        .where(ItemStationTask.item_id == item_id)
        .order_by(ItemStationTask.ordering, ItemStationTask.id)
    ).all()
    checkups = service_due.checkup_names(t.checkup_task_id for t, *_rest in rows)
    return [
        TaskRow(
            t,
            s.shown_name,
            g and g.shown_name,
            u.full_name if u else None,
            checkups.get(t.checkup_task_id),
        )  # fmt: skip
        for t, s, g, u in rows
    ]


def task_or_404(item: PreparationItem, task_id: int) -> ItemStationTask:
    """One of the item's station tasks; another item's, or none, is a 404."""
    return _or_404(
        db.session.scalars(
            select(ItemStationTask).where(
                ItemStationTask.id == task_id, ItemStationTask.item_id == item.id
            )
        ).first()
    )


@dataclass(frozen=True)
class FileRow:
    id: int
    title: str
    uuid: str
    name: str
    content_type: str
    size: int
    has_small: bool
    created_at: datetime
    author: str | None

    @property
    def is_image(self) -> bool:
        return self.content_type.startswith("image/")


def item_files(item_id: int) -> list[FileRow]:
    """The item's files, newest first, without reading their bytes."""
    rows = db.session.execute(
        select(
            ItemFile.id,
            ItemFile.title,
            FileObject.uuid,
            FileObject.name,
            FileObject.content_type,
            FileObject.size,
            FileObject.small.is_not(None),
            ItemFile.created_at,
            User,
        )  # fmt: skip
        .join(FileObject, FileObject.id == ItemFile.file_object_id)
        .outerjoin(User, User.id == FileObject.created_by_id)
        .where(ItemFile.item_id == item_id)
        .order_by(ItemFile.created_at.desc(), ItemFile.id.desc())
    ).all()
    return [FileRow(*row[:-1], row[-1].full_name if row[-1] else None) for row in rows]


@dataclass(frozen=True)
class CommentRow:
    comment: ItemComment
    author: str | None

    @property
    def edited(self) -> bool:
        c = self.comment
        return (c.modified_at - c.created_at).total_seconds() > 1


def item_comments(item_id: int) -> list[CommentRow]:
    """The item's comments, newest first, with their authors."""
    rows = db.session.execute(
        select(ItemComment, User)
        .outerjoin(User, User.id == ItemComment.user_id)
        .where(ItemComment.item_id == item_id)
        .order_by(ItemComment.created_at.desc(), ItemComment.id.desc())
        .options(
            selectinload(ItemComment.images)
            .selectinload(ItemCommentImage.file)
            .load_only(FileObject.uuid, FileObject.name)
        )
    ).all()
    return [CommentRow(c, u.full_name if u else None) for c, u in rows]


def state_buttons(item: PreparationItem) -> list[StateButton]:
    """The configured transitions out of the item's state, in their order."""
    return list(
        db.session.scalars(
            select(StateButton)
            .where(StateButton.module == item.module, StateButton.from_state == item.state)
            .where(StateButton.to_state.not_in(states_off(item.module)))  # switched off
            .order_by(StateButton.ordering, StateButton.id)
        )
    )


def _clean_comment(content: str) -> str:
    content = (content or "").strip()
    if not content:
        raise CommentError(_("Write a comment first."))
    if len(content) > COMMENT_MAX:
        raise CommentError(_("A comment can be at most %(max)s characters.", max=COMMENT_MAX))
    return content


def add_comment(item: PreparationItem, user, content: str, uploads=()) -> ItemComment:
    """Add a comment by `user` to the item: a text, images (`uploads`: (bytes, name)) or both."""
    try:
        checked = files.comment_images(list(uploads))
    except files.UploadError as exc:
        raise CommentImageError(str(exc)) from None
    text = (content or "").strip()
    if not text and not checked:
        raise CommentError(_("Write a comment or add an image."))
    comment = ItemComment(
        item_id=item.id, user_id=user.id, content=_clean_comment(text) if text else ""
    )
    db.session.add(comment)
    for data, name in checked:
        comment.images.append(ItemCommentImage(file=files.store_file(data, name, user.id)))
    db.session.flush()
    audit.record(
        "preparation.comment.add", user=user, division_id=item.division_id, item_id=item.id,
        comment_id=comment.id,
    )  # fmt: skip
    return comment


def edit_comment(comment: ItemComment, user, content: str) -> None:
    """Change the text of one's own comment."""
    if comment.user_id != user.id:
        raise CommentError(_("You can only edit your own comments."))
    content = _clean_comment(content)
    if content != comment.content:
        comment.content = content
        comment.modified_at = utcnow()
        audit.record(
            "preparation.comment.edit", user=user, item_id=comment.item_id, comment_id=comment.id
        )


def comment_image_items(file_object_id: int) -> list[tuple[str, int]]:
    """(module, division id) of the vehicles whose comments hold this image."""
    return db.session.execute(
        select(PreparationItem.module, PreparationItem.division_id)
        .join(ItemComment, ItemComment.item_id == PreparationItem.id)
        .join(ItemCommentImage, ItemCommentImage.comment_id == ItemComment.id)
        .where(ItemCommentImage.file_object_id == file_object_id)
    ).all()


def find_comment(item_id: int, comment_id: int) -> ItemComment | None:
    return db.session.scalars(
        select(ItemComment).where(ItemComment.id == comment_id, ItemComment.item_id == item_id)
    ).first()


# --- history -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class HistoryEntry:
    when: datetime
    who: str | None
    kind: str  # state, task, file, location
    text: str


def _task_text(action: str, details: dict, currency: str = "") -> str:
    station = for_reader(details.get("station_texts"), details.get("station") or "")
    texts = {
        "preparation.task.start": _("%(station)s started", station=station),
        "preparation.task.finish": _("%(station)s finished", station=station),
        "preparation.task.assign": _("%(station)s assigned", station=station),
        "preparation.task.reopen": _("%(station)s reopened", station=station),
        "preparation.task.undo": _("%(station)s finish taken back", station=station),
    }
    if action.startswith("preparation.recon."):
        return _recon_text(action, details, station, currency)
    return texts.get(action, action)


# A rule's automatic change (app/automation/rules.py): no user, the rule's name in the details.
RULE_ACTION = "preparation.rule.applied"


def _rule_text(details: dict) -> str:
    what = details.get("what")
    state = next((s.title for s in BY_ID.values() if s.key == details.get("state")), "")
    if what == "tag":
        return _(
            "Tag %(tag)s added", tag=for_reader(details.get("tag_texts"), details.get("tag", ""))
        )
    if what == "move":
        return _("Moved to %(state)s", state=state)
    if what == "skipped_move":
        return _("Not moved to %(state)s: a rule before it moved the vehicle", state=state)
    if what == "notify":
        return _("Notified %(num)s users", num=details.get("count", 0))
    return _(
        "Warning: %(text)s", text=for_reader(details.get("text_texts"), details.get("text", ""))
    )


def _recon_text(action: str, details: dict, station: str, currency: str) -> str:
    """A cost line, an estimate put to the managers, or their decision (app/preparation/recon.py),
    its amount as the vehicle page writes it: a line's with its decimals, an estimate's in whole
    units, in the reader's language and the division's currency."""
    line = action in ("preparation.recon.line", "preparation.recon.remove")
    amount = f"{recon.money(details.get('amount'), whole=not line)} {currency}".strip()
    if line:
        what = details.get("description") or ""
        if details.get("phase") == "estimate":
            text = _("%(station)s: estimate %(amount)s added", station=station, amount=amount)
        else:
            text = _("%(station)s: actual cost %(amount)s added", station=station, amount=amount)
        if action == "preparation.recon.remove":
            text = _("%(station)s: cost line %(amount)s removed", station=station, amount=amount)
        return f"{text} ({what})" if what else text
    if action == "preparation.recon.request":
        return _("%(station)s: estimate of %(amount)s waits for a manager's approval",
                 station=station, amount=amount)  # fmt: skip
    comment = details.get("comment") or ""
    if action == "preparation.recon.approved":
        text = _("%(station)s: estimate of %(amount)s approved", station=station, amount=amount)
    else:
        text = _("%(station)s: estimate of %(amount)s rejected", station=station, amount=amount)
    return f"{text}: {comment}" if comment else text


HISTORY_ACTIONS = (
    RULE_ACTION,
    "preparation.task.start",
    "preparation.task.finish",
    "preparation.task.assign",
    "preparation.task.reopen",
    "preparation.task.undo",
    "preparation.recon.line",
    "preparation.recon.remove",
    "preparation.recon.request",
    "preparation.recon.approved",
    "preparation.recon.rejected",
    "preparation.file.upload",
    locations.MOVE_ACTION,
    salespeople.SET_ACTION,
)


def item_history(item: PreparationItem) -> list[HistoryEntry]:
    """State changes, station task and file events and location moves of the item, newest
    first (two queries)."""
    entries: list[HistoryEntry] = []
    mover = aliased(User)
    for event, user in db.session.execute(
        select(ItemStateEvent, mover)
        .outerjoin(mover, mover.id == ItemStateEvent.user_id)
        .where(ItemStateEvent.item_id == item.id)
        .order_by(ItemStateEvent.created_at.desc(), ItemStateEvent.id.desc())
        .limit(HISTORY_LIMIT)
    ):
        to = BY_ID[event.to_state].title if event.to_state in BY_ID else event.to_state
        if event.from_state is None:
            text = _("Added in %(state)s", state=to)
        else:
            before = BY_ID[event.from_state].title if event.from_state in BY_ID else ""
            text = _("Moved from %(from)s to %(to)s", **{"from": before, "to": to})
        entries.append(
            HistoryEntry(event.created_at, user.full_name if user else None, "state", text)
        )
    actor = aliased(User)
    currency = None  # the division's, looked up at the first cost entry
    for log, user in db.session.execute(
        select(AuditLog, actor)
        .outerjoin(actor, actor.id == AuditLog.user_id)
        .where(
            and_(
                AuditLog.instance_id == active_instance_id(),
                AuditLog.action.in_(HISTORY_ACTIONS),
                AuditLog.details["item_id"].as_integer() == item.id,
            )
        )
        .order_by(AuditLog.created_at.desc(), AuditLog.id.desc())
        .limit(HISTORY_LIMIT)
    ):
        details = log.details or {}
        if log.action == "preparation.file.upload":
            kind, text = "file", _("File added: %(title)s", title=details.get("title", ""))
        elif log.action == locations.MOVE_ACTION:
            kind, text = "location", locations.history_text(details)
        elif log.action == salespeople.SET_ACTION:
            kind, text = "salesperson", salespeople.history_text(details)
        elif log.action == RULE_ACTION:
            name = for_reader(details.get("rule_texts"), details.get("rule", ""))
            rule = _("Rule %(name)s", name=name)
            entries.append(HistoryEntry(log.created_at, rule, "rule", _rule_text(details)))
            continue
        else:
            if currency is None and log.action.startswith("preparation.recon."):
                currency = recon.currency_of(item.division_id) or ""
            kind, text = "task", _task_text(log.action, details, currency or "")
        entries.append(HistoryEntry(log.created_at, user.full_name if user else None, kind, text))
    entries.sort(key=lambda e: e.when, reverse=True)
    return entries[:HISTORY_LIMIT]
