"""What an admin screen is: its model, columns, form, rules and hooks (see the package's doc)."""

from collections.abc import Callable
from dataclasses import dataclass

from flask import abort
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from sqlalchemy import String, func, inspect, or_, select

from app.auth.viewer import Viewer, viewer
from app.core import roles as R
from app.extensions import db
from app.shell.menu import ADMIN_MENU, Entry, can_administer


def admin_only(v: Viewer) -> bool:
    return v.has(R.ROLE_ADMIN)


def admin_or_division_admin(v: Viewer) -> bool:
    """The write rule of the settings a division administrator keeps for their divisions."""
    return v.has(R.ROLE_ADMIN) or v.is_division_admin


@dataclass(frozen=True)
class Column:
    label: object
    value: str | Callable  # an attribute name, or a function of the row
    css: str = ""
    # The function takes (row, extra): what the screen's `list_extra` computed once for the
    # page (counts per row, names of the rows' neighbours).
    with_extra: bool = False

    def of(self, row, extra=None) -> object:
        if not callable(self.value):
            value = getattr(row, self.value)
        elif self.with_extra:
            value = self.value(row, extra or {})
        else:
            value = self.value(row)
        if isinstance(value, bool):
            return _("Yes") if value else _("No")
        if value is None:
            return "–"
        if isinstance(value, list | tuple | set):
            return ", ".join(str(v) for v in value)
        return value


# The name of a named row (app.core.localized.Named) as the reader reads it.
NAME = Column(_l("Name"), "shown_name")


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
    # A named row's name as the reader sees it (app.core.localized.Named), else as written.
    label: Callable = lambda row: (  # noqa: E731
        getattr(row, "shown_name", None) or getattr(row, "name", None) or str(row.id)
    )
    # What one row is, in the page titles: "Add user", "Edit division Solna" (without it: "Add").
    noun: object = None
    # The module the screen belongs to (begcare, purchaseAnalysis): without it, 404.
    module: str | None = None
    new: Callable | None = None  # (viewer) -> a new row
    prepare: Callable | None = None  # (form, viewer, row or None): choices and defaults
    load: Callable | None = None  # (form, row): fill an edit form
    save: Callable | None = None  # (row, form, viewer): store the form; may raise FormRefused
    after_save: Callable | None = None  # (row, created, viewer): mails, flashes, recomputing
    delete: Callable | None = None  # (row, viewer): instead of deleting the row
    before_delete: Callable | None = None  # (row, viewer): what must go first (references)
    after_delete: Callable | None = None  # (row, viewer): once the row is deleted (recomputing)
    delete_blocked: Callable | None = None  # (row) -> a reason or None
    delete_consequences: Callable | None = None  # (row) -> sentences on what follows
    # (row, extra) -> a word shown in the list instead of the Delete link ("In use"), or None
    delete_note: Callable | None = None
    delete_label: object = _l("Delete")
    delete_question: object = _l("Do you want to delete this? It cannot be undone.")
    can_create: bool = True
    can_delete: bool = True
    snapshot: Callable | None = None  # (row) -> dict for the audit log
    extra_links: tuple = ()  # (label, url) shown above the list
    row_links: tuple = ()  # (label, (row) -> url or None): a link per row
    row_actions: tuple = ()  # (label, (row) -> url or None): a POST button per row
    list_actions: tuple = ()  # (label, url): a POST button above the list, for writers
    respond: Callable | None = None  # (row, created) -> a page to answer instead of the list
    preview: Callable | None = None  # (row) -> Markup: a preview page per row
    search_with: Callable | None = None  # (stmt, phrase) -> stmt, instead of `search` columns
    list_extra: Callable | None = None  # (rows, viewer) -> dict for the columns and template
    list_template: str = "admin/list.html"
    form_template: str = "admin/form.html"
    empty: object = None  # what an empty list says (default: "Nothing here yet.")
    history_link: bool = True
    read_only_note: bool = True
    # The division a row belongs to, for its audit entries (default: its `division_id`).
    division: Callable | None = None
    # Rows that belong to one row of another screen (a storage's groups): their list is that
    # row's page, /admin/{parent path}/{parent id}, and their pages are below it, at
    # .../{the last part of path}/…; `parent_key` is the column holding the parent's id.
    parent: "Screen | None" = None
    parent_key: str = ""
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

    def list_url(self, parent_id: int | None = None) -> str:
        return f"{self.parent.url}/{parent_id}" if self.parent else self.url

    def base_url(self, parent_id: int | None = None) -> str:
        """Where the rows' pages are: {base}/new, {base}/{id}/edit, …"""
        if self.parent is None:
            return self.url
        return f"{self.parent.url}/{parent_id}/{self.path.rsplit('/', 1)[-1]}"

    def entry_trail(self) -> list[Entry]:
        return _trail(ADMIN_MENU, (self.parent or self).url)

    def title(self) -> str:
        trail = self.entry_trail()
        return str(trail[-1].title) if trail else self.path

    def may_read(self, v: Viewer | None) -> bool:
        return _may_read(v, self.entry_trail())

    def may_write(self, v: Viewer) -> bool:
        return self.may_read(v) and self.write(v)

    def may_write_row(self, v: Viewer, row) -> bool:
        return self.write_row is None or self.write_row(v, row)

    def guard(self, write: bool = False) -> Viewer:
        """The viewer when they may read the screen (and with `write`, change it): 404 without
        the screen's module, 403 otherwise."""
        v = viewer()
        if self.module is not None and (v is None or self.module not in v.modules):
            abort(404)
        if not self.may_read(v) or (write and not self.write(v)):
            abort(403)
        return v

    # --- queries -------------------------------------------------------------------------

    def query(self, v: Viewer, phrase: str = "", parent_id: int | None = None):
        stmt = select(self.model).where(*self.where)
        if self.parent is not None:
            stmt = stmt.where(getattr(self.model, self.parent_key) == parent_id)
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

    def get(self, v: Viewer, row_id: int, parent_id: int | None = None):
        """The row when the viewer may reach it, else 404 (another instance, another scope,
        another parent)."""
        stmt = self.query(v, parent_id=parent_id).where(
            inspect(self.model).primary_key[0] == row_id
        )
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


