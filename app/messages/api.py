"""GET system-messages/my-messages and the viewed record of "stop showing"."""

from datetime import datetime

from flask import abort, jsonify, request
from flask_babel import gettext as _

from app.auth.viewer import viewer
from app.core.api import ApiError, api_call
from app.extensions import db
from app.messages import api_bp
from app.messages import services as S
from app.messages.models import SystemMessage


def _reader() -> S.Reader:
    v = viewer()
    return S.Reader(v.user.id, v.instance.id if v.instance else None, v.roles)


@api_call(api_bp, "/system-messages/my-messages")
def my_messages():
    """The signed-in user's active system messages, sorted by modifiedAt. The optional
    last-fetched header (ISO time of the previous poll) is checked but does not narrow the
    answer: a message whose start time has passed since then must still arrive."""
    last = request.headers.get("last-fetched")
    if last:
        try:
            datetime.fromisoformat(last.replace("Z", "+00:00"))
        except ValueError:
            raise ApiError(
                422, _("The last-fetched header must be an ISO time."), retry=False
            ) from None
    return jsonify([S.to_api(m) for m in S.my_messages(_reader())])


@api_call(api_bp, "/system-messages/<int:message_id>/viewed", "POST")
def message_viewed(message_id: int):
    """Record "stop showing" for the current version of a message the user may read."""
    message = db.session.get(SystemMessage, message_id) if message_id < 2**31 else None
    if message is None or not S.reaches(message, _reader()):
        abort(404)
    view = S.record_viewed(viewer().user.id, message)
    db.session.commit()
    return jsonify(
        {
            "id": message.id,
            "createdAt": view.message_modified_at.isoformat(),
            "viewedAt": view.viewed_at.isoformat(),
        }
    )
