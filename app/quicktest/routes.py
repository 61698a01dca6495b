"""The quick-test module's pages: list and search, start, fill in one group at a time, finish,
open, and the print view."""

from io import BytesIO

from flask import abort, flash, redirect, render_template, request, send_file, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import HiddenField, SelectField, StringField
from wtforms.validators import Length

from app.auth.viewer import viewer
from app.core.localized import for_reader
from app.core.models import Division
from app.extensions import db
from app.preparation import files
from app.preparation.models import PreparationItem
from app.quicktest import bp, display, services
from app.quicktest.access import division_ids, module_viewer, test_or_404
from app.quicktest.models import StorageContainer

# html2pdf.js options of spec 02 section 2 (quick test print): margins top, left, bottom,
# right in mm; image quality 1; scale 2.
PRINT_OPTIONS = {
    "margin": [10, 2, 10, 2],
    "image": {"type": "jpeg", "quality": 1},
    "html2canvas": {"scale": 2},
    "jsPDF": {"unit": "mm", "format": "a4", "orientation": "portrait"},
    "pagebreak": {"mode": ["css", "legacy"], "avoid": ["tr", "img", ".print-avoid"]},
}


class StartForm(FlaskForm):
    regno = StringField(
        _l("Registration number"), validators=[Length(max=20)], render_kw={"maxlength": 20}
    )
    storage = SelectField(_l("Quick-test template"), coerce=int, validate_choice=False)
    division = SelectField(_l("Division"), coerce=int, validate_choice=False)
    item = HiddenField()


def _start_form(v, item: PreparationItem | None = None, formdata=None) -> StartForm:
    kwargs = {"formdata": formdata} if formdata is not None else {}
    if item is not None:
        kwargs.update(regno=item.regno, division=item.division_id, item=str(item.id))
    form = StartForm(**kwargs)
    form.storage.choices = [(s.id, for_reader(s.title_texts, s.title)) for s in services.storages()]
    form.division.choices = [(d.id, d.name) for d in v.visible_divisions]
    return form


def _item_for_start(v, raw) -> PreparationItem | None:
    """The vehicle a test is started from (its item page): one the viewer may see, or 404."""
    if not raw:
        return None
    if not str(raw).isdigit():
        abort(404)
    item = db.session.get(PreparationItem, int(raw))
    if item is None or item.module not in v.modules or item.division_id not in division_ids(v):
        abort(404)
    return item


def image_url(test: StorageContainer, public: bool = False):
    """The function that links a test's images: staff path, or the public one under its uuid."""

    def link(file, small: bool) -> str:
        args = {"variation": "small"} if small else {}
        if public:
            return url_for("quicktest.public_image", uuid=test.uuid, file_uuid=file.uuid, **args)
        return url_for("quicktest.staff_image", test_id=test.id, file_uuid=file.uuid, **args)

    return link


def render_test(template: str, test: StorageContainer, public: bool = False, **context):
    """A page of one test: its groups as shown in its division's format and its images' links
    (the public ones under its uuid), with the page's own `context`."""
    fmt = display.DivisionFormat.of(test.division_id)
    groups = display.shown_groups(test, fmt)
    link = image_url(test, public=public)
    return render_template(template, test=test, groups=groups, image_url=link, **context)


def _item_of(test: StorageContainer) -> PreparationItem | None:
    return db.session.get(PreparationItem, test.item_id) if test.item_id else None


def stream_image(file, small: bool):
    data = file.small if small else file.data
    if data is None:
        abort(404)
    response = send_file(
        BytesIO(data),
        mimetype=files.SMALL_CONTENT_TYPE if small else file.content_type,
        download_name=file.name,
        max_age=0,
        conditional=False,
        etag=False,
    )
    response.headers["Cache-Control"] = "private, max-age=3600"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


# --- list, search and start ----------------------------------------------------------------------


@bp.get("/quick-test")
def index():
    v = module_viewer()
    phrase = request.args.get("q", "")[:100]
    status = request.args.get("status", "")
    status = status if status in ("open", "finished") else ""
    return render_template(
        "quicktest/index.html",
        tests=services.search_tests(division_ids(v), phrase, status),
        phrase=phrase,
        status=status,
        form=_start_form(v),
        limit=services.SEARCH_LIMIT,
    )


@bp.route("/quick-test/start", methods=["GET", "POST"])
def start():
    v = module_viewer()
    item = _item_for_start(v, request.values.get("item"))
    form = _start_form(v, item, request.form if request.method == "POST" else None)
    if request.method == "POST" and form.validate_on_submit():
        try:
            test = services.start_test(
                v.user, form.regno.data, form.storage.data,
                item.division_id if item else form.division.data, division_ids(v), item,
            )  # fmt: skip
            db.session.commit()
            return redirect(url_for(".fill", test_id=test.id))
        except services.Refused as exc:
            getattr(form, exc.field).errors = [exc.message]
    status = 422 if request.method == "POST" else 200
    return render_template("quicktest/start.html", form=form, item=item), status


# --- one test ------------------------------------------------------------------------------------


