"""One declarative list/edit mechanism for every admin screen.

A `Screen` says what a screen shows and who may do what: its model, columns, search fields, form,
read rule (the admin menu entry's rule, looked up by path), write rule and scope. `register`
turns each into the same five routes under /admin/{path}: the list (search and pages), new,
edit, delete (a confirmation step first) and the record's history. Every change is written to
the audit log (app/core/audit.py) with who, when, what, and the values before and after.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from math import ceil

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from sqlalchemy import String, func, inspect, or_, select

from app.auth.viewer import Viewer, viewer
from app.core import audit
from app.core import roles as R
from app.core.audit import AuditLog
from app.extensions import db
from app.shell.menu import ADMIN_MENU, Entry, can_administer

PER_PAGE = 25
OPS = {
    "create": _l("Created"),
    "update": _l("Changed"),
    "delete": _l("Deleted or deactivated"),
    "invite": _l("Invitation sent"),
}
SECRET_COLUMNS = {"password_hash", "token_hash", "content", "session_nonce"}


def admin_only(v: Viewer) -> bool:
    return v.has(R.ROLE_ADMIN)


@dataclass(frozen=True)
class Column:
    label: object
    value: str | Callable  # an attribute name, or a function of the row
    css: str = ""

    def of(self, row) -> object:
        value = self.value(row) if callable(self.value) else getattr(row, self.value)
        if isinstance(value, bool):
            return _("Yes") if value else _("No")
        if value is None:
            return "–"
        if isinstance(value, list | tuple | set):
            return ", ".join(str(v) for v in value)
        return value


class ConfirmForm(FlaskForm):
    """The second step of a delete: only the CSRF token."""


@dataclass
class Screen:
    path: str  # below /admin/, e.g. "general/countries"
    model: type
    form: type[FlaskForm]
    columns: tuple[Column, ...]
    intro: object = ""
    search: tuple[str, ...] = ()
    write: Callable[[Viewer], bool] = admin_only
    # Narrows the rows a viewer may reach (beyond the instance filter of app.core.tenancy).
    scope: Callable | None = None
    where: tuple = ()  # fixed filters, e.g. SettingRow.kind == "tags"
    order_by: tuple = ()
    all_instances: bool = False  # rows of every instance (global screens)
    label: Callable = lambda row: getattr(row, "name", None) or str(row.id)  # noqa: E731
    # What one row is, in the page titles: "Add user", "Edit division Solna" (without it: "Add").
    noun: object = None
    new: Callable | None = None  # (viewer) -> a new row
    prepare: Callable | None = None  # (form, viewer, row or None): choices and defaults
    load: Callable | None = None  # (form, row): fill an edit form
    save: Callable | None = None  # (row, form, viewer): store the form; may raise FormRefused
    after_save: Callable | None = None  # (row, created, viewer): mails, flashes
    delete: Callable | None = None  # (row, viewer): instead of deleting the row
    delete_blocked: Callable | None = None  # (row) -> a reason or None
    delete_label: object = _l("Delete")
    delete_question: object = _l("Do you want to delete this? It cannot be undone.")
    can_create: bool = True
    can_delete: bool = True
    snapshot: Callable | None = None  # (row) -> dict for the audit log
    extra_links: tuple = ()  # (label, url) shown above the list
    row_actions: tuple = ()  # (label, (row) -> url or None): a POST button per row
    respond: Callable | None = None  # (row, created) -> a page to answer instead of the list
    preview: Callable | None = None  # (row) -> Markup: a preview page per row
    search_with: Callable | None = None  # (stmt, phrase) -> stmt, instead of `search` columns
    history_link: bool = True
    read_only_note: bool = True
    # The division a row belongs to, for its audit entries (default: its `division_id`).
    division: Callable | None = None
    # (viewer, row) -> whether the viewer may change this row, beyond `write` (e.g. a
    # division administrator only their divisions' rows): read-only in the list, 403 otherwise.
    write_row: Callable | None = None

    def division_of(self, row) -> int | None:
        return self.division(row) if self.division else getattr(row, "division_id", None)

    @property
    def url(self) -> str:
        return f"/admin/{self.path}"

    @property
    def endpoint(self) -> str:
        return self.path.replace("/", "_").replace("-", "_")

    def entry_trail(self) -> list[Entry]:
        return _trail(ADMIN_MENU, self.url)

    def title(self) -> str:
        trail = self.entry_trail()
        return str(trail[-1].title) if trail else self.path

    def may_read(self, v: Viewer | None) -> bool:
        trail = self.entry_trail()
        return bool(v is not None and trail and can_administer(v) and all(e.rule(v) for e in trail))

    def may_write(self, v: Viewer) -> bool:
        return self.may_read(v) and self.write(v)

    def may_write_row(self, v: Viewer, row) -> bool:
        return self.write_row is None or self.write_row(v, row)

    # --- queries -------------------------------------------------------------------------

    def query(self, v: Viewer, phrase: str = ""):
        stmt = select(self.model).where(*self.where)
        if self.scope is not None:
            stmt = self.scope(stmt, v)
        if phrase and self.search_with is not None:
            stmt = self.search_with(stmt, phrase)
        elif phrase and self.search:
            like = f"%{phrase.lower()}%"
            stmt = stmt.where(
                or_(*(func.lower(getattr(self.model, name)).like(like) for name in self.search))
            )
        if self.all_instances:
            stmt = stmt.execution_options(all_instances=True)
        return stmt

    def get(self, v: Viewer, row_id: int):
        """The row when the viewer may reach it, else 404 (another instance, another scope)."""
        stmt = self.query(v).where(inspect(self.model).primary_key[0] == row_id)
        row = db.session.scalars(stmt).first()
        if row is None:
            abort(404)
        return row


def _trail(entries, path: str) -> list[Entry]:
    for entry in entries:
        if entry.path == path:
            return [entry]
        if deeper := _trail(entry.children, path):
            return [entry, *deeper]
    return []


class FormRefused(ValueError):
    """A save refused as a whole, or per field: {field name: message}."""

    def __init__(self, errors: dict[str, str] | str) -> None:
        super().__init__(str(errors))
        self.errors = errors if isinstance(errors, dict) else {}
        self.message = errors if isinstance(errors, str) else None


# --- audit ---------------------------------------------------------------------------------


def plain(value):
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes):
        return None
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def snapshot(screen: Screen, row) -> dict:
    if screen.snapshot is not None:
        return screen.snapshot(row)
    mapper = inspect(type(row))
    return {
        c.key: plain(getattr(row, c.key))
        for c in mapper.column_attrs
        if c.key not in SECRET_COLUMNS and c.key not in ("search_text",)
    }


def action_name(screen: Screen, row_id: int, op: str) -> str:
    return f"admin:{screen.path}:{row_id}:{op}"[:80]


def record_change(screen: Screen, row, op: str, before: dict | None, after: dict | None) -> None:
    """One audit row: who (and on whose behalf), when, what, the values before and after."""
    changed = None
    if before is not None and after is not None:
        changed = sorted(k for k in after if before.get(k) != after.get(k))
        before = {k: before.get(k) for k in changed}
        after = {k: after.get(k) for k in changed}
    audit.record(
        action_name(screen, row.id, op),
        division_id=screen.division_of(row),
        screen=screen.path,
        record_id=row.id,
        name=str(screen.label(row))[:200],
        before=before,
        after=after,
    )


def history(screen: Screen, row_id: int) -> list[AuditLog]:
    prefix = f"admin:{screen.path}:{row_id}:"
    stmt = (
        select(AuditLog)
        .where(AuditLog.action.like(prefix.replace("_", r"\_") + "%", escape="\\"))
        .order_by(AuditLog.created_at.desc(), AuditLog.id.desc())
        .limit(200)
    )
    return list(db.session.scalars(stmt))


# --- views ---------------------------------------------------------------------------------


def _viewer_for(screen: Screen, write: bool = False) -> Viewer:
    v = viewer()
    if not screen.may_read(v) or (write and not screen.write(v)):
        abort(403)
    return v


def _changeable(screen: Screen, v: Viewer, row_id: int):
    """The row when the viewer may change it; 404 when they cannot reach it, 403 when they
    may only read it."""
    row = screen.get(v, row_id)
    if not screen.may_write_row(v, row):
        abort(403)
    return row


def _render(screen: Screen, template: str, status: int = 200, **ctx):
    return (
        render_template(
            f"admin/{template}",
            screen=screen,
            screen_title=screen.title(),
            list_url=screen.url,
            ops=OPS,
            **ctx,
        ),
        status,
    )


def list_view(screen: Screen):
    v = _viewer_for(screen)
    phrase = (request.args.get("q") or "").strip()[:100]
    try:
        page = max(1, min(int(request.args.get("page", 1)), 100000))
    except ValueError:
        page = 1
    stmt = screen.query(v, phrase)
    total = db.session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery()))
    order = screen.order_by or (inspect(screen.model).primary_key[0],)
    rows = list(
        db.session.scalars(stmt.order_by(*order).limit(PER_PAGE).offset((page - 1) * PER_PAGE))
    )
    pages = max(1, ceil(total / PER_PAGE))
    return _render(
        screen,
        "list.html",
        rows=rows,
        total=total,
        page=page,
        pages=pages,
        phrase=phrase,
        can_change=screen.write(v),
        can_change_row=lambda row: screen.may_write_row(v, row),
        add_label=_subpage(screen, None),
    )


def _fill_errors(form, refused: FormRefused) -> str | None:
    for name, text in refused.errors.items():
        target = getattr(form, name, None)
        if target is not None:
            target.errors = [*target.errors, text] if isinstance(target.errors, list) else [text]
        else:
            refused.message = refused.message or text
    return refused.message


def form_view(screen: Screen, row_id: int | None = None):
    v = _viewer_for(screen, write=True)
    row = _changeable(screen, v, row_id) if row_id is not None else None
    if row is None and not screen.can_create:
        abort(404)
    form = (
        screen.form(obj=row) if request.method == "GET" and screen.load is None else screen.form()
    )
    if screen.prepare is not None:
        screen.prepare(form, v, row)
    if request.method == "GET" and row is not None and screen.load is not None:
        screen.load(form, row)
    refusal = None
    if request.method == "POST" and request.form.get("redraw"):
        # A button that only redraws the form as filled in (a preset applied, the codes shown),
        # so that it works without JavaScript: nothing is saved.
        return _render(screen, "form.html", form=form, row=row, subpage=_subpage(screen, row))
    if request.method == "POST":
        if form.validate_on_submit():
            created = row is None
            before = None if created else snapshot(screen, row)
            target = row if row is not None else (screen.new(v) if screen.new else screen.model())
            try:
                with db.session.begin_nested():
                    if screen.save is not None:
                        screen.save(target, form, v)
                    else:
                        form.populate_obj(target)
                    if created:
                        db.session.add(target)
                    db.session.flush()
                    record_change(
                        screen, target, "create" if created else "update", before,
                        snapshot(screen, target),
                    )  # fmt: skip
                    if screen.after_save is not None:
                        screen.after_save(target, created, v)
            except FormRefused as refused:
                refusal = _fill_errors(form, refused)
            else:
                db.session.commit()
                page = screen.respond(target, created) if screen.respond else None
                if page is not None:
                    return page
                flash(_("Saved."), "success")
                return redirect(screen.url)
        return _render(
            screen,
            "form.html",
            422,
            form=form,
            row=row,
            refusal=refusal,
            subpage=_subpage(screen, row),
        )
    return _render(screen, "form.html", form=form, row=row, subpage=_subpage(screen, row))


def _subpage(screen: Screen, row) -> str:
    if screen.noun is None:
        return _("Add") if row is None else _("Edit %(name)s", name=screen.label(row))
    if row is None:
        return _("Add %(thing)s", thing=screen.noun)
    return _("Edit %(thing)s %(name)s", thing=screen.noun, name=screen.label(row))


def delete_view(screen: Screen, row_id: int):
    v = _viewer_for(screen, write=True)
    if not screen.can_delete:
        abort(404)
    row = _changeable(screen, v, row_id)
    form = ConfirmForm()
    blocked = screen.delete_blocked(row) if screen.delete_blocked else None
    if request.method == "POST" and not blocked and form.validate_on_submit():
        before = snapshot(screen, row)
        if screen.delete is not None:
            screen.delete(row, v)
            db.session.flush()
            record_change(screen, row, "delete", before, snapshot(screen, row))
        else:
            record_change(screen, row, "delete", before, None)
            db.session.delete(row)
        db.session.commit()
        flash(_("Done."), "success")
        return redirect(screen.url)
    return _render(
        screen,
        "delete.html",
        form=form,
        row=row,
        name=screen.label(row),
        blocked=blocked,
        subpage=f"{screen.delete_label}: {screen.label(row)}",
    )


def history_view(screen: Screen, row_id: int):
    v = _viewer_for(screen)
    row = screen.get(v, row_id)
    entries = history(screen, row_id)
    return _render(
        screen,
        "history.html",
        row=row,
        entries=entries,
        users=_user_names(entries),
        subpage=_("History of %(name)s", name=screen.label(row)),
    )


def preview_view(screen: Screen, row_id: int):
    v = _viewer_for(screen)
    row = screen.get(v, row_id)
    return _render(
        screen,
        "preview.html",
        row=row,
        body=screen.preview(row),
        subpage=_("Preview of %(name)s", name=screen.label(row)),
    )


def _user_names(entries) -> dict[int, str]:
    from app.auth.models import User

    ids = {e.user_id for e in entries} | {e.acting_user_id for e in entries}
    ids.discard(None)
    if not ids:
        return {}
    rows = db.session.execute(select(User.id, User.email).where(User.id.in_(ids)))
    return dict(rows.all())


SCREENS: dict[str, Screen] = {}


def register(bp: Blueprint, screen: Screen) -> Screen:
    """Add the screen's routes to the blueprint (literal paths, so they win over the
    planned catch-all of app/shell/planned.py)."""
    SCREENS[screen.path] = screen
    name, url = screen.endpoint, screen.url
    bp.add_url_rule(url, f"{name}_list", lambda: list_view(screen))
    bp.add_url_rule(f"{url}/new", f"{name}_new", lambda: form_view(screen), methods=["GET", "POST"])
    bp.add_url_rule(
        f"{url}/<int:row_id>/edit",
        f"{name}_edit",
        lambda row_id: form_view(screen, row_id),
        methods=["GET", "POST"],
    )
    bp.add_url_rule(
        f"{url}/<int:row_id>/delete",
        f"{name}_delete",
        lambda row_id: delete_view(screen, row_id),
        methods=["GET", "POST"],
    )
    bp.add_url_rule(
        f"{url}/<int:row_id>/history",
        f"{name}_history",
        lambda row_id: history_view(screen, row_id),
    )
    if screen.preview is not None:
        bp.add_url_rule(
            f"{url}/<int:row_id>/preview",
            f"{name}_preview",
            lambda row_id: preview_view(screen, row_id),
        )
    return screen


def screen_url(screen: Screen, op: str, row_id: int | None = None) -> str:
    if row_id is None:
        return url_for(f"admin.{screen.endpoint}_{op}")
    return url_for(f"admin.{screen.endpoint}_{op}", row_id=row_id)


def is_text(model, name: str) -> bool:
    return isinstance(inspect(model).columns[name].type, String)


def guard(path: str, write: Callable[[Viewer], bool] | None = None) -> Viewer:
    """For the screens that are not lists (import, configuration): the admin menu entry's rule
    to read, and `write` (when given) to change; 403 otherwise."""
    v = viewer()
    trail = _trail(ADMIN_MENU, f"/admin/{path}")
    if v is None or not trail or not can_administer(v) or not all(e.rule(v) for e in trail):
        abort(403)
    if write is not None and not write(v):
        abort(403)
    return v


def page_title(path: str) -> str:
    trail = _trail(ADMIN_MENU, f"/admin/{path}")
    return str(trail[-1].title) if trail else path
