"""JSON calls of the quick test: the test (spec 02 section 7) and saving its fields one by one
while it is filled in."""

from flask import jsonify, request
from flask_babel import gettext as _
from pydantic import Field

from app.auth.viewer import viewer
from app.core.api import ApiError, Schema, api_call, parse_body
from app.extensions import db
from app.quicktest import api_bp, display, services
from app.quicktest.access import test_or_404
from app.quicktest.routes import image_url


class ValueBody(Schema):
    group: int = Field(ge=1, le=2**63 - 1)
    information: int = Field(ge=1, le=2**63 - 1)
    value: str | None = Field(default=None, max_length=20000)


def _open_test(test_id: int):
    test = test_or_404(test_id)
    if test.reported_at is not None:
        raise ApiError(409, _("The quick test is finished and can no longer be changed."))
    return test


def _refused(exc: services.Refused) -> ApiError:
    return ApiError(422, exc.message, errors={exc.field or "value": exc.message})


@api_call(api_bp, "/preparation-storage-containers/<int:test_id>")
def storage_container(test_id: int):
    """A quick test with its storage, values and division."""
    test = test_or_404(test_id)
    return jsonify(display.container_json(test, image_url(test)))


@api_call(
    api_bp,
    "/preparation-storage-containers/<int:test_id>/values",
    "PUT",
    bodies=(ValueBody,),
    errors=(409,),  # the test is finished
)
def save_value(test_id: int):
    """Save (or with an empty value clear) one field of a test being filled in."""
    test = _open_test(test_id)  # a test the caller may not see is a 404 before any body check
    body = parse_body(ValueBody)
    group, information = services.group_information(test, body.group, body.information)
    if group is None:
        raise ApiError(404, _("This field is not part of the quick test."))
    try:
        row = services.save_value(test, group, information, body.value)
    except services.Refused as exc:
        raise _refused(exc) from None
    db.session.commit()
    fmt = display.DivisionFormat.of(test.division_id)
    return jsonify(
        {
            "group": group.id,
            "information": information.id,
            "value": row.value if row else None,
            "text": display.display(information, row.value if row else None, fmt),
        }
    )


IMAGE_FORM = {
    "type": "object",
    "required": ["group", "file"],
    "properties": {
        "group": {"type": "string", "pattern": "^[0-9]{1,9}$"},
        "information": {"type": "string", "pattern": "^[0-9]{0,9}$"},
        "file": {"type": "string", "format": "binary"},
    },
    # Other parts are ignored, but a part must be readable: a name that a multipart header can
    # carry (no quote, backslash, NUL or line break) and text without NUL (otherwise 400).
    "propertyNames": {"pattern": '^[^"\\\\\\u0000\\r\\n]*$'},
    "additionalProperties": {"type": "string", "pattern": "^[^\\u0000]*$"},
}


@api_call(
    api_bp,
    "/preparation-storage-containers/<int:test_id>/images",
    "POST",
    form=IMAGE_FORM,
    success=(201,),
    errors=(409,),  # the test is finished
)
def add_image(test_id: int):
    """Add an image (multipart: group, information for an image field, file)."""
    test = _open_test(test_id)
    group_raw, info_raw = request.form.get("group", ""), request.form.get("information", "")
    if not group_raw.isdigit() or (info_raw and not info_raw.isdigit()):
        raise ApiError(422, _("This field is not part of the quick test."))
    group, information = services.group_information(
        test, int(group_raw), int(info_raw) if info_raw else None
    )
    if group is None:
        raise ApiError(404, _("This field is not part of the quick test."))
    upload = request.files.get("file")
    data = upload.read() if upload else b""
    try:
        row = services.add_image(
            test, group, information, data, upload.filename if upload else "", viewer().user
        )
    except services.Refused as exc:
        raise _refused(exc) from None
    db.session.commit()
    link = image_url(test)
    return jsonify(
        {
            "id": row.id,
            "group": group.id,
            "information": information.id if information else None,
            "fileObject": {
                "uuid": row.file.uuid,
                "url": link(row.file, False),
                "smallUrl": link(row.file, True),
            },
        }
    ), 201


@api_call(
    api_bp,
    "/preparation-storage-containers/<int:test_id>/images/<int:value_id>",
    "DELETE",
    success=(204,),
    errors=(409,),  # the test is finished
)
def remove_image(test_id: int, value_id: int):
    """Take an image off a test being filled in."""
    test = _open_test(test_id)
    if not services.remove_image(test, value_id):
        raise ApiError(404, _("The image was not found."))
    db.session.commit()
    return "", 204
