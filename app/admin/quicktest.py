"""The quick tests' information groups and informations at /admin/general/information-groups
and /admin/general/information. Read: the menu's rule (ROLE_ADMIN or
ROLE_TENANT_INFORMATION_READ); change: ROLE_ADMIN or division admin."""

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup
from sqlalchemy import func, select

from app.admin.crud import Column, FormRefused, Screen, admin_or_division_admin
from app.extensions import db
from app.quicktest.admin import TYPE_LABELS, InformationForm, InformationGroupForm, lines
from app.quicktest.models import Information, InformationGroup, StorageContainerValue


def _counts(column, rows, *where) -> dict[int, int]:
    stmt = select(column, func.count()).where(column.in_([r.id for r in rows]), *where)
    return dict(db.session.execute(stmt.group_by(column)).all())


INFORMATION_GROUPS = Screen(
    path="general/information-groups",
    noun=_l("information group"),
    model=InformationGroup,
    form=InformationGroupForm,
    columns=(
        Column(_l("Title"), "title"),
        Column(_l("Position"), "ordering", "num"),
        Column(_l("Informations"), lambda g, e: e.get(g.id, 0), "num", True),
    ),
    intro=_l("Information groups sort the informations a quick test can ask for."),
    search=("title",),
    write=admin_or_division_admin,
    order_by=(InformationGroup.ordering, InformationGroup.title),
    label=lambda g: g.title,
    list_extra=lambda rows, v: _counts(Information.information_group_id, rows),
    delete_consequences=lambda g: [_("Its informations stay, without a group.")],
    empty=_l("No information groups yet."),
)


def _used(information_id: int) -> int:
    return db.session.scalar(
        select(func.count()).where(StorageContainerValue.information_id == information_id)
    )


def _type(info: Information):
    label = TYPE_LABELS[info.type]
    if info.type != "select":
        return label
    return Markup('{} <span class="muted">({})</span>').format(label, ", ".join(info.choices))


def _prepare(form: InformationForm, v, row) -> None:
    groups = db.session.scalars(
        select(InformationGroup).order_by(InformationGroup.ordering, InformationGroup.title)
    )
    form.information_group.choices = [(None, _("No group"))] + [(g.id, g.title) for g in groups]


def _load(form: InformationForm, info: Information) -> None:
    for name in ("title", "type", "ordering"):
        getattr(form, name).data = getattr(info, name)
    form.choices.data = "\n".join(info.choices or [])
    form.information_group.data = info.information_group_id


def _save(info: Information, form: InformationForm, v) -> None:
    if info.id is not None and info.type != form.type.data and _used(info.id):
        raise FormRefused({"type": _("The type cannot change: quick tests hold values of it.")})
    info.title = form.title.data.strip()
    info.type = form.type.data
    info.choices = lines(form.choices.data) if form.type.data == "select" else []
    info.information_group_id = form.information_group.data
    info.ordering = form.ordering.data


INFORMATION = Screen(
    path="general/information",
    noun=_l("information"),
    model=Information,
    form=InformationForm,
    columns=(
        Column(_l("Title"), "title"),
        Column(_l("Position"), "ordering", "num"),
        Column(_l("Type"), _type),
        Column(
            _l("Information group"),
            lambda i: i.information_group.title if i.information_group else _("No group"),
        ),
        Column(_l("Values"), lambda i, e: e.get(i.id, 0), "num", True),
    ),
    intro=_l(
        "Informations are the fields of a quick test: text, numbers, yes/no, choices, dates, links, mileage, amounts and images. An information that quick tests hold values of cannot be deleted."
    ),
    search=("title",),
    write=admin_or_division_admin,
    order_by=(Information.ordering, Information.title),
    label=lambda i: i.title,
    prepare=_prepare,
    load=_load,
    save=_save,
    list_extra=lambda rows, v: _counts(StorageContainerValue.information_id, rows),
    delete_blocked=lambda i: (
        _("Quick tests hold values of this information, so it cannot be deleted.")
        if _used(i.id)
        else None
    ),
    delete_consequences=lambda i: [_("It is taken out of the storage groups that ask for it.")],
    empty=_l("No informations yet."),
)

QUICKTEST_SCREENS = (INFORMATION_GROUPS, INFORMATION)
