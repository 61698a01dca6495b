"""The routes every screen gets: list, new, edit, delete (confirmed), history, preview."""

from math import ceil

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_wtf import FlaskForm
from sqlalchemy import func, inspect, select

from app.admin.crud.audit import OPS, history, record_change, snapshot
from app.admin.crud.screen import FormRefused, Screen, page_title
from app.auth.models import User
from app.auth.viewer import Viewer
from app.extensions import db

PER_PAGE = 25


class ConfirmForm(FlaskForm):
    """The second step of a delete (and of a button above a list): only the CSRF token."""


# --- views ---------------------------------------------------------------------------------


def _viewer_for(screen: Screen, write: bool = False, parent_id: int | None = None) -> Viewer:
    v = screen.guard(write)
    if screen.parent is not None:
        screen.parent.get(v, parent_id)  # 404 for a parent beyond the viewer's reach
    return v


def _changeable(screen: Screen, v: Viewer, row_id: int, parent_id: int | None = None):
    """The row when the viewer may change it; 404 when they cannot reach it, 403 when they
    may only read it."""
    row = screen.get(v, row_id, parent_id)
    if not screen.may_write_row(v, row):
        abort(403)
    return row


def render_screen(screen: Screen, template: str, status: int = 200, parent_id=None, **ctx):
    """A page of the screen (`template`: below admin/ unless a path), with what every one has."""
    return (
        render_template(
            template if "/" in template else f"admin/{template}",
            screen=screen,
            screen_title=screen.title(),
            list_url=screen.list_url(parent_id),
            base_url=screen.base_url(parent_id),
            parent_id=parent_id,
            ops=OPS,
            **ctx,
        ),
        status,
    )


def list_view(screen: Screen, parent_id: int | None = None):
    v = _viewer_for(screen, parent_id=parent_id)
    phrase = (request.args.get("q") or "").strip()[:100]
    try:
        page = max(1, min(int(request.args.get("page", 1)), 100000))
    except ValueError:
        page = 1
    stmt = screen.query(v, phrase, parent_id)
    total = db.session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery()))
    order = screen.order_by or (inspect(screen.model).primary_key[0],)
    rows = list(
        db.session.scalars(stmt.order_by(*order).limit(PER_PAGE).offset((page - 1) * PER_PAGE))
    )
    pages = max(1, ceil(total / PER_PAGE))
    return render_screen(
        screen,
        screen.list_template,
        parent_id=parent_id,
        rows=rows,
        extra=screen.list_extra(rows, v) if screen.list_extra else {},
        confirm_form=ConfirmForm(),
        total=total,
        page=page,
        pages=pages,
        phrase=phrase,
        can_change=screen.write(v),
        can_change_row=lambda row: screen.may_write_row(v, row),
        add_label=_subpage(screen, None),
    )


def render_page(path: str, template: str, status: int = 200, **ctx):
    """A page of the admin area that is not a screen's (the import, the reports, the
    configuration), titled by its menu entry (`template`: below admin/ unless a path)."""
    return (
        render_template(
            template if "/" in template else f"admin/{template}",
            screen_title=page_title(path),
            list_url=f"/admin/{path}",
            **ctx,
        ),
        status,
    )


def fill_errors(form, refused: FormRefused) -> str | None:
    """Put a refusal's messages on their fields; the message for the whole form, or None."""
    for name, text in refused.errors.items():
        target = getattr(form, name, None)
        if target is not None:
            target.errors = [*target.errors, text] if isinstance(target.errors, list) else [text]
        else:
            refused.message = refused.message or text
    return refused.message


def form_view(screen: Screen, row_id: int | None = None, parent_id: int | None = None):
    v = _viewer_for(screen, write=True, parent_id=parent_id)
    row = _changeable(screen, v, row_id, parent_id) if row_id is not None else None
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
        return render_screen(
            screen, screen.form_template, parent_id=parent_id, form=form, row=row,
            subpage=_subpage(screen, row),
        )  # fmt: skip
    if request.method == "POST":
        if form.validate_on_submit():
            created = row is None
            before = None if created else snapshot(screen, row)
            target = row if row is not None else (screen.new(v) if screen.new else screen.model())
            if created and screen.parent is not None:
                setattr(target, screen.parent_key, parent_id)
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
                refusal = fill_errors(form, refused)
            else:
                db.session.commit()
                page = screen.respond(target, created) if screen.respond else None
                if page is not None:
                    return page
                flash(_("Saved."), "success")
                return redirect(screen.list_url(parent_id))
        return render_screen(
            screen,
            screen.form_template,
            422,
            parent_id=parent_id,
            form=form,
            row=row,
            refusal=refusal,
            subpage=_subpage(screen, row),
        )
    return render_screen(
        screen, screen.form_template, parent_id=parent_id, form=form, row=row,
        subpage=_subpage(screen, row),
    )  # fmt: skip


