"""Adding and editing an advert (spec 02): the form filled from a vehicle in stock, its
images, and publishing, which e-mails the bid links. Both pages sit behind the advert-add
entry's rule, like the other advert screens (app.market.routes_adverts)."""

from babel import Locale
from flask import flash, redirect, request, url_for
from flask_babel import get_timezone, to_user_timezone
from flask_babel import gettext as _

from app.auth.viewer import Viewer, viewer
from app.core import addresses
from app.core.i18n import babel_name, current_locale
from app.core.localized import instance_locale
from app.core.numbers import is_int
from app.extensions import db
from app.market import advert_editing, bp
from app.market import adverts as svc
from app.market.forms import AdvertForm
from app.market.models import Advert, InstanceGroup
from app.market.routes_adverts import _access, _own_advert, _render
from app.preparation.files import UploadError, check_upload


def _uploads(form: AdvertForm, kept: int = 0) -> list[tuple[bytes, str]]:
    """The chosen image files, each checked by its content; errors go under the field. With the
    `kept` images the advert already has, it holds at most MAX_IMAGES."""
    files = [f for f in (form.images.data or []) if getattr(f, "filename", "")]
    if kept + len(files) > advert_editing.MAX_IMAGES:
        form.images.errors = [
            _(
                "An advert holds at most %(count)s images: remove some or choose fewer.",
                count=advert_editing.MAX_IMAGES,
            )
            if kept
            else _("Choose at most %(count)s images.", count=advert_editing.MAX_IMAGES)
        ]
        return []
    uploads, errors = [], []
    for file in files:
        data = file.read()
        try:
            kind, name = check_upload(data, file.filename)
            if kind.pillow_format is None:
                raise UploadError(_("Only JPEG, PNG and WebP images can be added to an advert."))
        except UploadError as exc:
            errors.append(f"{file.filename}: {exc}")
            continue
        uploads.append((data, name))
    if errors:
        form.images.errors = errors
    return uploads


def _address(form: AdvertForm, item, divisions: list[int]) -> None:
    """Offer the addresses of the vehicle's division (else the seller's divisions); a chosen
    one that is not among them is the field's error, the choice kept."""
    offered = advert_editing.address_divisions(item, divisions)
    names = {d.id: d.name for d in viewer().visible_divisions}
    form.address_id.choices = addresses.choices(offered, names)
    raw = form.address_id.data or ""
    if raw and (not is_int(raw) or addresses.refusal(int(raw), offered)):
        form.address_id.errors = [_("Choose one of the division's addresses.")]


def _description_texts(form: AdvertForm) -> dict:
    """The description per language: the translations typed, and the text above in the seller
    company's language (its own input is not drawn, so it is never among the typed ones)."""
    texts = dict(form.description_texts.data or {})
    texts.pop(instance_locale(), None)
    if description := (form.description.data or "").strip():
        texts[instance_locale()] = description
    return texts


def _language_name(tag: str) -> str:
    """A language's name in the reader's language ("Swedish", "svenska", "Schwedisch")."""
    return Locale.parse(babel_name(tag)).get_language_name(babel_name(current_locale()))


def _data(form: AdvertForm, item_id: int | None, group: InstanceGroup) -> advert_editing.AdvertData:
    description = (form.description.data or "").strip()
    return advert_editing.AdvertData(
        regno=form.regno.data,
        vin=form.vin.data,
        brand=form.stripped("brand"),
        model=form.stripped("model"),
        model_year=form.model_year.data,
        mileage=form.mileage.data,
        fuel_type=form.fuel_type.data or None,
        color=form.stripped("color"),
        description=description or None,
        description_texts=_description_texts(form),
        start_price=form.start_price.data,
        bid_step=form.bid_step.data,
        reserve_price=form.reserve_price.data,
        ends_at=form.ends_at_utc(),
        item_id=item_id,
        proxy_bidding=form.proxy_bidding.data,
        soft_close_seconds=form.soft_close_seconds.data
        if form.soft_close_seconds.data is not None
        else group.soft_close_seconds,
        buy_now_price=form.buy_now_price.data,
        address_id=int(form.address_id.data) if form.address_id.data else None,
    )


def _prefill(form: AdvertForm, item) -> None:
    form.item_id.data = str(item.id)
    form.regno.data, form.brand.data, form.model.data = item.regno, item.brand, item.model
    form.vin.data = item.vin
    form.model_year.data, form.mileage.data = item.model_year, item.mileage
    form.fuel_type.data = item.fuel_type if item.fuel_type in dict(form.fuel_type.choices) else ""
    form.color.data = item.color
    first = addresses.first_of(item.division_id)
    form.address_id.data = str(first.id) if first else ""


def _division_ids(v: Viewer) -> list[int]:
    return [d.id for d in v.visible_divisions]


