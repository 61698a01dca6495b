"""The quick tests' templates: storages with their tree of groups (/admin/general/storages, a
storage's groups on its page), information groups and informations (/admin/general/
information-groups, /admin/general/information). Read: the menu's rule (ROLE_ADMIN or
ROLE_TENANT_STORAGE_READ / ROLE_TENANT_INFORMATION_READ); change: ROLE_ADMIN or division
admin. A storage that quick tests were made with keeps its groups."""

from flask import flash, redirect, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup
from sqlalchemy import func, select

from app.admin.crud import Column, FormRefused, Screen, admin_or_division_admin, counts_by
from app.admin.fields import FIELD_TYPE_LABELS as TYPE_LABELS
from app.admin.quicktest_forms import (
    GroupForm,
    InformationForm,
    InformationGroupForm,
    StorageForm,
    lines,
)
from app.extensions import db
from app.quicktest import services
from app.quicktest.models import (
    Information,
    InformationGroup,
    Storage,
    StorageContainer,
    StorageContainerValue,
    StorageGroup,
    StorageGroupInformation,
)

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
    list_extra=lambda rows, v: counts_by(Information.information_group_id, rows),
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
    for name in ("title", "title_texts", "type", "ordering", "choices_texts"):
        getattr(form, name).data = getattr(info, name)
    form.choices.data = "\n".join(info.choices or [])
    form.information_group.data = info.information_group_id


def _save(info: Information, form: InformationForm, v) -> None:
    if info.id is not None and info.type != form.type.data and _used(info.id):
        raise FormRefused({"type": _("The type cannot change: quick tests hold values of it.")})
    info.title, info.title_texts = form.title.data.strip(), form.title_texts.data or {}
    info.type = form.type.data
    info.choices = lines(form.choices.data) if form.type.data == "select" else []
    info.choices_texts = (form.choices_texts.data or {}) if info.choices else {}
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
    list_extra=lambda rows, v: counts_by(StorageContainerValue.information_id, rows),
    delete_blocked=lambda i: (
        _("Quick tests hold values of this information, so it cannot be deleted.")
        if _used(i.id)
        else None
    ),
    delete_consequences=lambda i: [_("It is taken out of the storage groups that ask for it.")],
    delete_note=lambda i, e: _("In use") if e.get(i.id) else None,
    empty=_l("No informations yet."),
)


# --- storages and their groups -----------------------------------------------------------------


def _tests_of(storage_id: int) -> int:
    return db.session.scalar(select(func.count()).where(StorageContainer.storage_id == storage_id))


def _storage_extra(rows, v) -> dict:
    return {
        "groups": counts_by(StorageGroup.storage_id, rows),
        "tests": counts_by(StorageContainer.storage_id, rows),
    }


def _to_tree(storage: Storage, created: bool):
    flash(_("Saved."), "success")
    return redirect(f"{STORAGES.url}/{storage.id}")


STORAGES = Screen(
    path="general/storages",
    noun=_l("storage"),
    model=Storage,
    form=StorageForm,
    columns=(
        Column(_l("Title"), "title"),
        Column(_l("Kind of test"), "group"),
        Column(_l("Groups"), lambda s, e: e["groups"].get(s.id, 0), "num", True),
        Column(_l("Quick tests"), lambda s, e: e["tests"].get(s.id, 0), "num", True),
    ),
    intro=_l(
        "A storage is a quick-test template: groups, nested and in order, holding the informations to fill in. A storage that quick tests were made with cannot be deleted."
    ),
    search=("title", "group"),
    write=admin_or_division_admin,
    order_by=(Storage.title, Storage.id),
    label=lambda s: s.title,
    save=lambda s, form, v: _set(
        s,
        title=form.title.data.strip(),
        group=(form.group.data or "").strip() or None,
        title_texts=form.title_texts.data or {},
        group_texts=form.group_texts.data or {},
    ),  # fmt: skip
    respond=_to_tree,
    list_extra=_storage_extra,
    row_links=((_l("Groups"), lambda s: f"/admin/general/storages/{s.id}"),),
    delete_blocked=lambda s: (
        _("Quick tests were made with this storage, so it cannot be deleted.")
        if _tests_of(s.id)
        else None
    ),
    delete_consequences=lambda s: [_("Its groups go with it.")],
    delete_note=lambda s, e: _("In use") if e["tests"].get(s.id) else None,
    empty=_l("No storages yet."),
)


