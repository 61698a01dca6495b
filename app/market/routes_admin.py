"""The market's pages for signed-in users: dashboard, statistics, settings, invites and
vehicle requests. Each page is guarded by its main-menu entry's rule (app.shell.menu): a user
who does not see the entry gets 403. Views load, authorise, call the market's services and commit
once."""

from __future__ import annotations

import click
from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import format_date, format_decimal, format_timedelta
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import func, select

from app.auth.viewer import Viewer, viewer
from app.core.models import utcnow
from app.core.times import moment
from app.extensions import db
from app.market import bid_totals, bp, reserve
from app.market.admin_forms import (
    ADVERT_DEFAULTS,
    LANGUAGE_NAMES,
    InviteForm,
    SettingsForm,
    VehicleRequestForm,
)
from app.market.figures import buyer_ending, buyer_numbers, seller_ending, seller_numbers
from app.market.formatting import advert_money
from app.market.groups import current_group
from app.market.invites import create_invite
from app.market.models import AdvertBidMonth, InstanceGroup
from app.market.partners import (
    invitable_companies,
    invitable_group,
    open_invite_exists,
    partners,
    sent_invites,
)
from app.market.settings import exchange_rates, save_settings
from app.market.statistics import buyer_statistics, seller_statistics
from app.market.vehicle_requests import (
    add_request,
    known_brands,
    own_request,
    own_requests,
    partner_requests,
    set_request_active,
)
from app.shell.menu import MAIN_MENU, Entry, market_seller

MARKET = next(e for e in MAIN_MENU if e.key == "market")
FORM_METHODS = ["GET", "POST"]
# Pages without a menu entry of their own, with the rule that shows them.
INVITES = Entry("market.invites", _l("Invite companies"), "/market/invites", rule=market_seller)


def _entry(path: str) -> Entry:
    return next(e for e in MARKET.children if e.path == path)


def _allowed(v: Viewer, entry: Entry) -> bool:
    return MARKET.rule(v) and entry.rule(v)


def _guard(path: str) -> Viewer:
    """The viewer, when the menu shows them the entry of `path`; otherwise 403."""
    v = viewer()
    entry = INVITES if path == INVITES.path else _entry(path)
    if not _allowed(v, entry):
        abort(403)
    return v


def _group() -> InstanceGroup:
    """The viewer's market group; the menu rules that need one have already passed."""
    group = current_group()
    if group is None:
        abort(403)
    return group


def _links(v: Viewer) -> dict[str, bool]:
    """Which market pages the viewer may open, for the links between them."""
    paths = {
        "settings": "/market/settings",
        "statistics": "/market/statistics",
        "requests": "/market/vehicle-requests",
        "add_request": "/market/vehicle-request/add",
    }
    links = {key: _allowed(v, _entry(path)) for key, path in paths.items()}
    links["invites"] = _allowed(v, INVITES)
    return links


# --- formatting ----------------------------------------------------------------------------


def money(amount: int | None, currency: str) -> str:
    """advert_money, with a dash for no amount (a table cell)."""
    return "–" if amount is None else advert_money(amount, currency)


def number(value, digits: int = 0) -> str:
    if value is None:
        return "–"
    pattern = "#,##0" if not digits else "#,##0." + "0" * digits
    return format_decimal(value, format=pattern)


def percent(value: float | None) -> str:
    if value is None:
        return "–"
    return format_decimal(value / 100, format="+#,##0.0%;-#,##0.0%")


def when(value) -> str:
    return moment(value)


def ends_in(moment) -> str:
    return format_timedelta(moment - utcnow(), add_direction=True, threshold=1.1)


def month_label(day) -> str:
    return format_date(day, "LLL yyyy")


def short_month(day) -> str:
    return format_date(day, "LLL").upper().rstrip(".")


HELPERS = {
    "money": money,
    "number": number,
    "percent": percent,
    "when": when,
    "ends_in": ends_in,
    "month_label": month_label,
    "format_date": format_date,
}


def _render(template: str, status: int = 200, **context):
    return render_template(template, **HELPERS, **context), status


def _form_page(template: str, group: InstanceGroup, form, **context):
    """A page with a form not (yet) accepted: 422 when it was posted (the input kept)."""
    status = 422 if request.method == "POST" else 200
    return _render(template, status, group=group, form=form, **context)


# --- dashboard -----------------------------------------------------------------------------


@bp.get("/market/dashboard")
def dashboard():
    """Key numbers for the viewer's company as a seller and as a buyer, and what ends soon."""
    v = _guard("/market/dashboard")
    group = current_group()
    seller = buyer = None
    if group is not None and group.seller:
        seller = {"numbers": seller_numbers(group), "ending": seller_ending(group)}
    if group is not None and group.buyer:
        buyer = {"numbers": buyer_numbers(group), "ending": buyer_ending(group)}
    return _render(
        "market/dashboard.html", group=group, seller=seller, buyer=buyer, links=_links(v)
    )


# --- statistics ----------------------------------------------------------------------------


def _chart(label: str, months: list, series: list[tuple[str, str]]) -> dict:
    """A bar chart of monthly rows: one dataset per (label, attribute of the row)."""
    return {
        "type": "bar",
        "label": label,
        "labels": [short_month(m.month) for m in months],
        "datasets": [
            {"label": name, "data": [getattr(m, attr) for m in months]} for name, attr in series
        ],
        "unit": "",
    }


