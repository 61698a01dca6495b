"""Admin screens of the quick-test templates: storages (with their tree of groups) under
/admin/general/, and the forms of the information groups and informations (whose screens are
app/admin/quicktest.py).

Seeing a screen follows its admin menu entry (ROLE_ADMIN or the ROLE_TENANT_STORAGE_READ /
ROLE_TENANT_INFORMATION_READ role); changing needs ROLE_ADMIN or division admin, as on the
preparation admin screens (docs/decisions.md). Every change is audited."""

from flask import abort, flash, redirect, render_template, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from sqlalchemy import func, select
from wtforms import (
    BooleanField,
    IntegerField,
    SelectChoice,
    SelectField,
    SelectMultipleField,
    StringField,
    TextAreaField,
    ValidationError,
    widgets,
)
from wtforms.validators import InputRequired, Length, NumberRange, Optional

from app.auth.viewer import Viewer, viewer
from app.core import audit
from app.core import roles as R
from app.core.messages import KEYS
from app.extensions import db
from app.preparation.admin_forms import ConfirmDeleteForm
from app.quicktest import bp, services
from app.quicktest.models import (
    TYPES,
    Information,
    Storage,
    StorageContainer,
    StorageGroup,
    StorageGroupInformation,
)
from app.shell.menu import ADMIN_MENU

TITLE_MAX = 100
TYPE_LABELS = {
    "text": _l("Text"),
    "textarea": _l("Long text"),
    "date": _l("Date"),
    "select": _l("Choice"),
    "link": _l("Link"),
    "number": _l("Number"),
    "mileage": _l("Mileage"),
    "currency": _l("Amount"),
    "checkbox": _l("Yes/no"),
    "image": _l("Image"),
}


def _title(label):
    return StringField(
        label,
        validators=[
            InputRequired(KEYS["FIELD_REQUIRED"]),
            Length(max=TITLE_MAX, message=KEYS["FIELD_TOO_LONG"]),
        ],
        render_kw={"maxlength": TITLE_MAX, "autocomplete": "off"},
    )


def _ordering():
    return IntegerField(
        _l("Position"),
        default=0,
        validators=[
            InputRequired(KEYS["FIELD_REQUIRED"]),
            NumberRange(0, 9999, _l("Enter a whole number from %(min)s to %(max)s.")),
        ],
        render_kw={"min": 0, "max": 9999, "inputmode": "numeric"},
        description=_l("Shown in this order, lowest first."),
    )


def _optional_id(value):
    return int(value) if value not in (None, "", "None") else None


class StorageForm(FlaskForm):
    title = _title(_l("Title"))
    group = StringField(
        _l("Kind of test"),
        validators=[Optional(), Length(max=TITLE_MAX, message=KEYS["FIELD_TOO_LONG"])],
        render_kw={"maxlength": TITLE_MAX},
        description=_l("Shown with the title, e.g. trade-in or delivery check."),
    )


class GroupForm(FlaskForm):
    title = _title(_l("Title"))
    parent = SelectField(_l("Inside group"), coerce=_optional_id)
    ordering = _ordering()
    show_title = BooleanField(_l("Show the title"), default=True)
    image_support = BooleanField(_l("Takes photos"))
    informations = SelectMultipleField(
        _l("Informations"),
        coerce=int,
        widget=widgets.ListWidget(prefix_label=False),
        option_widget=widgets.CheckboxInput(),
    )


class InformationGroupForm(FlaskForm):
    title = _title(_l("Title"))
    ordering = _ordering()


class InformationForm(FlaskForm):
    title = _title(_l("Title"))
    type = SelectField(_l("Type"), choices=[SelectChoice(t, TYPE_LABELS[t]) for t in TYPES])
    choices = TextAreaField(
        _l("Options"),
        validators=[Length(max=5000, message=KEYS["FIELD_TOO_LONG"])],
        description=_l("For a choice: one option per line."),
        render_kw={"rows": 4},
    )
    information_group = SelectField(_l("Information group"), coerce=_optional_id)
    ordering = _ordering()

    def validate_choices(self, field) -> None:
        if self.type.data == "select" and not lines(field.data):
            raise ValidationError(_("A choice needs at least one option."))


def lines(text: str | None) -> list[str]:
    seen = []
    for line in (text or "").splitlines():
        line = line.strip()[:TITLE_MAX]
        if line and line not in seen:
            seen.append(line)
    return seen


