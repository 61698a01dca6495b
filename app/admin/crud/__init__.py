"""One declarative list/edit mechanism for every admin screen.

A `Screen` (screen.py) says what a screen shows and who may do what: its model, columns, search
fields, form, read rule (the admin menu entry's rule, looked up by path), write rule and scope.
`register` (views.py) turns each into the same routes under /admin/{path}: the list (search and
pages), new, edit, delete (a confirmation step first) and the record's history. Every change is
written to the audit log (audit.py) as `admin:{path}:{id}:{op}`, with who, when, what, and the
values before and after.
"""

from app.admin.crud.audit import history, plain, record_change, snapshot
from app.admin.crud.screen import (
    NAME,
    Column,
    FormRefused,
    Screen,
    admin_only,
    admin_or_division_admin,
    counts_by,
    guard,
    is_text,
    kept_while_referred,
    page_title,
)
from app.admin.crud.views import (
    SCREENS,
    ConfirmForm,
    fill_errors,
    register,
    render_page,
    render_screen,
    screen_url,
)

__all__ = [
    "NAME",
    "SCREENS",
    "Column",
    "ConfirmForm",
    "FormRefused",
    "Screen",
    "admin_only",
    "admin_or_division_admin",
    "counts_by",
    "fill_errors",
    "guard",
    "history",
    "is_text",
    "kept_while_referred",
    "page_title",
    "plain",
    "record_change",
    "register",
    "render_page",
    "render_screen",
    "screen_url",
    "snapshot",
]