def _set(row, **values) -> None:
    for name, value in values.items():
        setattr(row, name, value)


def _parent_choices(storage_id: int, group: StorageGroup | None):
    """Groups a group may sit inside: none, or any group of the storage not under itself."""
    excluded = set()
    if group is not None:
        for root in services.group_tree(storage_id):
            for node in root.walk():
                if node.group.id == group.id:
                    excluded = {n.group.id for n in node.walk()}
    choices = [(None, _("None (a top-level group)"))]
    for node in services.flat_groups(storage_id):
        if node.group.id not in excluded:
            choices.append((node.group.id, "— " * node.level + node.group.title))
    return choices


def _prepare_group(form: GroupForm, v, group) -> None:
    storage_id = request.view_args["parent_id"]
    form.parent.choices = _parent_choices(storage_id, group)
    infos = db.session.scalars(
        select(Information).order_by(Information.ordering, Information.title)
    )
    form.informations.choices = [(i.id, f"{i.title} ({TYPE_LABELS[i.type]})") for i in infos]
    if group is None and request.method == "GET" and request.args.get("parent", "").isdigit():
        form.parent.data = int(request.args["parent"])


def _load_group(form: GroupForm, group: StorageGroup) -> None:
    for name in ("title", "title_texts", "ordering", "show_title", "image_support"):
        getattr(form, name).data = getattr(group, name)
    form.parent.data = group.parent_id
    form.informations.data = [link.information_id for link in group.links]


def _save_group(group: StorageGroup, form: GroupForm, v) -> None:
    _set(
        group, title=form.title.data.strip(), title_texts=form.title_texts.data or {},
        parent_id=form.parent.data,
        ordering=form.ordering.data, show_title=bool(form.show_title.data),
        image_support=bool(form.image_support.data),
    )  # fmt: skip
    wanted = list(dict.fromkeys(form.informations.data or []))
    have = {link.information_id: link for link in group.links}
    for info_id, link in have.items():
        if info_id not in wanted:
            group.links.remove(link)
    for info_id in wanted:
        if info_id not in have:
            group.links.append(StorageGroupInformation(information_id=info_id))


def _group_snapshot(group: StorageGroup) -> dict:
    values = {
        k: getattr(group, k)
        for k in ("title", "title_texts", "parent_id", "ordering", "show_title", "image_support")
    }
    return {**values, "informations": sorted(link.information_id for link in group.links)}


def _tree(rows, v) -> dict:
    storage = db.session.get(Storage, request.view_args["parent_id"])
    return {"storage": storage, "nodes": services.flat_groups(storage.id), "labels": TYPE_LABELS}


STORAGE_GROUPS = Screen(
    path="general/storages/groups",
    parent=STORAGES,
    parent_key="storage_id",
    noun=_l("group"),
    model=StorageGroup,
    form=GroupForm,
    columns=(Column(_l("Group"), "title"),),
    write=admin_or_division_admin,
    label=lambda g: g.title,
    prepare=_prepare_group,
    load=_load_group,
    save=_save_group,
    snapshot=_group_snapshot,
    list_extra=_tree,
    list_template="admin/storage_tree.html",
    delete_blocked=lambda g: (
        _("Quick tests were made with this storage, so its groups cannot be deleted.")
        if _tests_of(g.storage_id)
        else None
    ),
    delete_consequences=lambda g: [_("The groups inside it go with it.")],
)

QUICKTEST_SCREENS = (STORAGES, STORAGE_GROUPS, INFORMATION_GROUPS, INFORMATION)
