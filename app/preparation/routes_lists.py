"""Custom lists, seen markers and the dynamic lists under My lists."""

import re
from typing import Annotated

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from pydantic import Field, WithJsonSchema

from app.auth.viewer import viewer
from app.core.api import ApiError, Schema, api_call
from app.core.numbers import is_int, request_int
from app.core.workdays import day_counter
from app.extensions import db
from app.preparation import api_bp, bp
from app.preparation import lists as svc
from app.preparation.queries import ItemFilters, item_query, paginate
from app.preparation.states import BY_ID

PER_PAGE = 50


def _me():
    """The signed-in user's viewer; global users have no lists (spec 01 section 6)."""
    v = viewer()
    if v.is_global:
        abort(404)
    return v


def _visible(v) -> list[int]:
    return [d.id for d in v.visible_divisions]


def _own_list(v, list_id: int):
    custom_list = svc.get_list(list_id, v.user.id)
    if custom_list is None:
        abort(404)
    return custom_list


def _rename(record, field: str, rename, page, key: str, to: str):
    """Rename a custom or dynamic list from the form's `field` (its attribute of the same name).

    A name the lists refuse shows `page` again with the message under `key` and the input kept.
    """
    value = request.form.get(field, "")
    try:
        rename(record, value)
    except svc.ListError as exc:
        db.session.rollback()
        return page(422, {key: (str(exc), value)})
    db.session.commit()
    flash(_("The list is now called %(name)s.", name=getattr(record, field)), "success")
    return redirect(to)


def _delete(record, name: str, delete, to: str):
    delete(record)
    db.session.commit()
    flash(_("The list %(name)s was deleted.", name=name), "success")
    return redirect(to)


# --- the manager -----------------------------------------------------------------------------


def _manager(status: int = 200, errors: dict | None = None):
    v = _me()
    visible = _visible(v)
    lists = svc.user_lists(v.user.id, visible)
    rows: dict[int, list] = {summary.id: [] for summary in lists}
    for list_id, row in svc.manager_rows(v.user.id, visible):
        rows.setdefault(list_id, []).append(row)
    search_list = request_int("list")
    phrase = " ".join((request.args.get("q") or "").split())[:40]
    results = None
    if search_list in rows and phrase:
        results = svc.search_items(phrase, visible, exclude_list_id=search_list)
    return (
        render_template(
            "preparation/lists/manager.html",
            lists=lists, rows=rows, search_list=search_list, phrase=phrase, results=results,
            errors=errors or {}, name_max=svc.NAME_MAX, states=BY_ID,
        ),
        status,
    )  # fmt: skip


@bp.get("/custom-list")
def custom_lists():
    """Manage custom lists: create, rename, delete, and choose their vehicles."""
    return _manager()


@bp.post("/custom-list")
def create_custom_list():
    v = _me()
    name = request.form.get("name", "")
    try:
        custom_list = svc.create_list(v.user.id, name)
    except svc.ListError as exc:
        return _manager(422, {"create": (str(exc), name)})
    db.session.commit()
    flash(_("The list %(name)s was created.", name=custom_list.name), "success")
    return redirect(url_for("preparation.custom_lists", _anchor=f"list-{custom_list.id}"))


@bp.post("/custom-list/<int:list_id>/rename")
def rename_custom_list(list_id: int):
    custom_list = _own_list(_me(), list_id)
    to = url_for("preparation.custom_lists", _anchor=f"list-{list_id}")
    return _rename(custom_list, "name", svc.rename_list, _manager, f"rename-{list_id}", to)


@bp.post("/custom-list/<int:list_id>/delete")
def delete_custom_list(list_id: int):
    custom_list = _own_list(_me(), list_id)
    return _delete(
        custom_list, custom_list.name, svc.delete_list, url_for("preparation.custom_lists")
    )


