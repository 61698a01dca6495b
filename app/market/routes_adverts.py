"""The signed-in advert screens (spec 01 section 2): the market list, the seller's and the
buyer's own lists and an advert's page.

Every page sits behind its main-menu entry's rule (app.shell.menu), so a user who does not see
the entry gets 403; a user without the market module gets 404. Adding and editing an advert is
app.market.routes_advert_form; the filters that write amounts and times app.market.formatting.
"""

import io

from flask import abort, flash, redirect, render_template, request, send_file, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import select

from app.auth.viewer import Viewer, viewer
from app.core import addresses, file_access
from app.core.models import utcnow
from app.core.numbers import is_int, request_int
from app.extensions import db
from app.market import adverts as svc
from app.market import bid_links, bp, reserve, watch
from app.market.filters import FILTER_NAMES, FilterForm
from app.market.groups import current_group
from app.market.links import link_path
from app.market.models import Advert, AdvertImage, InstanceGroup
from app.market.status import ALLOCATABLE, MarketError, allowed_statuses
from app.preparation.files import SMALL_CONTENT_TYPE
from app.shell.menu import MAIN_MENU

TITLES = {
    "list": _l("Adverts"),
    "my-adverts": _l("My adverts"),
    "my-assigned": _l("My assigned"),
    "my-sold": _l("My sold"),
    "my-allocations": _l("My allocations"),
    "my-deals": _l("My deals"),
}
ENTRY = {
    "list": "market.adverts",
    "my-adverts": "market.my-adverts",
    "my-assigned": "market.my-assigned",
    "my-sold": "market.my-sold",
    "my-allocations": "market.my-allocations",
    "my-deals": "market.my-deals",
    "add": "market.advert-add",
}


# --- access ------------------------------------------------------------------------------------


def _entry(key: str):
    market = next(e for e in MAIN_MENU if e.key == "market")
    return market, next(e for e in market.children if e.key == key)


def may(v: Viewer, key: str) -> bool:
    """Whether the viewer (who has the market module) sees the market's menu entry `key`."""
    market, entry = _entry(ENTRY.get(key, key))
    return bool(market.rule(v) and entry.rule(v))


def _access(key: str, need_group: bool = True) -> tuple[Viewer, InstanceGroup | None]:
    """The viewer and its market group, if the viewer has the market module (else 404) and
    sees the menu entry `key` (else 403)."""
    v = viewer()
    if "market" not in v.modules:
        abort(404)
    if not may(v, key):
        abort(403)
    group = current_group()
    if group is None and need_group:
        abort(404)
    return v, group


def _page_number() -> int:
    return request_int("page", 1, low=1)


def _search() -> str:
    return " ".join(request.args.get("q", "").split())[: svc.SEARCH_MAX]


def _link(**changes) -> str:
    """This page's URL with its search, filters and page, some of them changed."""
    kept = {name: request.args.get(name) for name in FILTER_NAMES}
    params = {**kept, "q": _search() or None, "page": _page_number(), **changes}
    params = {k: v for k, v in params.items() if v not in (None, "", 1)}
    return url_for(request.endpoint, **(request.view_args or {}), **params)


def _window(page: svc.Page) -> list[int | None]:
    return page.window()


def _render(template: str, status: int = 200, commit: bool = False, **context):
    """The page; with `commit`, links made while building it are stored once it is rendered
    (a commit expires the rows the template reads, which would cost a query per row)."""
    html = render_template(template, link=_link, window=_window, **context)
    if commit:
        db.session.commit()
    return html, status


# --- the lists ---------------------------------------------------------------------------------


@bp.get("/market/adverts/list")
def adverts_list():
    """The adverts on the market the viewer's company may see and bid on."""
    v, group = _access("list", need_group=False)
    page = _page_number()
    filters = FilterForm(request.args, currency=group.currency if group else "")
    valid = filters.validate()
    criteria = filters.criteria() if valid else None
    result = svc.Page([], 0, 1)
    if group is not None and criteria is not None:
        result = svc.market_page(group, criteria.conditions(group), page)
    watched: set[int] = set()
    if group is not None and result.rows:
        adverts = [r.advert for r in result.rows]
        foreign = [a for a in adverts if a.seller_group_id != group.id]
        if group.buyer and foreign:
            result.own_best = svc.own_best_bids([a.id for a in foreign], group.id)
            links = bid_links.links_for(foreign, v.user.id, group, "bid")
            result.links = bid_links.public_paths(foreign, links, group.hash, "bid")
            watched = watch.watched_ids(v.user.id, [a.id for a in foreign])
    return _render(
        "market/adverts/list.html",
        422 if not valid else 200,
        commit=True, page=result, group=group, q=filters.q.data or "", filters=filters,
        criteria=criteria, watched=watched, title=TITLES["list"], now=utcnow(),
    )  # fmt: skip


