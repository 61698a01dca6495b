"""Item manage pages (stations-manage, stations-utilize), station vehicles, files and comments."""

from datetime import datetime
from io import BytesIO

import click
from flask import abort, flash, redirect, render_template, request, send_file, url_for
from flask_babel import format_decimal
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, MultipleFileField
from pydantic import Field
from sqlalchemy import select
from sqlalchemy.orm import defer
from wtforms import StringField, TextAreaField

from app.auth.session import safe_next
from app.auth.viewer import viewer
from app.core import file_access
from app.core.api import Schema, api_call
from app.core.forms import too_long
from app.core.models import Instance, utcnow
from app.core.roles import ROLE_STATION_USER
from app.core.tenancy import activate
from app.core.times import moment
from app.core.workdays import day_counter
from app.extensions import db
from app.preparation import api_bp, bp, files, manage, recon, recon_view, tasks
from app.preparation.actions import vehicle_actions
from app.preparation.items import manage_path
from app.preparation.manage import item_or_404
from app.preparation.models import FileObject, ItemFile, PreparationItem
from app.preparation.states import BY_ID

VEHICLE_MODULES = "<any(begcare, newcare):module>"


class UploadForm(FlaskForm):
    file = FileField(_l("File"))
    title = StringField(
        _l("Title"),
        validators=[too_long(files.TITLE_MAX)],
        render_kw={"maxlength": files.TITLE_MAX},
    )


class CommentForm(FlaskForm):
    content = TextAreaField(
        _l("Comment"),
        validators=[too_long(manage.COMMENT_MAX)],
        render_kw={"maxlength": manage.COMMENT_MAX, "rows": 3},
    )
    images = MultipleFileField(
        _l("Images"), render_kw={"accept": "image/jpeg,image/png,image/webp", "multiple": True}
    )


# --- access ------------------------------------------------------------------------------------


def _division_ids() -> list[int]:
    return [d.id for d in viewer().visible_divisions]


def _worker() -> tasks.Worker:
    v = viewer()
    return tasks.Worker.of(v.user, v.roles)


@bp.app_template_filter("prep_time")
def prep_time(value: datetime | None, date_only: bool = False) -> str:
    """A moment as the spec writes it: y-MM-dd with HH:mm, in the user's time zone."""
    return moment(value, "date" if date_only else "datetime")


@bp.app_template_filter("prep_number")
def prep_number(value) -> str:
    """A whole number grouped as the user's language writes it."""
    return format_decimal(round(value or 0), format="#,##0")


@bp.app_template_filter("prep_size")
def prep_size(size: int) -> str:
    """A file size in kB (at least 1) or MB, as the user's language writes numbers."""
    if size >= 1024 * 1024:
        return _("%(size)s MB", size=format_decimal(size / 1024 / 1024, format="#,##0.0"))
    return _("%(size)s kB", size=format_decimal(max(1, round(size / 1024)), format="#,##0"))


# --- pages -------------------------------------------------------------------------------------


@bp.get(f"/{VEHICLE_MODULES}/<int:item_id>")
def item_redirect(module: str, item_id: int):
    """Spec 01: {module}/{id} goes to {module}/items/incoming/{id}, which finds the real page."""
    return redirect(url_for(".item_page", module=module, segment="incoming", item_id=item_id))


@bp.get(f"/{VEHICLE_MODULES}/items/<segment>/<int:item_id>")
@bp.get(
    f"/{VEHICLE_MODULES}/items/<segment>/<int:item_id>/<any('stations-manage', 'stations-utilize'):view>"
)
def item_page(module: str, segment: str, item_id: int, view: str | None = None):
    """The item manage page; any other segment or view than the item's state's redirects."""
    item = item_or_404(module, item_id)
    target = manage_path(item)
    if request.path != target:
        return redirect(target)
    return render_item(item)


def render_item(
    item: PreparationItem,
    upload=None,
    comment=None,
    status: int = 200,
    spec=None,
    service=None,
    cost=None,
):
    """The vehicle page; a refused form's input and messages (`upload`, `comment`, `spec`,
    `service`, `cost`) shown where it was typed."""
    now = utcnow()
    warned = item.warning
    if tasks.sync_warning(item, now) != warned:
        db.session.commit()  # an active task ran past its target since the last look
    worker = _worker()
    task_rows = manage.item_tasks(item.id)
    return (
        render_template(
            "preparation/manage/item.html",
            item=item,
            module=item.module,
            details=manage.item_details(item),
            days_in_state=day_counter(viewer().instance)(
                item.state_changed_at, now, item.division_id
            ),
            state=BY_ID[item.state],
            tasks=task_rows,
            worker=worker,
            now=now,
            is_overdue=tasks.is_overdue,
            minutes_taken=tasks.minutes_taken,
            files=manage.item_files(item.id),
            comments=manage.item_comments(item.id),
            history=manage.item_history(item),
            buttons=manage.state_buttons(item),
            actions=vehicle_actions(item),
            upload=upload or UploadForm(formdata=None),
            comment=comment or CommentForm(formdata=None),
            accept=files.ACCEPT,
            max_mb=f"{files.max_upload_bytes() / 1024 / 1024:g}",
            me=viewer().user.id,
            spec=spec or {"values": {}, "errors": {}},
            service=service or {"values": {}, "errors": {}},
            recon=recon_view.vehicle_costs(item, task_rows, now),
            may_approve=recon.may_approve(viewer(), item),
            cost=cost,
        ),
        status,
    )