def _advert_form(v: Viewer, group: InstanceGroup, advert: Advert | None):
    """The add page (advert None) and a draft's edit page."""
    saved = None
    if advert is not None and request.method == "GET":
        saved = {
            name: getattr(advert, name)
            for name in (
                "regno", "vin", "brand", "model", "model_year", "mileage", "fuel_type", "color",
                "description", "description_texts", "start_price", "bid_step", "proxy_bidding",
                "soft_close_seconds", "buy_now_price", "reserve_price", "address_id",
            )
        }  # fmt: skip
        saved["address_id"] = str(saved["address_id"] or "")
        saved["fuel_type"] = saved["fuel_type"] or ""
    form = AdvertForm(data=saved, currency=group.currency)
    divisions = _division_ids(v)
    q = " ".join(request.args.get("item_q", "").split())[:20]
    item = None
    if request.method == "GET":
        if advert is None:
            form.bid_step.data = group.bid_step
            form.proxy_bidding.data = group.proxy_bidding
            form.soft_close_seconds.data = group.soft_close_seconds
            raw = request.args.get("item_id", "")
            item = advert_editing.stock_item(int(raw), divisions) if is_int(raw) else None
            if item is not None:
                _prefill(form, item)
        else:
            form.ends_at.data = to_user_timezone(advert.ends_at).replace(tzinfo=None)
            form.item_id.data = str(advert.item_id or "")
    raw_item = form.item_id.data or ""
    if item is None and is_int(raw_item):
        item = advert_editing.stock_item(int(raw_item), divisions)
    # A draft keeps its vehicle even if that has since been archived.
    kept_item = advert.item_id if advert is not None and raw_item == str(advert.item_id) else None
    images = svc.advert_images(advert.id) if advert else []
    # Images of this draft ticked for removal (another advert's ids are ignored).
    removing = {i.id for i in images if str(i.id) in request.form.getlist("remove_image")}
    # A new advert from a vehicle offers the vehicle's photos, all ticked at first; the seller
    # unticks those to leave out (another vehicle's ids are ignored).
    photos = advert_editing.vehicle_photos(item.id) if advert is None and item else []
    if request.method == "POST":
        carrying = [p for p in photos if str(p.id) in request.form.getlist("carry_photo")]
    else:
        carrying = photos[: advert_editing.MAX_IMAGES]
    status = 200
    if request.method == "POST":
        valid = form.validate()
        _address(form, item, divisions)
        valid = valid and not form.address_id.errors
        uploads = _uploads(form, kept=len(images) - len(removing) + len(carrying))
        if valid and not form.images.errors:
            publish_now = request.form.get("action") == "publish"
            data = _data(form, item.id if item else kept_item, group)
            try:
                if advert is None:
                    advert, sent = advert_editing.create_advert(
                        group, data, uploads, v.user, publish_now, carrying
                    )
                else:
                    sent = advert_editing.update_draft(
                        advert, group, data, uploads, v.user, publish_now, removing
                    )
            except UploadError as exc:
                db.session.rollback()
                form.images.errors = [str(exc)]
            else:
                db.session.commit()
                vehicle = f"{advert.title} {advert.regno}"
                if publish_now and sent:
                    flash(
                        _(
                            "%(vehicle)s is on the market. Bid links were sent to %(count)s people.",
                            vehicle=vehicle,
                            count=sent,
                        ),
                        "success",
                    )
                elif publish_now:
                    flash(
                        _(
                            "%(vehicle)s is on the market. No partner buyer has users to send bid links to yet.",
                            vehicle=vehicle,
                        ),
                        "warning",
                    )
                else:
                    flash(
                        _(
                            "%(vehicle)s was saved as a draft.",
                            vehicle=f"{advert.title} {advert.regno}",
                        ),
                        "success",
                    )
                return redirect(url_for("market.advert_page", advert_id=advert.id))
        status = 422
        if form.images.data and any(getattr(f, "filename", "") for f in form.images.data):
            form.images.description = _("Choose the images again before you save.")
    if request.method != "POST":
        _address(form, item, divisions)
    stock = advert_editing.stock_items(q, divisions) if q else []
    return _render(
        "market/adverts/form.html",
        status,
        form=form, group=group, advert=advert, item=item, item_q=q, stock=stock,
        images=images, removing=removing, photos=photos,
        carrying={p.id for p in carrying}, max_images=advert_editing.MAX_IMAGES,
        stale_rates=advert_editing.stale_rates(group), rate_max_age=group.rate_max_age_days,
        title=_("Edit advert") if advert else _("New advert"),
        time_zone=str(get_timezone()), seller_language=instance_locale(),
        seller_language_name=_language_name(instance_locale()),
    )  # fmt: skip


@bp.route("/market/advert/add", methods=["GET", "POST"])
def advert_add():
    """A new advert, typed in or started from a vehicle in stock."""
    v, group = _access("add")
    return _advert_form(v, group, None)


@bp.route("/market/adverts/<int:advert_id>/edit", methods=["GET", "POST"])
def advert_edit(advert_id: int):
    """Edit a draft (an advert on the market changes only through its status)."""
    v, group, advert = _own_advert(advert_id)
    if advert.status != "draft":
        flash(_("Only a draft can be edited."), "warning")
        return redirect(url_for("market.advert_page", advert_id=advert.id))
    return _advert_form(v, group, advert)