@bp.post("/custom-list/<int:list_id>/items")
def add_custom_list_item(list_id: int):
    v = _me()
    custom_list = _own_list(v, list_id)
    raw = request.form.get("item_id", "")
    item = svc.find_item(int(raw), _visible(v)) if is_int(raw) else None
    if item is None:
        abort(404)
    if svc.add_to_list(custom_list, item):
        flash(_("%(regno)s was added to %(name)s.", regno=item.regno, name=custom_list.name), "success")  # fmt: skip
    else:
        flash(_("%(regno)s is on %(name)s already.", regno=item.regno, name=custom_list.name), "info")  # fmt: skip
    db.session.commit()
    return redirect(url_for("preparation.custom_lists", _anchor=f"list-{list_id}"))


@bp.post("/custom-list/<int:list_id>/items/<int:item_id>/remove")
def remove_custom_list_item(list_id: int, item_id: int):
    v = _me()
    custom_list = _own_list(v, list_id)
    item = svc.find_item(item_id, _visible(v))
    if item is None or not svc.remove_from_list(custom_list, item_id):
        abort(404)
    db.session.commit()
    flash(_("%(regno)s was removed from %(name)s.", regno=item.regno, name=custom_list.name), "success")  # fmt: skip
    return redirect(url_for("preparation.custom_lists", _anchor=f"list-{list_id}"))


# --- a list's page ---------------------------------------------------------------------------


@bp.get("/custom-list/<int:list_id>/list")
def custom_list(list_id: int):
    """The vehicles of one of the user's lists, unseen ones highlighted."""
    v = _me()
    chosen = _own_list(v, list_id)
    rows = svc.list_rows(chosen, v.user.id, _visible(v), day_counter(v.instance))
    props = {
        "listIri": f"/preparation-custom-lists/{chosen.id}",
        "caption": _("Vehicles of the list %(name)s", name=chosen.name),
        "rows": [
            {
                "id": r.id,
                "regno": r.regno,
                "model": r.model,
                "state": r.state_title,
                "division": r.division,
                "daysInState": r.days_in_state,
                "stationsDone": r.stations_done,
                "stationsTotal": r.stations_total,
                "activeStation": r.active_station,
                "warning": r.warning,
                "activeAdvert": r.active_advert,
                "seenId": r.seen_id,
                "manageUrl": r.manage_url,
            }  # fmt: skip
            for r in rows
        ],
    }
    return render_template(
        "preparation/lists/list.html", custom_list=chosen, rows=rows, props=props
    )


# --- seen markers (spec 02 sections 4, 7 and 8) -----------------------------------------------

LIST_IRI = re.compile(r"^/(?:api/)?preparation-custom-lists/([0-9]{1,10})$")
ITEM_IRI = re.compile(r"^/(?:api/)?preparation-items/([0-9]{1,10})$")


class SeenCreate(Schema):
    # The published schema names the references' form (the view checks them: _iri_id).
    custom_list: Annotated[
        str,
        WithJsonSchema(
            {"type": "string", "pattern": r"^/(api/)?preparation-custom-lists/[1-9][0-9]{0,8}$"}
        ),
    ] = Field(alias="customList", min_length=1, max_length=80)
    item: Annotated[
        str,
        WithJsonSchema(
            {"type": "string", "pattern": r"^/(api/)?preparation-items/[1-9][0-9]{0,8}$"}
        ),
    ] = Field(min_length=1, max_length=80)


class SeenCreated(Schema):
    id: int


def _iri_id(pattern: re.Pattern, value: str, field: str) -> int:
    match = pattern.match(value)
    if not match or not is_int(match.group(1)):
        text = _("This is not a valid reference.")
        raise ApiError(422, text, errors={field: text}, keys={field: "INVALID_VALUE"})
    return int(match.group(1))


@api_call(
    api_bp,
    "/preparation-custom-list-seen",
    "POST",
    body=SeenCreate,
    response=SeenCreated,
    errors=(404,),  # a list or item the user may not see
)
def create_seen(body: SeenCreate):
    """Mark an item of one of your custom lists as seen."""
    v = _me()
    list_id = _iri_id(LIST_IRI, body.custom_list, "customList")
    item_id = _iri_id(ITEM_IRI, body.item, "item")
    if not svc.list_item_in_scope(list_id, item_id, v.user.id, _visible(v)):
        abort(404)
    try:
        seen_id = svc.mark_seen(list_id, item_id, v.user.id)
    except svc.SeenExists as exc:
        db.session.rollback()
        text = _("You have already marked this vehicle as seen.")
        raise ApiError(422, text, error=text, seenId=exc.seen_id) from None
    db.session.commit()
    return SeenCreated(id=seen_id)