@bp.get("/market/adverts/<any('my-adverts', 'my-assigned', 'my-sold'):name>")
def seller_list(name: str):
    """The seller's adverts: on the market or not yet (my-adverts), allocated, or sold."""
    v, group = _access(name)
    q, page = _search(), _page_number()
    result = svc.seller_page(group, name, q, page)
    adverts = [r.advert for r in result.rows]
    if name != "my-sold" and adverts:
        links = bid_links.links_for(adverts, v.user.id, group, "seller")
        result.links = {
            a.id: link_path(links[a.id], "allocate", group.hash, a.hash)
            for a in adverts
            if a.status in ALLOCATABLE and a.bid_count
        }
        result.change_links = {
            a.id: link_path(links[a.id], "change-status", group.hash, a.hash)
            for a in adverts
            if allowed_statuses(a)
        }
    return _render(
        "market/adverts/seller_list.html",
        commit=True, page=result, group=group, q=q, name=name, title=TITLES[name],
    )  # fmt: skip


@bp.get("/market/adverts/<any('my-allocations', 'my-deals'):name>")
def buyer_list(name: str):
    """The adverts partners allocated (my-allocations) or sold (my-deals) to the viewer's
    company."""
    _v, group = _access(name)
    q, page = _search(), _page_number()
    result = svc.buyer_page(group, name, q, page)
    return _render(
        "market/adverts/buyer_list.html",
        page=result, group=group, q=q, name=name, title=TITLES[name],
    )  # fmt: skip


# --- one advert --------------------------------------------------------------------------------


def _visible_advert(advert_id: int) -> tuple[Viewer, InstanceGroup, Advert]:
    v, group = _access("list")
    advert = svc.find_advert(advert_id, group)
    if advert is None:
        abort(404)
    return v, group, advert


@file_access.rule("market.advert-image")
def _advert_image_readable(file_object_id: int) -> bool | None:
    """An advert's image may be read by the users who may see that advert in the market (None:
    the file is no advert's image)."""
    advert_ids = list(
        db.session.scalars(
            select(AdvertImage.advert_id)
            .where(AdvertImage.file_object_id == file_object_id)
            .execution_options(all_instances=True)
        )
    )
    if not advert_ids:
        return None
    if "market" not in viewer().modules:
        return False
    group = current_group()
    return group is not None and any(svc.find_advert(a, group) is not None for a in advert_ids)


def _own_advert(advert_id: int) -> tuple[Viewer, InstanceGroup, Advert]:
    """An advert of the viewer's own company, for the seller's actions."""
    v, group = _access("my-adverts")
    advert = svc.find_advert(advert_id, group)
    if advert is None or advert.seller_group_id != group.id:
        abort(404)
    return v, group, advert


@bp.get("/market/adverts/<int:advert_id>")
def advert_page(advert_id: int):
    """An advert: the vehicle, its images, its bids and the viewer's links."""
    return _advert_detail(advert_id)


def _advert_detail(advert_id: int, status: int = 200, counter: dict | None = None):
    """The advert's page; `counter` keeps a refused counteroffer's typed price and message."""
    v, group, advert = _visible_advert(advert_id)
    own = advert.seller_group_id == group.id
    seller_group = advert.seller_group if not own else group
    links = {}
    if own:
        link = bid_links.links_for([advert], v.user.id, group, "seller")[advert.id]
        if advert.status in ALLOCATABLE and advert.bid_count:
            links["allocate"] = link_path(link, "allocate", group.hash, advert.hash)
        if allowed_statuses(advert):
            links["change"] = link_path(link, "change-status", group.hash, advert.hash)
    elif group.buyer and advert.status == "published" and svc.aware(advert.ends_at) > utcnow():
        link = bid_links.links_for([advert], v.user.id, group, "bid")[advert.id]
        links["bid"] = link_path(link, "bid", group.hash, advert.hash)
    elif advert.status == "provisional" and advert.provisional_group_id == group.id:
        link = bid_links.links_for([advert], v.user.id, group, "bid")[advert.id]
        links["answer"] = link_path(link, "bid", group.hash, advert.hash)
    bids = svc.bid_lines(advert, group)
    best = max((b.bid.advert_amount for b in bids if b.bid.group_id == group.id), default=None)
    allocated_in = svc.allocation_in_buyer_currency(advert, bids)
    return _render(
        "market/adverts/detail.html",
        commit=True,
        advert=advert, group=group, own=own, seller_name=seller_group.name, links=links,
        bids=bids, images=svc.advert_images(advert.id),
        location=addresses.shown(advert.address_id, advert.instance_id),
        sent_links=bid_links.sent_bid_links(advert) if own else [],
        leads=best is not None and best == advert.highest_bid, allocated_in=allocated_in,
        can_watch=watch.may_watch(advert, group),
        watched=advert.id in watch.watched_ids(v.user.id, [advert.id]),
        title=f"{advert.title} · {advert.regno}",
        reserve_not_met=reserve.reserve_not_met(advert), now=utcnow(),
        counter=counter or {}, status=status,
        provisional_name=_group_name(advert.provisional_group_id) if own else None,
    )  # fmt: skip


