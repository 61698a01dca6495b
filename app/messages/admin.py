"""Admin screens of system messages at /admin/global/system-messages: list, create, edit
(scheduling is the start and end time), delete. Read: ROLE_GLOBAL_SYSTEM_MESSAGES_READ; change:
that role and ROLE_ADMIN."""

from flask import abort, flash, redirect, render_template
from flask_babel import gettext as _
from sqlalchemy import select

from app.core.audit import record
from app.core.models import Instance, utcnow
from app.extensions import db
from app.messages import bp
from app.messages import services as S
from app.messages.access import can_write, get_row, global_entry, guard
from app.messages.forms import AUDIENCE_CHOICES, TYPE_CHOICES, SystemMessageForm, local
from app.messages.models import SystemMessage
from app.preparation.admin_forms import ConfirmDeleteForm

PATH = "/admin/global/system-messages"
FORM_METHODS = ["GET", "POST"]


def _instances() -> list[Instance]:
    return db.session.scalars(select(Instance).order_by(Instance.company_name)).all()


def _page(template: str, v, **context):
    _, entry = global_entry(PATH)
    return render_template(
        template,
        screen_title=entry.title,
        list_url=PATH,
        can_change=can_write(v, PATH),
        **context,
    )


def _found(message_id: int) -> SystemMessage:
    message = get_row(SystemMessage, message_id)
    if message is None:
        abort(404)
    return message


@bp.get(PATH)
def system_messages():
    """Every message, newest start first, with its state (scheduled, active, ended)."""
    v = guard(PATH)
    rows = db.session.scalars(
        select(SystemMessage).order_by(SystemMessage.started_at.desc(), SystemMessage.id.desc())
    ).all()
    now = utcnow()
    companies = {i.id: i.company_name for i in _instances()}
    return _page(
        "messages/admin_list.html",
        v,
        rows=rows,
        status={m.id: S.status(m, now) for m in rows},
        types=TYPE_CHOICES,
        audiences=AUDIENCE_CHOICES,
        companies=companies,
    )


def _form_screen(v, message: SystemMessage | None):
    form = SystemMessageForm(instances=_instances())
    if message is not None and not form.is_submitted():
        form.type.data = message.type
        form.message.data = message.message
        form.description.data = message.description
        form.started_at.data = local(message.started_at)
        form.ended_at.data = local(message.ended_at)
        form.persistent.data = message.persistent
        form.show_as.data = message.show_as
        form.audience.data = message.audience
        form.audience_instance_id.data = message.audience_instance_id
        form.audience_role.data = message.audience_role
    elif message is None and not form.is_submitted():
        form.started_at.data = local(utcnow()).replace(second=0, microsecond=0)
    if form.validate_on_submit():
        created = message is None
        saved = S.save(message or SystemMessage(), form.values(), v.user.id)
        record(
            f"messages.system_message.{'create' if created else 'update'}",
            message_id=saved.id,
            message=saved.message,
            audience=saved.audience,
        )
        db.session.commit()
        flash(_("The system message is saved."), "success")
        return redirect(PATH)
    subpage = _("New system message") if message is None else _("Edit system message")
    return _page("messages/admin_form.html", v, form=form, subpage=subpage, message=message)


@bp.route(f"{PATH}/new", methods=FORM_METHODS)
def system_message_new():
    v = guard(PATH, write=True)
    return _form_screen(v, None)


@bp.route(f"{PATH}/<int:message_id>/edit", methods=FORM_METHODS)
def system_message_edit(message_id: int):
    v = guard(PATH, write=True)
    return _form_screen(v, _found(message_id))


@bp.route(f"{PATH}/<int:message_id>/delete", methods=FORM_METHODS)
def system_message_delete(message_id: int):
    v = guard(PATH, write=True)
    message = _found(message_id)
    form = ConfirmDeleteForm()
    if form.validate_on_submit():
        record("messages.system_message.delete", message_id=message.id, message=message.message)
        db.session.delete(message)
        db.session.commit()
        flash(_("The system message is deleted."), "success")
        return redirect(PATH)
    return _page(
        "messages/admin_delete.html",
        v,
        form=form,
        subpage=_("Delete system message"),
        name=message.message,
    )