def _may_read(v: Viewer | None, trail: list[Entry]) -> bool:
    """The one access rule of the admin area: the menu shows the viewer every entry down to
    the screen's."""
    return bool(v is not None and trail and can_administer(v) and all(e.rule(v) for e in trail))


class FormRefused(ValueError):
    """A save refused as a whole, or per field: {field name: message}."""

    def __init__(self, errors: dict[str, str] | str) -> None:
        super().__init__(str(errors))
        self.errors = errors if isinstance(errors, dict) else {}
        self.message = errors if isinstance(errors, str) else None


def counts_by(column, rows, *where, all_instances: bool = False) -> dict[int, int]:
    """For a list's `list_extra`: how many rows refer to each listed row by `column` (a
    foreign key to it), in one grouped query; `where`: which rows count."""
    stmt = select(column, func.count()).where(column.in_([r.id for r in rows]), *where)
    if all_instances:
        stmt = stmt.execution_options(all_instances=True)
    return dict(db.session.execute(stmt.group_by(column)).all())


def kept_while_referred(column, message) -> Callable:
    """A `delete_blocked` rule: the row stays, saying `message`, while a row refers to it by
    `column` (a foreign key to it)."""

    def blocked(row) -> str | None:
        found = db.session.scalar(select(column).where(column == row.id).limit(1))
        return None if found is None else str(message)

    return blocked


def is_text(model, name: str) -> bool:
    return isinstance(inspect(model).columns[name].type, String)


def guard(
    path: str, write: Callable[[Viewer], bool] | None = None, module: str | None = None
) -> Viewer:
    """For the screens that are not lists (import, configuration): the admin menu entry's rule
    to read, and `write` (when given) to change; 403 otherwise (404 without `module`)."""
    v = viewer()
    if module is not None and (v is None or module not in v.modules):
        abort(404)
    if not _may_read(v, _trail(ADMIN_MENU, f"/admin/{path}")):
        abort(403)
    if write is not None and not write(v):
        abort(403)
    return v


def page_title(path: str) -> str:
    trail = _trail(ADMIN_MENU, f"/admin/{path}")
    return str(trail[-1].title) if trail else path
