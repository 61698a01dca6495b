"""The public view of a quick test (spec 02: quick-test/view/{uuid}) and its images, under the
test's own 128-bit random uuid. Only finished tests are shared; anything else is INVALID_URL."""

import re

from flask import abort, jsonify, render_template, request
from sqlalchemy import select

from app.core.api import ApiError, api_call
from app.core.messages import message
from app.core.pages import public_page
from app.core.ratelimit import check_public_rate
from app.core.tenancy import activate
from app.extensions import db
from app.quicktest import api_bp, bp, display, services
from app.quicktest.models import StorageContainer
from app.quicktest.routes import image_url, render_test, stream_image

UUID = re.compile(r"^[0-9a-f]{32}$")


def _shared(uuid: str | None, count: bool = True) -> StorageContainer | None:
    """The finished test with this uuid, read in its own instance; None when there is none.
    A public request counts against the client's address (429 over the limit)."""
    if count:
        check_public_rate()
    if not uuid or not UUID.match(uuid):
        return None
    test = db.session.scalars(
        select(StorageContainer)
        .where(StorageContainer.uuid == uuid, StorageContainer.reported_at.is_not(None))
        .execution_options(all_instances=True)
    ).first()
    if test is not None:
        activate(test.instance_id)  # everything the view reads next is of the test's instance
    return test


@bp.get("/quick-test/view/")
@bp.get("/quick-test/view/<uuid>")
@public_page
def public_view(uuid: str | None = None):
    test = _shared(uuid)
    if test is None:
        return render_template("quicktest/public_invalid.html", text=message("INVALID_URL")), 404
    return render_test("quicktest/public.html", test, public=True)


@bp.get("/quick-test/view/<uuid>/images/<file_uuid>")
@public_page
def public_image(uuid: str, file_uuid: str):
    # The images of a page already counted are free; a miss counts (guessing is limited).
    test = _shared(uuid, count=False)
    file = services.image_of(test.id, file_uuid[:36]) if test else None
    if file is None:
        check_public_rate()
        abort(404)
    return stream_image(file, request.args.get("variation") == "small")


@api_call(api_bp, "/_public/quick-test/view/", public=True, errors=(404,))
def public_test_missing():
    """A public quick test without its uuid: INVALID_URL."""
    raise ApiError(404, message("INVALID_URL"), error="INVALID_URL")


@api_call(api_bp, "/_public/quick-test/view/<uuid>", public=True)
def public_test(uuid: str):
    """A finished quick test by its public uuid (INVALID_URL when there is none)."""
    test = _shared(uuid)
    if test is None:
        raise ApiError(404, message("INVALID_URL"), error="INVALID_URL")
    return jsonify(display.container_json(test, image_url(test, public=True)))
