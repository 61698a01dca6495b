"""Tags on vehicles: the vehicle page's choice and a custom list's "tag every vehicle". The
rules are app/preparation/tags.py."""

from flask import abort, flash, redirect, request, url_for
from flask_babel import gettext as _
from flask_babel import ngettext
from sqlalchemy import select

from app.auth.viewer import viewer
from app.core.numbers import parse_int, request_int
from app.extensions import db
from app.preparation import bp, lists, manage, tags
from app.preparation.items import manage_path
from app.preparation.models import CustomListItem, PreparationItem
from app.preparation.routes_manage import act_then_back


@bp.post("/<any(begcare, newcare):module>/items/<int:item_id>/tags")
def item_tags(module: str, item_id: int):
    """Give the vehicle the ticked tags (none ticked: no tags). Anyone who may see it may."""
    v = viewer()
    item = manage.item_or_404(module, item_id)
    chosen = [parse_int(raw, "tag_id", low=1) for raw in request.form.getlist("tag_id")]
    return act_then_back(
        manage_path(item) + "#tags",
        lambda: tags.set_tags(item, chosen, v.user),
        tags.TagRefused,
        lambda changed: (
            _("The tags of %(regno)s are saved.", regno=item.regno) if changed else None
        ),
    )


@bp.post("/custom-list/<int:list_id>/tags")
def tag_custom_list(list_id: int):
    """Put one tag on every vehicle of one of the user's custom lists that they may see."""
    v = viewer()
    chosen = lists.get_list(list_id, v.user.id) if not v.is_global else None
    if chosen is None:
        abort(404)
    tag_id = request_int("tag_id", None, low=1, form=True)
    back = url_for("preparation.custom_list", list_id=chosen.id)
    if tag_id is None:
        flash(_("Choose a tag."), "danger")
        return redirect(back)
    items = list(
        db.session.scalars(
            select(PreparationItem)
            .join(CustomListItem, CustomListItem.item_id == PreparationItem.id)
            .where(
                CustomListItem.custom_list_id == chosen.id,
                PreparationItem.module.in_(list(v.modules)),
                PreparationItem.division_id.in_([d.id for d in v.visible_divisions]),
            )
        )
    )
    return act_then_back(
        back,
        lambda: tags.tag_all(items, tag_id, v.user),
        tags.TagRefused,
        lambda count: ngettext(
            "%(num)s vehicle got the tag.", "%(num)s vehicles got the tag.", count
        ),
    )


@bp.app_template_global()
def tag_choices():
    """The instance's tags, for the vehicle page's and a custom list's tag forms."""
    return tags.available()


@bp.app_template_global()
def item_tags_of(item_id: int):
    """The tags of one vehicle."""
    return tags.of_items([item_id]).get(item_id, [])
