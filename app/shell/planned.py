"""Routes whose screens later features build. Each answers a real page in the shell that says
what will be there, so that every menu entry and link works from the start."""

from flask import Blueprint, abort, redirect, render_template, url_for
from flask_babel import lazy_gettext as _l

from app.core.pages import public_page
from app.shell.menu import can_administer
from app.shell.viewer import viewer

bp = Blueprint("planned", __name__)

AREAS = {
    "dashboard": _l(
        "Your own dashboard of widgets: key numbers, charts, lists and goals for the divisions you choose."
    ),
    "lists": _l("Your saved vehicle filters, each one a list that keeps itself up to date."),
    "vehicles": _l(
        "The vehicles in this state with time in state, warnings and station progress, sortable and filtered by the division selector."
    ),
    "statistics": _l(
        "Throughput per week and month, days per state and per station and stock days, as charts with a table beside each."
    ),
    "add_vehicle": _l("The form for adding a vehicle, with registration number and VIN checks."),
    "overview": _l("One searchable, filterable table of every vehicle in the module."),
    "module_admin": _l("The settings of this module for your divisions."),
    "item": _l("The vehicle's details, station tasks, files, comments and history."),
    "station": _l(
        "The vehicles waiting at your station, with their tasks to start and finish from a phone."
    ),
    "profile": _l("Your station profile."),
    "custom_lists": _l("Create, rename and delete your custom lists and choose their vehicles."),
    "custom_list": _l("The vehicles of this custom list, with unseen vehicles highlighted."),
    "events": _l("Your upcoming events."),
    "purchase": _l(
        "Purchase analyses: valuations, calculations and model analyses of vehicles you may buy."
    ),
    "quick_test": _l("Quick tests: vehicle test protocols with images, to print or share by link."),
    "market": _l("The marketplace: adverts, bids, allocations and deals with invited companies."),
    "admin": _l("This administration screen."),
    "invite": _l("The invitation page where an invited company registers as a bidder."),
    "bid": _l(
        "The page where an invited bidder bids, or a seller allocates an advert or changes its status."
    ),
    "pdf": _l("A printable PDF view."),
    "quick_test_view": _l("A shared quick test protocol."),
    "interactions": _l("Interactions."),
}
FEATURES = {
    "dashboard": _l("My dashboard"),
    "preparation": _l("Vehicle preparation"),
    "purchase": _l("Purchase analysis"),
    "quick_test": _l("Quick test"),
    "market": _l("Market"),
    "admin": _l("Administration"),
    "events": _l("Events"),
}


def _page(title, area: str, feature: str, public: bool = False):
    return render_template(
        "shell/planned.html" if not public else "shell/planned_public.html",
        title=title,
        description=AREAS[area],
        feature=FEATURES[feature],
    )


def _vehicle_module(module: str) -> str:
    if module not in ("begcare", "newcare"):
        abort(404)
    return module


# --- logged-in routes ---------------------------------------------------------------------------


@bp.get("/my-dashboard")
def my_dashboard():
    if viewer().is_global:
        abort(404)
    return _page(_l("My dashboard"), "dashboard", "dashboard")


@bp.get("/<any(begcare, newcare):module>/dashboard")
def module_dashboard(module: str):
    return _page(_l("Dashboard"), "dashboard", "preparation")


@bp.get("/my-events")
def my_events():
    if not viewer().configuration("enable_my_events"):
        abort(404)
    return _page(_l("My events"), "events", "events")


@bp.get("/purchase-analysis/<any(list, 'approval-requests', statistics, create):page>")
def purchase_analysis(page: str):
    titles = {
        "list": _l("Analyses"), "approval-requests": _l("Approval requests"),
        "statistics": _l("Statistics"), "create": _l("New analysis"),
    }  # fmt: skip
    return _page(titles[page], "purchase", "purchase")


@bp.get("/quick-test")
def quick_test():
    return _page(_l("Quick test"), "quick_test", "quick_test")


MARKET_PAGES = {
    "dashboard": _l("Market dashboard"),
    "adverts/list": _l("Adverts"),
    "adverts/my-allocations": _l("My allocations"),
    "adverts/my-deals": _l("My deals"),
    "vehicle-requests": _l("Vehicle requests"),
    "adverts/my-adverts": _l("My adverts"),
    "adverts/my-assigned": _l("My assigned"),
    "adverts/my-sold": _l("My sold"),
    "statistics": _l("Statistics"),
    "settings": _l("Market settings"),
    "vehicle-request/add": _l("New vehicle request"),
    "advert/add": _l("New advert"),
}


@bp.get("/market/<path:page>")
def market(page: str):
    if page not in MARKET_PAGES:
        abort(404)
    return _page(MARKET_PAGES[page], "market", "market")


@bp.get("/admin/<path:page>")
def admin(page: str):
    from app.shell.menu import ADMIN_MENU

    v = viewer()
    if not can_administer(v):
        abort(403)
    for group in ADMIN_MENU:
        for entry in group.children:
            if entry.path == f"/admin/{page}":
                if not (group.rule(v) and entry.rule(v)):
                    abort(403)
                return _page(entry.title, "admin", "admin")
        if group.path == f"/admin/{page}" and group.rule(v):
            return render_template("shell/admin_index.html", group=group)
    abort(404)


# --- public routes ----------------------------------------------------------------------------


@bp.get("/market-invite/<invite_hash>")
@public_page
def market_invite(invite_hash: str):
    return _page(_l("Invitation"), "invite", "market", public=True)


@bp.get("/market-bid/<action>/<group_hash>/<advert_hash>/<user_hash>")
@public_page
def market_bid(action: str, group_hash: str, advert_hash: str, user_hash: str):
    """Spec 01: bid, allocate or change-status; any other action goes to login."""
    if action not in ("bid", "allocate", "change-status"):
        return redirect(url_for("auth.login"))
    return _page(_l("Market"), "bid", "market", public=True)


@bp.get("/pdf-preview/quick-test/<int:test_id>")
@public_page
def pdf_quick_test(test_id: int):
    return _page(_l("Quick test"), "pdf", "quick_test", public=True)


@bp.get("/pdf-preview/purchase-analysis/<int:analysis_id>")
@public_page
def pdf_purchase_analysis(analysis_id: int):
    return _page(_l("Purchase analysis"), "pdf", "purchase", public=True)


@bp.get("/quick-test/view/")
@bp.get("/quick-test/view/<uuid>")
@public_page
def quick_test_view(uuid: str | None = None):
    return _page(_l("Quick test"), "quick_test_view", "quick_test", public=True)


@bp.get("/interactions")
@public_page
def interactions():
    return _page(_l("Interactions"), "interactions", "preparation", public=True)
