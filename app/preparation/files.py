"""Uploaded files: checked by their content, size limited, stored with a small image variation.

The type of an upload is what its bytes say (magic numbers; images are also opened with
Pillow), never its extension or the content type the browser sends. A name whose extension
does not fit the content is refused as forged. Nothing is stored unless every check passes.
"""

import io
import re
import warnings
from dataclasses import dataclass

from flask import current_app
from flask_babel import gettext as _
from PIL import Image, ImageOps, UnidentifiedImageError
from sqlalchemy.exc import OperationalError

from app.core import audit
from app.core.errors import storage_full, storage_full_message
from app.extensions import db
from app.preparation.models import FileObject, ItemFile, PreparationItem

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
SMALL_SIZE = 320  # the small variation's longest side, in pixels
SMALL_CONTENT_TYPE = "image/jpeg"
TITLE_MAX = 200


@dataclass(frozen=True)
class Kind:
    content_type: str
    extensions: tuple[str, ...]
    pillow_format: str | None  # the format Pillow must find in an image; None: not an image


KINDS = {
    "jpeg": Kind("image/jpeg", ("jpg", "jpeg"), "JPEG"),
    "png": Kind("image/png", ("png",), "PNG"),
    "webp": Kind("image/webp", ("webp",), "WEBP"),
    "pdf": Kind("application/pdf", ("pdf",), None),
}
IMAGE_TYPES = frozenset(k.content_type for k in KINDS.values() if k.pillow_format)
ACCEPT = ",".join(
    [k.content_type for k in KINDS.values()]
    + [f".{e}" for k in KINDS.values() for e in k.extensions]
)


class UploadError(ValueError):
    """A refused upload, with a message for the user."""


def max_upload_bytes() -> int:
    """The largest file accepted (setting UPLOAD_MAX_BYTES, 10 MB unless set)."""
    return int(current_app.config.get("UPLOAD_MAX_BYTES") or DEFAULT_MAX_BYTES)


def sniff(data: bytes) -> str | None:
    """The kind of file these bytes start like, or None for anything not accepted."""
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:1024].lstrip(b"\x00\t\n\r\x0c ").startswith(b"%PDF-"):
        return "pdf"
    return None


def clean_name(name: str | None) -> str:
    """A file name safe to store and to send back: no path, no control characters."""
    name = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    name = re.sub(r"[\x00-\x1f\x7f\"]", "", name).strip().strip(".")
    return name[:TITLE_MAX] or "file"


def _extension(name: str) -> str | None:
    base, dot, ext = name.rpartition(".")
    return ext.lower() if dot and base else None


def small_variation(data: bytes) -> bytes:
    """A JPEG at most SMALL_SIZE pixels on its longest side, turned upright, on white."""
    with Image.open(io.BytesIO(data)) as image:
        image.draft("RGB", (SMALL_SIZE, SMALL_SIZE))  # JPEG: decode at a reduced size
        image = ImageOps.exif_transpose(image)
        image.thumbnail((SMALL_SIZE, SMALL_SIZE))
        if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
            image = image.convert("RGBA")
            flat = Image.new("RGB", image.size, "white")
            flat.paste(image, mask=image.getchannel("A"))
            image = flat
        else:
            image = image.convert("RGB")
        out = io.BytesIO()
        image.save(out, "JPEG", quality=80, optimize=True)
        return out.getvalue()


def _check_image(data: bytes, kind: Kind) -> None:
    """Open and fully decode the image, so a damaged or disguised file is refused now."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                if image.format != kind.pillow_format:
                    raise UploadError(_("The file is not a valid image."))
                image.verify()
            with Image.open(io.BytesIO(data)) as image:
                image.load()
    except UploadError:
        raise
    except (Image.DecompressionBombWarning, Image.DecompressionBombError):
        raise UploadError(_("The image has too many pixels.")) from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        raise UploadError(_("The file is not a valid image.")) from None


def check_upload(data: bytes, name: str) -> tuple[Kind, str]:
    """Check an upload's content and name; return its kind and the name to store.

    Raises UploadError with a message when the file is empty, too large, of a type not
    accepted, damaged, or named with an extension of another type."""
    limit = max_upload_bytes()
    if not data:
        raise UploadError(_("Choose a file to upload."))
    if len(data) > limit:
        raise UploadError(
            _("The file is larger than %(size)s MB.", size=f"{limit / 1024 / 1024:g}")
        )
    found = sniff(data)
    if found is None:
        raise UploadError(_("Only JPEG, PNG and WebP images and PDF documents can be uploaded."))
    kind = KINDS[found]
    name = clean_name(name)
    extension = _extension(name)
    if extension is None:
        suffix = f".{kind.extensions[0]}"
        name = name[: TITLE_MAX - len(suffix)] + suffix  # the stored name holds TITLE_MAX
    elif extension not in kind.extensions:
        raise UploadError(
            _(
                "The file name ends in .%(extension)s but the file is a %(type)s file.",
                extension=extension,
                type=found.upper(),
            )
        )
    if kind.pillow_format:
        _check_image(data, kind)
    return kind, name


def store_file(data: bytes, name: str, user_id: int | None) -> FileObject:
    """Check an upload and store it as a file object (with its small variation for images)."""
    kind, name = check_upload(data, name)
    small = small_variation(data) if kind.pillow_format else None
    file = FileObject(
        name=name,
        content_type=kind.content_type,
        size=len(data),
        data=data,
        small=small,
        created_by_id=user_id,
    )
    db.session.add(file)
    try:
        db.session.flush()  # the bytes reach the database now: a full disk is refused here
    except OperationalError as exc:
        if not storage_full(exc):
            raise
        raise UploadError(storage_full_message()) from None
    return file


def comment_images(uploads: list[tuple[bytes, str]]) -> list[tuple[bytes, str]]:
    """A comment's images (vehicle and purchase-analysis comments): each checked by content,
    images only; raises UploadError with the first one's problem."""
    checked = []
    for data, name in uploads:
        kind, _name = check_upload(data, name)
        if not kind.pillow_format:
            raise UploadError(_("Only images can be added to a comment."))
        checked.append((data, name))
    return checked


def add_item_file(item: PreparationItem, data: bytes, name: str, title: str, user) -> ItemFile:
    """Attach an uploaded file to an item under a title (the file name when none is given)."""
    title = " ".join((title or "").split())
    if len(title) > TITLE_MAX:
        raise UploadError(_("The title can be at most %(max)s characters.", max=TITLE_MAX))
    file = store_file(data, name, user.id)
    item_file = ItemFile(item_id=item.id, file=file, title=title or file.name)
    db.session.add(item_file)
    db.session.flush()
    audit.record(
        "preparation.file.upload",
        user=user,
        division_id=item.division_id,
        item_id=item.id,
        file_id=item_file.id,
        title=item_file.title,
    )
    return item_file