def _subpage(screen: Screen, row) -> str:
    if screen.noun is None:
        return _("Add") if row is None else _("Edit %(name)s", name=screen.label(row))
    if row is None:
        return _("Add %(thing)s", thing=screen.noun)
    return _("Edit %(thing)s %(name)s", thing=screen.noun, name=screen.label(row))


def delete_view(screen: Screen, row_id: int, parent_id: int | None = None):
    v = _viewer_for(screen, write=True, parent_id=parent_id)
    if not screen.can_delete:
        abort(404)
    row = _changeable(screen, v, row_id, parent_id)
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
            if screen.before_delete is not None:
                screen.before_delete(row, v)
            db.session.delete(row)
            if screen.after_delete is not None:
                db.session.flush()
                screen.after_delete(row, v)
        db.session.commit()
        flash(_("Done."), "success")
        return redirect(screen.list_url(parent_id))
    return render_screen(
        screen,
        "delete.html",
        409 if blocked and request.method == "POST" else 200,
        parent_id=parent_id,
        form=form,
        row=row,
        name=screen.label(row),
        blocked=blocked,
        consequences=screen.delete_consequences(row) if screen.delete_consequences else (),
        subpage=f"{screen.delete_label}: {screen.label(row)}",
    )


def history_view(screen: Screen, row_id: int, parent_id: int | None = None):
    v = _viewer_for(screen, parent_id=parent_id)
    row = screen.get(v, row_id, parent_id)
    entries = history(screen, row_id)
    return render_screen(
        screen,
        "history.html",
        parent_id=parent_id,
        row=row,
        entries=entries,
        users=_user_names(entries),
        subpage=_("History of %(name)s", name=screen.label(row)),
    )


def preview_view(screen: Screen, row_id: int):
    v = _viewer_for(screen)
    row = screen.get(v, row_id)
    return render_screen(
        screen,
        "preview.html",
        row=row,
        body=screen.preview(row),
        subpage=_("Preview of %(name)s", name=screen.label(row)),
    )


def _user_names(entries) -> dict[int, str]:
    ids = {e.user_id for e in entries} | {e.acting_user_id for e in entries}
    ids.discard(None)
    if not ids:
        return {}
    rows = db.session.execute(select(User.id, User.email).where(User.id.in_(ids)))
    return dict(rows.all())


SCREENS: dict[str, Screen] = {}


def register(bp: Blueprint, screen: Screen) -> Screen:
    """Add the screen's routes to the blueprint (literal paths, so they win over the
    planned catch-all of app/shell/planned.py). A screen with a parent has its list at the
    parent row's page and takes the parent's id first."""
    SCREENS[screen.path] = screen
    name, base = screen.endpoint, screen.base_url("<int:parent_id>")
    list_url = screen.list_url("<int:parent_id>")

    def route(url: str, op: str, view, methods=("GET",)) -> None:
        def endpoint(parent_id: int | None = None, **ids):
            return view(screen, **ids, **({"parent_id": parent_id} if screen.parent else {}))

        bp.add_url_rule(url, f"{name}_{op}", endpoint, methods=list(methods))

    both = ("GET", "POST")
    route(list_url, "list", list_view)
    route(f"{base}/new", "new", form_view, both)
    route(f"{base}/<int:row_id>/edit", "edit", form_view, both)
    route(f"{base}/<int:row_id>/delete", "delete", delete_view, both)
    route(f"{base}/<int:row_id>/history", "history", history_view)
    if screen.preview is not None:
        route(f"{base}/<int:row_id>/preview", "preview", preview_view)
    return screen


def screen_url(screen: Screen, op: str, row_id: int | None = None) -> str:
    if row_id is None:
        return url_for(f"admin.{screen.endpoint}_{op}")
    return url_for(f"admin.{screen.endpoint}_{op}", row_id=row_id)