def back_path(item: PreparationItem, anchor: str = "") -> str:
    """Where a vehicle's form goes back to: the page it was sent from (`next`), else the
    vehicle page (at `anchor`)."""
    return safe_next(request.form.get("next")) or manage_path(item) + anchor


def act_then_back(back: str, act, refused, done):
    """Run a vehicle's action `act` and go back to `back`. Refused (an exception of `refused`,
    whose text is for the user): nothing is saved and the text is shown as an error. Otherwise
    it is saved and `done(what act returned)` is shown, when it says something."""
    try:
        result = act()
    except refused as exc:
        db.session.rollback()
        flash(str(exc), "danger")
        return redirect(back)
    db.session.commit()
    message = done(result)
    if message:
        flash(message, "success")
    return redirect(back)


@bp.post(
    f"/{VEHICLE_MODULES}/items/<int:item_id>/tasks/<int:task_id>/<any(start, finish, assign, reopen, undo):action>"
)
def task_action(module: str, item_id: int, task_id: int, action: str):
    """Start, finish, assign to me, reopen or take back (undo) one of the item's station tasks."""
    item = item_or_404(module, item_id)
    task = manage.task_or_404(item, task_id)
    messages = {
        "start": _("%(station)s started for %(regno)s."),
        "finish": _("%(station)s finished for %(regno)s."),
        "assign": _("%(station)s for %(regno)s is assigned to you."),
        "reopen": _("%(station)s for %(regno)s is open again."),
        "undo": _("%(station)s for %(regno)s is in progress again."),
    }
    return act_then_back(
        back_path(item),
        lambda: tasks.work_task(item, task, action, _worker()),
        tasks.TaskError,
        lambda _r: messages[action] % {"station": task.station.shown_name, "regno": item.regno},
    )


def save_item_form(item, form, act, refused, field_of, done: str, anchor: str, shown_as: str):
    """A form of the vehicle page posted: valid, `act()` saves it, `done` is shown and the page
    opens again at `anchor`. Invalid or refused (an exception of `refused`, whose text goes
    beside the field `field_of(exception)`): nothing is saved and the page comes back (422)
    with the form, as render_item's `shown_as`, holding the input and the messages."""
    if form.validate():
        try:
            act()
        except refused as exc:
            db.session.rollback()
            field_of(exc).errors = [str(exc)]
        else:
            db.session.commit()
            flash(done, "success")
            return redirect(manage_path(item) + anchor)
    return render_item(item, status=422, **{shown_as: form})


@bp.post(f"/{VEHICLE_MODULES}/items/<int:item_id>/files")
def upload_file(module: str, item_id: int):
    """Attach an uploaded image or document to the item."""
    item = item_or_404(module, item_id)
    form = UploadForm()

    def add() -> None:
        upload = form.file.data
        data = upload.read(files.max_upload_bytes() + 1) if upload else b""
        name = upload.filename if upload else ""
        files.add_item_file(item, data, name, form.title.data, viewer().user)

    return save_item_form(
        item, form, add, files.UploadError, lambda _exc: form.file,
        _("The file is added."), "#files", "upload",
    )  # fmt: skip


@bp.post(f"/{VEHICLE_MODULES}/items/<int:item_id>/comments")
def add_comment(module: str, item_id: int):
    """Add a comment to the item."""
    item = item_or_404(module, item_id)
    form = CommentForm()

    def add() -> None:
        limit = files.max_upload_bytes() + 1
        uploads = [(f.read(limit), f.filename) for f in form.images.data or () if f]
        manage.add_comment(item, viewer().user, form.content.data, uploads)

    def field_of(exc):
        return form.images if isinstance(exc, manage.CommentImageError) else form.content

    return save_item_form(
        item, form, add, manage.CommentError, field_of,
        _("The comment is added."), "#comments", "comment",
    )  # fmt: skip


@bp.post(f"/{VEHICLE_MODULES}/items/<int:item_id>/comments/<int:comment_id>")
def edit_comment(module: str, item_id: int, comment_id: int):
    """Change the text of one's own comment."""
    item = item_or_404(module, item_id)
    comment = manage.find_comment(item.id, comment_id)
    if comment is None:
        abort(404)
    form = CommentForm()
    if form.validate():
        try:
            manage.edit_comment(comment, viewer().user, form.content.data)
        except manage.CommentError as exc:
            db.session.rollback()
            flash(str(exc), "danger")
        else:
            db.session.commit()
            flash(_("The comment is saved."), "success")
    else:
        flash(form.content.errors[0], "danger")
    return redirect(manage_path(item) + f"#comment-{comment.id}")


# --- station users -----------------------------------------------------------------------------