def _steps(test: StorageContainer) -> list[services.GroupNode]:
    return services.group_tree(test.storage_id)


@bp.get("/quick-test/<int:test_id>")
def show(test_id: int):
    test = test_or_404(test_id)
    return render_test(
        "quicktest/show.html",
        test,
        item=_item_of(test),
        public_url=url_for("quicktest.public_view", uuid=test.uuid, _external=True),
    )


def _field_name(group_id: int, information_id: int) -> str:
    return f"v-{group_id}-{information_id}"


@bp.route("/quick-test/<int:test_id>/fill", methods=["GET", "POST"])
def fill(test_id: int):
    """One top-level group (with its child groups) per step; a POST saves the step's fields
    (the page's script saves each field as it changes; this is the same without it)."""
    test = test_or_404(test_id)
    if test.reported_at is not None:
        return redirect(url_for(".show", test_id=test.id))
    steps = _steps(test)
    raw_step = request.args.get("step", "1")
    step = int(raw_step) if raw_step.isdigit() else 1
    step = min(max(step, 1), max(len(steps), 1))
    node = steps[step - 1] if steps else None
    typed, errors = {}, {}
    if request.method == "POST" and node is not None:
        if not FlaskForm().validate_on_submit():
            abort(400)
        typed, errors = _save_step(test, node)
        if not errors:
            db.session.commit()
            action = request.form.get("go", "next")
            if action == "previous" and step > 1:
                return redirect(url_for(".fill", test_id=test.id, step=step - 1))
            if action == "finish" or step >= len(steps):
                return redirect(url_for(".review", test_id=test.id))
            return redirect(url_for(".fill", test_id=test.id, step=step + 1))
        db.session.rollback()
    fmt = display.DivisionFormat.of(test.division_id)
    values = services.container_values(test.id)
    return render_template(
        "quicktest/fill.html",
        test=test,
        steps=steps,
        step=step,
        node=node,
        saved={(v.group_id, v.information_id): v for v in values if v.information_id},
        photos=[v for v in values if v.information_id is None and v.file_object_id],
        typed=typed,
        errors=errors,
        field_name=_field_name,
        fmt=fmt,
        image_url=image_url(test),
        form=FlaskForm(),
    ), (422 if errors else 200)


def _save_step(test, node) -> tuple[dict, dict]:
    """Save every field of the step's groups sent in the form; return what was typed and the
    messages of refused fields."""
    typed, errors = {}, {}
    for group_node in node.walk():
        group = group_node.group
        for info in group_node.informations:
            name = _field_name(group.id, info.id)
            try:
                if info.type == "image":
                    upload = request.files.get(name)
                    if upload and upload.filename:
                        services.add_image(
                            test, group, info, upload.read(), upload.filename, viewer().user
                        )
                elif name in request.form:
                    typed[name] = request.form.get(name, "")
                    services.save_value(test, group, info, typed[name])
            except services.Refused as exc:
                errors[name] = exc.message
        if group.image_support:
            name = f"photo-{group.id}"
            for upload in request.files.getlist(name):
                if upload and upload.filename:
                    try:
                        services.add_image(
                            test, group, None, upload.read(), upload.filename, viewer().user
                        )
                    except services.Refused as exc:
                        errors[name] = exc.message
    return typed, errors


@bp.get("/quick-test/<int:test_id>/review")
def review(test_id: int):
    """The whole test before it is reported, with the finish button."""
    test = test_or_404(test_id)
    if test.reported_at is not None:
        return redirect(url_for(".show", test_id=test.id))
    return render_test("quicktest/review.html", test, steps=_steps(test), form=FlaskForm())


@bp.post("/quick-test/<int:test_id>/finish")
def finish(test_id: int):
    test = test_or_404(test_id)
    if not FlaskForm().validate_on_submit():
        abort(400)
    if services.finish(test, viewer().user):
        db.session.commit()
        flash(_("The quick test is finished. Share its link or print it."), "success")
    return redirect(url_for(".show", test_id=test.id))


@bp.get("/quick-test/<int:test_id>/images/<file_uuid>")
def staff_image(test_id: int, file_uuid: str):
    test = test_or_404(test_id)
    file = services.image_of(test.id, file_uuid[:36])
    if file is None:
        abort(404)
    return stream_image(file, request.args.get("variation") == "small")


# --- print ---------------------------------------------------------------------------------------


@bp.get("/pdf-preview/quick-test/<int:test_id>")
def print_view(test_id: int):
    """Spec 02: the quick test as an A4 portrait page, printed or saved as PDF in the browser."""
    test = test_or_404(test_id)
    return render_test(
        "quicktest/print.html",
        test,
        pdf_options=PRINT_OPTIONS,
        pdf_name=f"{_('Quick test')} {test.identifier}.pdf",
        item=_item_of(test),
        division=db.session.get(Division, test.division_id),
    )


@bp.app_template_global()
def quick_tests_for_item(item) -> list | None:
    """The finished quick tests of a vehicle, for its item page (empty without the module)."""
    v = viewer()
    if v is None or "quickTest" not in v.modules:
        return None
    return services.item_tests(item.id)
