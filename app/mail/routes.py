"""The public preview of a stored e-mail, and of the files sent with it."""

from flask import abort, make_response, render_template
from markupsafe import Markup
from sqlalchemy import select

from app.core.pages import public_page
from app.extensions import db
from app.mail import bp
from app.mail.models import EmailMessage
from app.mail.services import attachments_of


def _mail_or_404(public_id: str) -> EmailMessage:
    mail = db.session.scalars(
        select(EmailMessage).where(EmailMessage.public_id == public_id[:40])
    ).first()
    if mail is None:
        abort(404)
    return mail


@bp.get("/email-preview/<public_id>")
@public_page
def preview(public_id: str):
    """Show a stored mail; the id is a 128-bit random token only its recipient knows."""
    mail = _mail_or_404(public_id)
    # body_html is our own template's output, escaped when it was rendered.
    return render_template(
        "mail/preview.html",
        mail=mail,
        body=Markup(mail.body_html),  # noqa: S704
        attachments=attachments_of(mail.id),
    )


@bp.get("/email-preview/<public_id>/files/<int:number>/<filename>")
@public_page
def preview_attachment(public_id: str, number: int, filename: str):
    """A file sent with a stored mail (its number from 1, as the preview lists them)."""
    files = attachments_of(_mail_or_404(public_id).id)
    if not 1 <= number <= len(files) or files[number - 1].filename != filename:
        abort(404)
    attachment = files[number - 1]
    response = make_response(attachment.body)
    response.headers["Content-Type"] = attachment.content_type
    response.headers["Content-Disposition"] = f'attachment; filename="{attachment.filename}"'
    response.headers["Cache-Control"] = "private, no-store"
    return response