def _group_name(group_id: int | None) -> str | None:
    if group_id is None:
        return None
    return db.session.scalar(
        select(InstanceGroup.name)
        .where(InstanceGroup.id == group_id)
        .execution_options(all_instances=True)
    )


@bp.post("/market/adverts/<int:advert_id>/reserve")
def reserve_decision(advert_id: int):
    """The seller's answer to a provisional sale: accept the highest bid, decline it, or
    counter with a higher price (app.market.reserve); a refusal shows the page again (422)
    with the typed price and the reason."""
    v, _group, advert = _own_advert(advert_id)
    decision = request.form.get("decision", "")
    raw = (request.form.get("counter_price") or "").replace("\u00a0", "").replace(" ", "")
    price = int(raw) if is_int(raw, high=10**12) else None
    advert_id = advert.id
    try:
        if decision == "counter" and raw and price is None:
            raise MarketError(_("Enter a whole number, without decimals."), "INVALID_VALUE")
        reserve.seller_decides(advert_id, decision, v.user.id, price)
    except MarketError as exc:
        db.session.rollback()
        typed = request.form.get("counter_price", "")[:20]
        return _advert_detail(advert_id, 422, {"value": typed, "error": exc.message})
    db.session.commit()
    messages = {
        "accept": _("You accepted the highest bid: the vehicle is allocated to the bidder."),
        "decline": _("You declined the highest bid: the advert is closed unsold."),
        "counter": _("Your counteroffer is sent to the bidder."),
    }
    flash(messages[decision], "success")
    return redirect(url_for("market.advert_page", advert_id=advert_id))


@bp.get("/market/adverts/<int:advert_id>/images/<int:image_id>")
def advert_image(advert_id: int, image_id: int):
    """One of an advert's images (?size=small: the small variation), for whoever may see it."""
    _v, _group, advert = _visible_advert(advert_id)
    file = svc.image_file(advert, image_id)
    if file is None:
        abort(404)
    small = request.args.get("size") == "small" and file.small is not None
    response = send_file(
        io.BytesIO(file.small if small else file.data),
        mimetype=SMALL_CONTENT_TYPE if small else file.content_type,
        download_name=file.name,
        max_age=3600,
    )
    response.headers["Cache-Control"] = "no-store"  # a private file: never kept by a cache
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@bp.route("/market/adverts/<int:advert_id>/send-bid-links", methods=["GET", "POST"])
def send_bid_links(advert_id: int):
    """E-mail every partner buyer's users their personal bid link to a published advert; the
    GET shows who gets one (names and companies) and asks first."""
    _v, group, advert = _own_advert(advert_id)
    from_list = request.values.get("next") == "list"
    back = url_for("market.advert_page", advert_id=advert.id)
    if from_list:
        back = url_for("market.seller_list", name="my-adverts")
    if advert.status != "published":
        flash(_("Bid links can only be sent for a published advert."), "warning")
        return redirect(back)
    if request.method == "GET":
        return _render(
            "market/adverts/send_bid_links.html",
            advert=advert,
            recipients=bid_links.bid_link_recipients(group),
            back=back,
            from_list=from_list,
            title=_("Send bid links"),
        )
    sent = bid_links.send_bid_links(advert, group)
    db.session.commit()
    if sent:
        flash(_("Bid links were sent to %(count)s people.", count=sent), "success")
    else:
        flash(_("No buyer has users to send bid links to yet. Invite companies first."), "warning")
    return redirect(back)
