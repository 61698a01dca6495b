"""The public preview of a stored e-mail."""

from flask import abort, render_template
from markupsafe import Markup
from sqlalchemy import select

from app.core.pages import public_page
from app.extensions import db
from app.mail import bp
from app.mail.models import EmailMessage


@bp.get("/email-preview/<public_id>")
@public_page
def preview(public_id: str):
    """Show a stored mail; the id is a 128-bit random token only its recipient knows."""
    mail = db.session.scalars(
        select(EmailMessage).where(EmailMessage.public_id == public_id[:40])
    ).first()
    if mail is None:
        abort(404)
    # body_html is our own template's output, escaped when it was rendered.
    return render_template("mail/preview.html", mail=mail, body=Markup(mail.body_html))  # noqa: S704