def _station_user():
    v = viewer()
    if not v.has(ROLE_STATION_USER) or "begcare" not in v.modules:
        abort(404)
    return v


@bp.get("/begcare/station/vehicles")
def station_vehicles():
    """The vehicles waiting at the user's stations, to start and finish from a phone."""
    return render_station()


def render_station(cost=None, status: int = 200):
    """The station user's vehicles; `cost`: a refused cost form to show again on its card."""
    v = _station_user()
    stations = tasks.stations_of(v.user.id)
    now = utcnow()
    rows = tasks.station_queue([s.id for s in stations], v.selected_division_ids, "begcare")
    if tasks.flag_overdue(rows, now):
        db.session.commit()  # a vehicle here ran past its target since the last look
    return render_template(
        "preparation/station/vehicles.html",
        rows=rows,
        done_today=tasks.finished_since(v.user.id, tasks.day_start(now)),
        stations=stations,
        now=now,
        is_overdue=tasks.is_overdue,
        minutes_taken=tasks.minutes_taken,
        manage_path=manage_path,
        costs=recon_view.task_costs([r.task.id for r in rows], now),
        currencies=recon.currencies(v.selected_division_ids),
        cost=cost,
    ), status


@bp.get("/begcare/station/profile")
def station_profile():
    """The user's stations and the tasks they finished today."""
    v = _station_user()
    finished = tasks.finished_since(v.user.id, tasks.day_start())
    return render_template(
        "preparation/station/profile.html",
        stations=tasks.stations_of(v.user.id),
        finished=finished,
        minutes_taken=tasks.minutes_taken,
        manage_path=manage_path,
    )


@bp.cli.command("sync-warnings")
def sync_warnings_command() -> None:
    """Set or clear every item's overdue warning (run it every few minutes, e.g. from cron)."""
    for instance_id in db.session.scalars(select(Instance.id).where(Instance.active.is_(True))):
        activate(instance_id)
        set_count, cleared = tasks.sync_overdue_warnings()
        db.session.commit()
        click.echo(f"instance {instance_id}: {set_count} warnings set, {cleared} cleared")
    activate(None)


# --- files -------------------------------------------------------------------------------------


class BinaryQuery(Schema):
    variation: str | None = Field(default=None, pattern="^small$")


@file_access.rule("preparation.item-file")
def _attached_items_visible(file_object_id: int) -> bool | None:
    """A file attached to items, or an image of their comments, may be read only by those who
    may see one of those items (None: the file belongs to no item)."""
    rows = db.session.execute(
        select(PreparationItem.module, PreparationItem.division_id)
        .join(ItemFile, ItemFile.item_id == PreparationItem.id)
        .where(ItemFile.file_object_id == file_object_id)
    ).all() or manage.comment_image_items(file_object_id)
    if not rows:
        return None
    v = viewer()
    visible = set(_division_ids())
    return any(m in v.modules and d in visible for m, d in rows)


def _stream(data: bytes, content_type: str, name: str, inline: bool):
    response = send_file(
        BytesIO(data),
        mimetype=content_type,
        as_attachment=not inline,
        download_name=name,
        max_age=0,
        conditional=False,
        etag=False,
    )
    response.headers["Cache-Control"] = "no-store"  # a private file: never kept by a cache
    response.headers["X-Content-Type-Options"] = "nosniff"
    if not content_type.startswith("image/"):
        response.headers["Content-Security-Policy"] = "sandbox; default-src 'none'"
    return response


@api_call(api_bp, "/file-objects/<name>/binary", query=BinaryQuery)
def file_object_binary(name: str, query: BinaryQuery):
    """A file object's bytes (variation=small: the small image), for those who may see what it
    belongs to (app/core/file_access.py)."""
    file = db.session.scalars(
        select(FileObject)
        .where(FileObject.uuid == name[:36])
        .options(defer(FileObject.data), defer(FileObject.small))
    ).first()
    if file is None or not file_access.may_read(file.id):
        abort(404)
    if query.variation == "small":
        if file.small is None:
            abort(404)
        stem = file.name.rsplit(".", 1)[0]
        return _stream(file.small, files.SMALL_CONTENT_TYPE, f"{stem}-small.jpg", inline=True)
    return _stream(file.data, file.content_type, file.name, file.content_type in files.IMAGE_TYPES)


@api_call(api_bp, "/preparation-item-files/<int:file_id>/view")
def item_file_view(file_id: int):
    """An item file's bytes, for users who may see the item."""
    v = viewer()
    row = db.session.execute(
        select(ItemFile, FileObject)
        .join(FileObject, FileObject.id == ItemFile.file_object_id)
        .join(PreparationItem, PreparationItem.id == ItemFile.item_id)
        .where(
            ItemFile.id == file_id,
            PreparationItem.module.in_(v.modules),
            PreparationItem.division_id.in_(_division_ids()),
        )
        .options(defer(FileObject.small))
    ).first()
    if row is None:
        abort(404)
    _item_file, file = row
    return _stream(file.data, file.content_type, file.name, file.content_type in files.IMAGE_TYPES)