@bp.get("/market/statistics")
def statistics():
    """Twelve months of the company's market: as a seller and as a buyer."""
    _guard("/market/statistics")
    group = _group()
    seller = buyer = seller_chart = buyer_chart = None
    if group.seller:
        seller = seller_statistics(group)
        seller_chart = _chart(
            _("Adverts published and sold per month"),
            seller.months,
            [(_("Published"), "published"), (_("Sold"), "sold")],
        )
    if group.buyer:
        buyer = buyer_statistics(group)
        buyer_chart = _chart(
            _("Bids placed and adverts won per month"),
            buyer.months,
            [(_("Bids placed"), "bids"), (_("Adverts won"), "won")],
        )
    return _render(
        "market/statistics.html",
        group=group,
        seller=seller,
        buyer=buyer,
        seller_chart=seller_chart,
        buyer_chart=buyer_chart,
    )


# --- settings ------------------------------------------------------------------------------


@bp.route("/market/settings", methods=FORM_METHODS)
def settings():
    """Exchange rates from the company's currency, the default bid step and the terms."""
    v = _guard("/market/settings")
    group = current_group()
    if group is None:
        return _render("market/settings.html", group=None, form=None, rates={}, links=_links(v))
    rates = exchange_rates(group)
    form = SettingsForm(group.currency)
    if request.method == "GET":
        for f in form.rate_fields:
            row = rates.get(f.name.removeprefix("rate_"))
            f.data = row.rate if row is not None else None
        form.bid_step.data = group.bid_step
        form.invite_terms.data = group.invite_terms or ""
        for name in ADVERT_DEFAULTS:
            form[name].data = getattr(group, name)
        form.reserve_percent.data = group.reserve_percent
        form.decision_hours.data = group.decision_hours
    elif form.validate_on_submit():
        save_settings(
            group, form.rates, form.bid_step.data, form.invite_terms.data,
            **{name: form[name].data for name in ADVERT_DEFAULTS},
        )  # fmt: skip
        group.reserve_percent = form.reserve_percent.data
        group.decision_hours = form.decision_hours.data or reserve.DEFAULT_HOURS
        db.session.commit()
        flash(_("The market settings are saved."), "success")
        return redirect(url_for("market.settings"))
    return _form_page("market/settings.html", group, form, rates=rates, links=_links(v))


# --- invites -------------------------------------------------------------------------------


@bp.route("/market/invites", methods=FORM_METHODS)
def invites():
    """The seller's invitations and partners, and the form that invites a company."""
    v = _guard(INVITES.path)
    group = _group()
    form = InviteForm()
    form.set_companies(invitable_companies(group, v.user))
    if form.validate_on_submit():
        invited = None
        if form.existing_group.data is not None:
            invited = invitable_group(group, v.user, form.existing_group.data)
        if form.existing_group.data is not None and invited is None:
            form.existing_group.errors = [_("Choose a company from the list.")]
        elif open_invite_exists(group, form.email.data):
            form.email.errors = [
                _("An invitation to this e-mail address is already open. It is still valid.")
            ]
        else:
            name = form.company_name.data or invited.name
            create_invite(
                group,
                company_name=name,
                email=form.email.data,
                company_id=form.company_id.data or None,
                language=form.language.data,
                invited_group=invited,
                created_by=v.user,
            )
            db.session.commit()
            flash(
                _("%(company)s is invited. The invitation is sent to %(email)s.", company=name, email=form.email.data),
                "success",
            )  # fmt: skip
            return redirect(url_for("market.invites"))
    return _form_page(
        "market/invites.html",
        group,
        form,
        invites=sent_invites(group),
        partners=partners(group),
        language_names=LANGUAGE_NAMES,
        links=_links(v),
        entry=INVITES,
    )


# --- vehicle requests ----------------------------------------------------------------------


@bp.get("/market/vehicle-requests")
def vehicle_requests():
    """A buyer's own requests; for a seller, the active requests of its partner buyers."""
    v = _guard("/market/vehicle-requests")
    group = _group()
    return _render(
        "market/vehicle_requests.html",
        group=group,
        own=own_requests(group) if group.buyer else None,
        partner=partner_requests(group) if group.seller else None,
        links=_links(v),
    )


@bp.route("/market/vehicle-request/add", methods=FORM_METHODS)
def vehicle_request_add():
    """A buyer's new request: what it looks for, shown to the sellers it trades with."""
    v = _guard("/market/vehicle-request/add")
    group = _group()
    form = VehicleRequestForm(group.currency)
    if form.validate_on_submit():
        add_request(group, v.user.id, **form.values)
        db.session.commit()
        flash(_("Your vehicle request is saved. Your sellers can see it now."), "success")
        return redirect(url_for("market.vehicle_requests"))
    return _form_page("market/vehicle_request_form.html", group, form, brands=known_brands(group))


@bp.post("/market/vehicle-requests/<int:request_id>/<any(close, reopen):action>")
def vehicle_request_state(request_id: int, action: str):
    """Close a request that is met (sellers no longer see it) or open it again."""
    v = _guard("/market/vehicle-requests")
    group = _group()
    if not (group.buyer and _allowed(v, _entry("/market/vehicle-request/add"))):
        abort(403)
    found = own_request(group, request_id)
    if found is None:
        abort(404)
    set_request_active(found, action == "reopen")
    db.session.commit()
    if action == "close":
        flash(_("The request is closed. Sellers no longer see it."), "success")
    else:
        flash(_("The request is open again. Your sellers can see it."), "success")
    return redirect(url_for("market.vehicle_requests"))


@bp.cli.command("recount-bids")
def recount_bids_command() -> None:
    """Count the bids per seller, buyer and month (the statistics' rows) afresh from the bids:
    after bids were written past the app (a COPY, a restore, SQL by hand)."""
    bid_totals.recount()
    db.session.commit()
    rows = db.session.scalar(
        select(func.count(AdvertBidMonth.id)).execution_options(all_instances=True)
    )
    click.echo(f"{rows} rows of bids per seller, buyer and month")