@api_call(api_bp, "/preparation-custom-list-seen/<int:seen_id>", "DELETE", success=(204,))
def delete_seen(seen_id: int):
    """Remove your seen marker from an item of a custom list."""
    v = _me()
    owner = svc.seen_owner(seen_id)
    if owner is not None and owner != (v.instance.id, v.user.id):
        abort(404)
    if owner is None or not svc.unmark_seen(seen_id, v.user.id):
        text = _("This seen marker no longer exists. The vehicle is shown as not seen.")
        raise ApiError(422, text, error=text)
    db.session.commit()
    return "", 204


# --- dynamic lists (My lists) ----------------------------------------------------------------


@bp.get("/my-lists")
def my_lists(status: int = 200, errors: dict | None = None, pending: dict | None = None):
    """The user's saved filters, each with the number of vehicles it finds now."""
    v = _me()
    lists = svc.user_dynamic_lists(v.user.id)
    counts = svc.dynamic_counts(lists, v.selected_division_ids)
    return render_template(
        "preparation/lists/my_lists.html", lists=lists, counts=counts, errors=errors or {},
        pending=pending, name_max=svc.NAME_MAX,
    ), status  # fmt: skip


def _own_dynamic(v, uuid: str):
    dynamic = svc.get_dynamic_list(uuid[:36], v.user.id)
    if dynamic is None:
        abort(404)
    return dynamic


@bp.post("/my-lists")
def create_dynamic_list():
    """Save the overview's current filters (posted with the name) as a list under My lists."""
    v = _me()
    module = request.form.get("module", "")
    if module not in v.modules or module not in ("begcare", "newcare"):
        abort(404)
    fields = {k: v_ for k, v_ in request.form.items() if k not in ("csrf_token", "title", "module")}
    title = request.form.get("title", "")
    pending = {"module": module, "title": title, "filters": fields}
    try:
        filters = ItemFilters.from_args(fields)
    except ValueError as exc:
        return my_lists(422, {"create": str(exc)}, pending)
    try:
        dynamic = svc.create_dynamic_list(v.user.id, module, title, filters)
    except svc.ListError as exc:
        return my_lists(422, {"create": str(exc)}, pending)
    db.session.commit()
    flash(_("The list %(name)s was created.", name=dynamic.title), "success")
    return redirect(url_for("preparation.my_list", uuid=dynamic.uuid))


@bp.post("/my-lists/<uuid>/rename")
def rename_dynamic_list(uuid: str):
    dynamic = _own_dynamic(_me(), uuid)
    to = url_for("preparation.my_lists")
    return _rename(dynamic, "title", svc.rename_dynamic_list, my_lists, f"rename-{uuid}", to)


@bp.post("/my-lists/<uuid>/delete")
def delete_dynamic_list(uuid: str):
    dynamic = _own_dynamic(_me(), uuid)
    return _delete(dynamic, dynamic.title, svc.delete_dynamic_list, url_for("preparation.my_lists"))


@bp.get("/my-lists/<uuid>")
def my_list(uuid: str):
    """The vehicles a saved filter finds, page by page."""
    v = _me()
    dynamic = _own_dynamic(v, uuid)
    filters = svc.dynamic_filters(dynamic)
    page = None
    if filters is not None and dynamic.module in v.modules:
        stmt = item_query(dynamic.module, v.selected_division_ids, filters=filters)
        page = paginate(stmt, request_int("page", 1, low=1), PER_PAGE)
    names = {d.id: d.name for d in v.visible_divisions}
    rows = svc.item_rows(page.items, names, day_counter(v.instance)) if page else []
    return render_template(
        "preparation/lists/dynamic_list.html", dynamic=dynamic, page=page, rows=rows,
        filters=filters,
    )  # fmt: skip