# --- access ----------------------------------------------------------------------------------


def _entry(slug: str):
    group = next(g for g in ADMIN_MENU if g.path == "/admin/general")
    return group, next(e for e in group.children if e.path == f"/admin/general/{slug}")


def can_change(v: Viewer) -> bool:
    return v.has(R.ROLE_ADMIN) or v.is_division_admin


def _access(slug: str, write: bool = False) -> Viewer:
    v = viewer()
    group, entry = _entry(slug)
    if not (group.rule(v) and entry.rule(v)):
        abort(403)
    if (write or request.method == "POST") and not can_change(v):
        abort(403)
    return v


def _found(obj):
    if obj is None:
        abort(404)
    return obj


def _page(template: str, slug: str, v: Viewer, **context):
    _group, entry = _entry(slug)
    context.setdefault("list_url", f"/admin/general/{slug}")
    return render_template(
        template,
        module_name=_("General"),
        screen_title=entry.title,
        can_change=can_change(v),
        **context,
    )


def _done(url: str, text: str):
    db.session.commit()
    flash(text, "success")
    return redirect(url)


def _form_page(slug, v, form, heading, *, list_url=None, refusal=None, template=None):
    context = {"form": form, "subpage": heading, "refusal": refusal}
    if list_url:
        context["list_url"] = list_url
    html = _page(template or "quicktest/admin/form.html", slug, v, **context)
    return html, 422 if request.method == "POST" else 200


def _delete_page(slug, v, name, heading, *, consequences=(), blocked=None, list_url=None):
    context = {
        "form": ConfirmDeleteForm(),
        "subpage": heading,
        "name": name,
        "consequences": consequences,
        "blocked": blocked,
    }
    if list_url:
        context["list_url"] = list_url
    html = _page("preparation/admin/delete.html", slug, v, **context)
    return html, 200 if request.method == "GET" else 409


def _changes(obj, values: dict) -> dict:
    changed = {}
    for name, new in values.items():
        old = getattr(obj, name)
        if old != new:
            changed[name] = [old, new]
            setattr(obj, name, new)
    return changed


# --- storages and their groups -----------------------------------------------------------------

ST = "storages"


def _tests_of(storage_id: int) -> int:
    return db.session.scalar(select(func.count()).where(StorageContainer.storage_id == storage_id))


@bp.get("/admin/general/storages")
def storages():
    v = _access(ST)
    rows = services.storages()
    tests = dict(
        db.session.execute(
            select(StorageContainer.storage_id, func.count()).group_by(StorageContainer.storage_id)
        ).all()
    )
    groups = dict(
        db.session.execute(
            select(StorageGroup.storage_id, func.count()).group_by(StorageGroup.storage_id)
        ).all()
    )
    return _page("quicktest/admin/storages.html", ST, v, rows=rows, tests=tests, groups=groups)


@bp.route("/admin/general/storages/new", methods=["GET", "POST"])
@bp.route("/admin/general/storages/<int:row_id>/edit", methods=["GET", "POST"])
def storage_form(row_id: int | None = None):
    v = _access(ST, write=True)
    row = _found(db.session.get(Storage, row_id)) if row_id else None
    form = StorageForm(obj=row)
    if form.validate_on_submit():
        values = {
            "title": form.title.data.strip(),
            "group": (form.group.data or "").strip() or None,
        }
        if row is None:
            row = Storage(**values)
            db.session.add(row)
            db.session.flush()
            audit.record("quicktest.admin.storage.create", id=row.id, **values)
        elif changes := _changes(row, values):
            audit.record("quicktest.admin.storage.update", id=row.id, changes=changes)
        return _done(f"/admin/general/storages/{row.id}", _("The storage is saved."))
    return _form_page(ST, v, form, _("Edit storage") if row else _("New storage"))


@bp.route("/admin/general/storages/<int:row_id>/delete", methods=["GET", "POST"])
def storage_delete(row_id: int):
    v = _access(ST, write=True)
    row = _found(db.session.get(Storage, row_id))
    blocked = (
        _("Quick tests were made with this storage, so it cannot be deleted.")
        if _tests_of(row.id)
        else None
    )
    if not blocked and request.method == "POST" and ConfirmDeleteForm().validate_on_submit():
        audit.record("quicktest.admin.storage.delete", id=row.id, title=row.title)
        db.session.delete(row)
        return _done("/admin/general/storages", _("The storage is deleted."))
    return _delete_page(
        ST, v, row.title, _("Delete storage"),
        consequences=[_("Its groups go with it.")], blocked=blocked,
    )  # fmt: skip


