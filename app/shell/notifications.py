"""The signed-in user's in-app notifications (app/core/notifications.py): the page that lists
them, newest first, with "Mark as read" per line and for all of them."""

from flask import abort, flash, redirect, render_template, url_for
from flask_babel import gettext as _
from flask_login import current_user
from flask_wtf import FlaskForm

from app.core.notifications import is_theirs, mark_read, of_user
from app.extensions import db
from app.shell import bp


class MarkForm(FlaskForm):
    """Only the CSRF token."""


@bp.get("/notifications")
def notifications():
    """The user's notifications in the active company."""
    rows = of_user(current_user.id)
    return render_template("shell/notifications.html", rows=rows, form=MarkForm())


@bp.post("/notifications/<int:notification_id>/read")
def notification_read(notification_id: int):
    """Mark one of one's own notifications read (another's id: 404)."""
    if not MarkForm().validate_on_submit():
        return redirect(url_for(".notifications"))
    if not is_theirs(current_user.id, notification_id):
        abort(404)
    mark_read(current_user.id, notification_id)
    db.session.commit()
    return redirect(url_for(".notifications"))


@bp.post("/notifications/read")
def notifications_read():
    """Mark all of one's notifications read."""
    if MarkForm().validate_on_submit():
        count = mark_read(current_user.id)
        db.session.commit()
        flash(_("%(num)s marked as read.", num=count), "success")
    return redirect(url_for(".notifications"))
