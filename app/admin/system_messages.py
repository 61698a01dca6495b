"""The system messages' admin screen at /admin/global/system-messages: list, create, edit
(scheduling is the start and end time), delete. Read: ROLE_GLOBAL_SYSTEM_MESSAGES_READ (the
menu's rule); change: that role and ROLE_ADMIN."""

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup
from sqlalchemy import select

from app.admin.crud import Column, Screen
from app.core.models import Instance, utcnow
from app.core.times import moment
from app.extensions import db
from app.messages import services as S
from app.messages.forms import AUDIENCE_CHOICES, TYPE_CHOICES, SystemMessageForm, local
from app.messages.models import SystemMessage

BADGE = Markup('<span class="badge{}">{}</span>')


def _instances() -> list[Instance]:
    return list(db.session.scalars(select(Instance).order_by(Instance.company_name)))


def _message(m: SystemMessage):
    if not m.persistent:
        return m.message
    return Markup("{} {}").format(m.message, BADGE.format("", _("Persistent")))


def _audience(m: SystemMessage, extra: dict):
    who = AUDIENCE_CHOICES.get(m.audience, m.audience)
    if m.audience == "instance":
        return f"{who}: {extra['companies'].get(m.audience_instance_id, '')}"
    if m.audience == "role":
        return Markup("{}: <code>{}</code>").format(who, m.audience_role)
    return who


def _state(m: SystemMessage, extra: dict):
    state = S.status(m, extra["now"])
    if state == "active":
        return BADGE.format(" badge-success", _("Active"))
    if state == "scheduled":
        return BADGE.format("", _("Scheduled"))
    return Markup('<span class="muted">{}</span>').format(_("Ended"))


def _extra(rows, v) -> dict:
    companies = {m.audience_instance_id for m in rows if m.audience_instance_id}
    names = db.session.execute(
        select(Instance.id, Instance.company_name).where(Instance.id.in_(companies))
    )
    return {"now": utcnow(), "companies": dict(names.all())}


def _prepare(form: SystemMessageForm, v, row) -> None:
    form.set_instances(_instances())
    if row is None and not form.is_submitted():
        form.started_at.data = local(utcnow()).replace(second=0, microsecond=0)


def _load(form: SystemMessageForm, m: SystemMessage) -> None:
    for name in (
        "type",
        "message",
        "message_texts",
        "description",
        "description_texts",
        "persistent",
        "show_as",
        "audience",
    ):
        getattr(form, name).data = getattr(m, name)
    form.started_at.data = local(m.started_at)
    form.ended_at.data = local(m.ended_at)
    form.audience_instance_id.data = m.audience_instance_id
    form.audience_role.data = m.audience_role


SYSTEM_MESSAGES = Screen(
    path="global/system-messages",
    noun=_l("system message"),
    model=SystemMessage,
    form=SystemMessageForm,
    columns=(
        Column(_l("Message"), _message),
        Column(_l("Type"), lambda m: TYPE_CHOICES.get(m.type, m.type)),
        Column(_l("Show as"), lambda m: _("Dialog") if m.show_as == "modal" else _("Alert")),
        Column(_l("Shown to"), _audience, with_extra=True),
        Column(_l("Shown from"), lambda m: moment(m.started_at), "nowrap"),
        Column(_l("Shown until"), lambda m: moment(m.ended_at), "nowrap"),
        Column(_l("State"), _state, with_extra=True),
    ),
    intro=_l(
        "System messages reach the users of every company, one company or one role while they are active: as an alert at the bottom of the page or as a dialog. Users see a changed message again."
    ),
    search=("message",),
    order_by=(SystemMessage.started_at.desc(), SystemMessage.id.desc()),
    label=lambda m: m.message,
    prepare=_prepare,
    load=_load,
    save=lambda m, form, v: S.save(m, form.values(), v.user.id),
    list_extra=_extra,
    empty=_l("No system messages yet."),
)