@bp.get("/admin/general/storages/<int:row_id>")
def storage_tree(row_id: int):
    v = _access(ST)
    row = _found(db.session.get(Storage, row_id))
    return _page(
        "quicktest/admin/storage_tree.html", ST, v, storage=row,
        nodes=services.flat_groups(row.id), subpage=row.title, labels=TYPE_LABELS,
    )  # fmt: skip


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


@bp.route("/admin/general/storages/<int:row_id>/groups/new", methods=["GET", "POST"])
@bp.route(
    "/admin/general/storages/<int:row_id>/groups/<int:group_id>/edit", methods=["GET", "POST"]
)
def group_form(row_id: int, group_id: int | None = None):
    v = _access(ST, write=True)
    storage = _found(db.session.get(Storage, row_id))
    group = _found(db.session.get(StorageGroup, group_id)) if group_id else None
    if group is not None and group.storage_id != storage.id:
        abort(404)
    form = GroupForm(obj=group)
    form.parent.choices = _parent_choices(storage.id, group)
    infos = db.session.scalars(
        select(Information).order_by(Information.ordering, Information.title)
    ).all()
    form.informations.choices = [(i.id, f"{i.title} ({TYPE_LABELS[i.type]})") for i in infos]
    if request.method == "GET":
        if group is not None:
            form.parent.data = group.parent_id
            form.informations.data = [li.information_id for li in group.links]
        elif request.args.get("parent", "").isdigit():
            form.parent.data = int(request.args["parent"])
    tree_url = f"/admin/general/storages/{storage.id}"
    if form.validate_on_submit():
        if form.parent.data not in {c for c, _label in form.parent.choices}:
            form.parent.errors = [_("Choose one of the options.")]
        elif not set(form.informations.data or []) <= {i.id for i in infos}:
            form.informations.errors = [_("Choose one of the options.")]
        else:
            values = {
                "title": form.title.data.strip(),
                "parent_id": form.parent.data,
                "ordering": form.ordering.data,
                "show_title": bool(form.show_title.data),
                "image_support": bool(form.image_support.data),
            }
            if group is None:
                group = StorageGroup(storage_id=storage.id, **values)
                db.session.add(group)
                db.session.flush()
                changes = values
            else:
                changes = _changes(group, values)
            wanted = list(dict.fromkeys(form.informations.data or []))
            have = {li.information_id: li for li in group.links}
            for info_id, link in have.items():
                if info_id not in wanted:
                    group.links.remove(link)
            for info_id in wanted:
                if info_id not in have:
                    group.links.append(StorageGroupInformation(information_id=info_id))
            if set(wanted) != set(have):
                changes["informations"] = [sorted(have), sorted(wanted)]
            audit.record(
                "quicktest.admin.storage_group." + ("update" if group_id else "create"),
                id=group.id, storage_id=storage.id, changes=changes,
            )  # fmt: skip
            return _done(tree_url, _("The group is saved."))
    heading = _("Edit group") if group else _("New group")
    return _form_page(ST, v, form, heading, list_url=tree_url)


@bp.route(
    "/admin/general/storages/<int:row_id>/groups/<int:group_id>/delete", methods=["GET", "POST"]
)
def group_delete(row_id: int, group_id: int):
    v = _access(ST, write=True)
    group = _found(db.session.get(StorageGroup, group_id))
    if group.storage_id != row_id:
        abort(404)
    tree_url = f"/admin/general/storages/{row_id}"
    blocked = (
        _("Quick tests were made with this storage, so its groups cannot be deleted.")
        if _tests_of(row_id)
        else None
    )
    if not blocked and request.method == "POST" and ConfirmDeleteForm().validate_on_submit():
        audit.record("quicktest.admin.storage_group.delete", id=group.id, title=group.title)
        db.session.delete(group)
        return _done(tree_url, _("The group is deleted."))
    return _delete_page(
        ST, v, group.title, _("Delete group"),
        consequences=[_("The groups inside it go with it.")], blocked=blocked, list_url=tree_url,
    )  # fmt: skip
