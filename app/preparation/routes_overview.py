"""The state lists and the overview of vehicles, and a listed vehicle's extended details (JSON)."""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from functools import cached_property
from typing import NamedTuple
from urllib.parse import urlencode

from flask import (
    abort,
    get_template_attribute,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from markupsafe import Markup
from pydantic import Field
from sqlalchemy import select
from sqlalchemy.orm import selectinload
from werkzeug.datastructures import iter_multi_items

from app.auth.viewer import viewer
from app.core import fragments
from app.core.api import Schema, api_call
from app.core.colours import colour_name
from app.core.formatting import decimal_format
from app.core.i18n import current_locale
from app.core.models import utcnow
from app.core.numbers import request_int
from app.core.workdays import DayCounter, calendar_days, day_counter
from app.extensions import db
from app.preparation import api_bp, bp, locations, salespeople, tags
from app.preparation import items as svc
from app.preparation.models import (
    ItemStationTask,
    PreparationItem,
    full_model_name,
)
from app.preparation.queries import (
    COUNT_CAP,
    ItemFilters,
    Page,
    counter_total,
    division_scope,
    in_stock,
    item_query,
    paginate,
    parse_sort,
)
from app.preparation.routes_items import (
    MODULE_RULE,
    PER_PAGE,
    SEGMENTS,
    URL_SAFE,
    _module,
    _visible_ids,
    _visible_names,
)
from app.preparation.states import BY_ID, BY_SEGMENT, STATES, state_enabled
from app.shell.layout import COUNTS, shell_counts

LIST_SORTS = ("regno", "model", "division", "days", "mileage", "price")
OVERVIEW_SORTS = (*LIST_SORTS, "state")


class Row(NamedTuple):
    """One row of the item table, every cell's value worked out in Python: the macro prints."""

    id: int
    css: str  # "row-warning", " row-advert", both or neither
    href: str  # the item's page
    regno: str
    warning: bool
    model: str
    model_year: int | None
    division: str
    state: str
    days: int
    mileage: str  # formatted, "" when unknown
    price: str
    done: int
    total: int
    progress_title: Markup | None  # "%(done)s of %(total)s stations done"; None: no stations
    parking: str  # the parking location's name, "" when not given
    keys: str  # the key location's name
    labels: list  # the vehicle's tags (tags.Label)
    service_due: bool  # app/preparation/service_due.py
    seller: str  # who sold it, "" when not given (app/preparation/salespeople.py)
    recon: tuple[str, bool] | None  # actual cost formatted, and whether it is over the estimate


@dataclass
class Table:
    """What the item table macro needs: the page, the sort, the links and the row facts."""

    page: Page  # its items are svc.table_rows rows: columns, progress and advert in one
    sort: str
    sorts: tuple[str, ...]
    args: dict
    divisions: dict = field(default_factory=dict)
    now: datetime = field(default_factory=utcnow)
    number: Callable[[object], str] = field(default_factory=lambda: decimal_format("#,##0"))
    count_days: DayCounter = calendar_days  # the instance's days (app.core.workdays)
    places: dict = field(default_factory=dict)  # location id -> name
    labels: dict = field(default_factory=dict)  # item id -> its tags
    sellers: dict = field(default_factory=dict)  # seller id -> name; empty: no column
    rule_warnings: dict = field(default_factory=dict)  # item id -> its rules' warnings

    @classmethod
    def build(cls, page: Page, sort: str, sorts: tuple[str, ...], args: dict) -> "Table":
        v = viewer()
        divisions = {d.id: d.name for d in v.visible_divisions}
        module = (request.view_args or {}).get("module", "")
        places = locations.names(module, divisions) if page.items else {}
        labels = tags.of_items(row[0] for row in page.items)
        # The salesperson column only for a page with sold vehicles (one small query then).
        sold = any(row.salesperson_id is not None for row in page.items)
        sellers = salespeople.names(divisions) if sold else {}
        warnings = tags.rule_warnings((row[0] for row in page.items), v.instance)
        return cls(
            page, sort, sorts, args, divisions=divisions, count_days=day_counter(v.instance),
            places=places, labels=labels, sellers=sellers, rule_warnings=warnings,
        )  # fmt: skip

    @cached_property
    def _prefix(self) -> str:
        """The path and the filters' part of the query string, the same for every link."""
        path = url_for(request.endpoint, **(request.view_args or {}))
        return f"{path}?{_query(self.args)}&" if self.args else f"{path}?"

    def link(self, *, page: int | None, sort: str | None = None) -> str:
        """This page's URL with the filters, the sort (this one unless given) and the page
        (none for the first): what `url_for` writes for them, the path built once per table."""
        params = {"sort": self.sort if sort is None else sort}
        if page not in (None, 1):
            params["page"] = page
        return self._prefix + _query(params)

    def head(self, show_state: bool) -> Markup:
        """The header row with its sort links."""
        return self._part("table_head", (show_state, self.sorts, bool(self.sellers)), show_state)

    def pager(self) -> Markup:
        """The summary of the page and the links to the others."""
        p = self.page
        return self._part("pager", (p.page, p.per_page, p.total, p.capped, len(p.items)))

    def _part(self, macro: str, facts: tuple, *args) -> Markup:
        """A part of the item table macro, the same for every request with the same locale,
        links (path and filters), sort and `facts`: rendered once per such key."""
        key = ("item-table", macro, current_locale(), self._prefix, self.sort, facts)
        render = get_template_attribute("preparation/items/_table.html", macro)
        return fragments.with_csrf(key, lambda: render(self, *args))

    def page_window(self) -> list[int | None]:
        """Page numbers around the current one, with the first and last; None for a gap."""
        return self.page.window()

    def _recon(self, estimate, actual) -> tuple[str, bool] | None:
        """The actual reconditioning cost, and whether it is over the estimate (None: no lines)."""
        if estimate is None and actual is None:
            return None
        return self.number(round(actual or 0)), (actual or 0) > (estimate or 0)

    @cached_property
    def rows(self) -> list[Row]:
        """The page's rows (svc.table_rows: unpacked in its columns' order). What is the same
        for many rows (a state's title, a progress label, the number format) is worked out
        once per table, not per row."""
        number, divisions, places = self.number, self.divisions, self.places
        states: dict[int, str] = {}
        titles: dict[tuple[int, int], Markup] = {}
        # As Jinja's {{ _(msgid, done=.., total=..) }}: the translation is markup, the numbers
        # are formatted into it.
        label = Markup(_("%(done)s of %(total)s stations done"))  # noqa: S704
        rows = []
        for (
            item_id, module, state, regno, warning, brand, model, series, model_year,
            division_id, changed_at, mileage, price, done, total, advert, parking, keys,
            service_due, seller, recon_estimate, recon_actual,
        ) in self.page.items:  # fmt: skip
            if total and (done, total) not in titles:
                titles[done, total] = label % {"done": done, "total": total}
            if state not in states:
                states[state] = str(BY_ID[state].title)
            rows.append(
                Row(
                    item_id,
                    ("row-warning" if warning else "") + (" row-advert" if advert else ""),
                    svc.item_path(module, state, item_id),
                    regno,
                    warning,
                    full_model_name(brand, model, series),
                    model_year,
                    divisions.get(division_id, ""),
                    states[state],
                    self.count_days(changed_at, self.now, division_id),
                    "" if mileage is None else number(mileage),
                    "" if price is None else number(price),
                    done,
                    total,
                    titles[done, total] if total else None,
                    places.get(parking, ""),
                    places.get(keys, ""),
                    self.labels.get(item_id, ()),
                    service_due,
                    self.sellers.get(seller, ""),
                    self._recon(recon_estimate, recon_actual),
                )
            )
        return rows


def _query(params: dict) -> str:
    """A query string as `url_for` encodes the arguments a route does not take (Werkzeug's
    rule: in order, None left out)."""
    items = [(k, v) for k, v in iter_multi_items(params) if v is not None]
    return urlencode(items, safe=URL_SAFE)


# What the search (spec 01: division and searchphrase) puts into the overview's URL, and the
# overview's own "search archived vehicles too" (ARCHIVED_ARG).
ARCHIVED_ARG = "archived"
SEARCH_ARGS = {"division", "searchphrase", ARCHIVED_ARG}


def _is_search(args) -> bool:
    """A search: a phrase with nothing beyond the search's own arguments (no other filter, sort
    or page), so a list widget's or a saved filter's link still shows its one-row table."""
    return bool(args.get("searchphrase")) and set(args) <= SEARCH_ARGS


def _counter_total(v, module: str, scope: list[int], state: int | None) -> int:
    """`counter_total(...)`, kept per instance and counts version as the menu's counts are
    (every change of the counters renews the version)."""
    if v.instance is None:
        return counter_total(module, scope, state)
    key = ("total", v.instance.id, v.instance.counts_version, module, tuple(scope), state)
    total = COUNTS.get(key)
    if total is None:
        total = counter_total(module, scope, state)
        COUNTS.put(key, total)
    return total


def _searched(stmt, sort: str, filters: ItemFilters) -> tuple[Page, str | None]:
    """The page of the matches, and what it covers: a search phrase without a state looks
    through the vehicles in stock ("stock"), whose own trigram index does not grow with the
    archived history; the archived vehicles too with `archived=1` ("all") or when nothing in
    stock matches ("stock-none"). None: no search phrase, or a state chosen."""

    def page(stmt) -> Page:
        rows = lambda limit, offset: svc.table_rows(stmt.limit(limit).offset(offset), sort)  # noqa: E731
        return paginate(stmt, _page_number(), PER_PAGE, cap=COUNT_CAP, fetch=rows)

    if not filters.searchphrase or filters.state is not None:
        return page(stmt), None
    if request.args.get(ARCHIVED_ARG) == "1":
        return page(stmt), "all"
    found = page(stmt.where(in_stock()))
    return (found, "stock") if found.total else (page(stmt), "stock-none")


def _with_archived_link(covers: str | None) -> str | None:
    """This overview's URL searching the archived vehicles too (when it searched the stock)."""
    if covers != "stock":
        return None
    args = [(k, a) for k, a in request.args.items(multi=True) if k not in (ARCHIVED_ARG, "page")]
    path = url_for("preparation.overview", **(request.view_args or {}))
    return f"{path}?{_query([*args, (ARCHIVED_ARG, '1')])}"


def _page_number() -> int:
    return request_int("page", 1, low=1)


@bp.get(f"/{MODULE_RULE}/items/<any({SEGMENTS}):segment>")
def state_list(module: str, segment: str):
    """The vehicles in one state, for the divisions of the division selector."""
    _module(module)
    state = BY_SEGMENT[segment]
    v = viewer()
    if not state_enabled(v, module, state):
        abort(404)
    sort = parse_sort(request.args.get("sort"), "-days")
    if sort.lstrip("-") not in LIST_SORTS:
        sort = "-days"
    # The maintained counters give the total without counting items (the shell read them).
    total = shell_counts(v).get(module, {}).get(state.id, 0)
    divisions = v.selected_division_ids
    rows = lambda limit, offset: svc.scope_table_rows(  # noqa: E731
        module, divisions, state.id, sort, limit, offset
    )
    page = paginate(None, _page_number(), PER_PAGE, total=total, fetch=rows)
    table = Table.build(page, sort, LIST_SORTS, {})
    return render_template("preparation/items/state_list.html", module=module, state=state, t=table)


@bp.get(f"/{MODULE_RULE}/overview")
def overview(module: str):
    """Every vehicle of the module with the search phrase and the filters a link can carry.
    A filter URL carries no empty parameters (the filter form sends every field: the answer
    is the same URL without them); a search with exactly one match opens the vehicle."""
    _module(module)
    given = list(request.args.items(multi=True))
    filled = [(k, a) for k, a in given if a.strip()]
    if len(filled) != len(given):
        path = url_for("preparation.overview", module=module)
        return redirect(f"{path}?{_query(filled)}" if filled else path)
    v = viewer()
    error = error_field = None
    try:
        filters = ItemFilters.from_args(request.args)
    except ValueError as exc:
        error, filters = str(exc), None
        error_field = getattr(exc, "field", None)
    sort = parse_sort(request.args.get("sort"), "-state_changed_at")
    table = covers = None
    if filters is not None:
        scope = division_scope(filters.division, v.visible_divisions, v.selected_division_ids)
        if filters.only_scope:  # the maintained counters know the total
            total = _counter_total(v, module, scope, filters.state)
            rows = lambda limit, offset: svc.scope_table_rows(  # noqa: E731
                module, scope, filters.state, sort, limit, offset
            )
            page = paginate(None, _page_number(), PER_PAGE, total=total, fetch=rows)
        else:  # count the matches, up to a cap that keeps broad searches fast
            stmt = item_query(module, scope, filters=filters, sort=sort)
            page, covers = _searched(stmt, sort, filters)
        args = filters.to_args() | ({ARCHIVED_ARG: "1"} if covers == "all" else {})
        table = Table.build(page, sort, OVERVIEW_SORTS, args)
        if _is_search(request.args) and page.total == 1:
            return redirect(table.rows[0].href)
    # The form shows the arguments (and the error they make) in the module's and locale's
    # words with the viewer's division choices: the same HTML for every request with these.
    place_filters = locations.filter_choices(module, _visible_names())
    seller_filter = salespeople.filter_choices(_visible_names())
    tag_filter = tuple((t.id, t.name) for t in tags.available())
    key = (
        "overview-filters", current_locale(), request.script_root, module,
        v.division_choices, place_filters, tag_filter, seller_filter, request.query_string,
    )  # fmt: skip
    filter_form = fragments.with_csrf(
        key,
        lambda: render_template(
            "preparation/items/_filters.html",
            module=module,
            error=error,
            error_field=error_field,
            raw=request.args,
            states=STATES,
            fuel_types=svc.FUEL_TYPES,
            division_choices=v.division_choices,
            place_filters=place_filters,
            tag_filter=tag_filter,
            seller_filter=seller_filter,
        ),
    )
    html = render_template(
        "preparation/items/overview.html", module=module, t=table, filter_form=filter_form,
        covers=covers, with_archived=_with_archived_link(covers),
    )  # fmt: skip
    return html, (422 if error else 200)


# --- the extended details (JSON) --------------------------------------------------------------


class TaskOut(Schema):
    id: int
    station: str
    status: str
    ordering: int
    target_minutes: int = Field(serialization_alias="targetMinutes")
    started_at: str | None = Field(serialization_alias="startedAt")
    finished_at: str | None = Field(serialization_alias="finishedAt")


class DivisionOut(Schema):
    id: int
    name: str


class ItemExtended(Schema):
    id: int
    module: str
    state: int
    state_segment: str = Field(serialization_alias="stateSegment")
    state_title: str = Field(serialization_alias="stateTitle")
    regno: str
    vin: str | None
    brand: str
    model: str
    model_series: str | None = Field(serialization_alias="modelSeries")
    model_year: int | None = Field(serialization_alias="modelYear")
    full_model_name: str = Field(serialization_alias="fullModelName")
    fuel_type: str | None = Field(serialization_alias="fuelType")
    color: str | None
    mileage: int | None
    purchase_price: str | None = Field(serialization_alias="purchasePrice")
    sales_price: str | None = Field(serialization_alias="salesPrice")
    division: DivisionOut
    warning: bool
    days_in_state: int = Field(serialization_alias="daysInState")
    state_changed_at: str = Field(serialization_alias="stateChangedAt")
    stations: list[TaskOut]
    manage_url: str = Field(serialization_alias="manageUrl")


def _money(value) -> str | None:
    return None if value is None else str(Decimal(str(value)).quantize(Decimal("0.01")))


def _iso(value) -> str | None:
    return value.isoformat() if value is not None else None


@api_call(api_bp, "/preparation-items/<int:item_id>/list-extended", response=ItemExtended)
def item_list_extended(item_id: int):
    """The extended details of an item: fields, state, division, station tasks, warning."""
    v = viewer()
    item = db.session.scalars(
        select(PreparationItem).where(
            PreparationItem.id == item_id,
            PreparationItem.module.in_(v.modules),
            PreparationItem.division_id.in_(_visible_ids()),
        )
    ).first()
    if item is None:
        abort(404)
    tasks = db.session.scalars(
        select(ItemStationTask)
        .where(ItemStationTask.item_id == item.id)
        .options(selectinload(ItemStationTask.station))
        .order_by(ItemStationTask.ordering, ItemStationTask.id)
    ).all()
    division = next(d for d in v.visible_divisions if d.id == item.division_id)
    return ItemExtended(
        id=item.id, module=item.module, state=item.state,
        state_segment=BY_ID[item.state].segment, state_title=str(BY_ID[item.state].title),
        regno=item.regno, vin=item.vin, brand=item.brand, model=item.model,
        model_series=item.model_series, model_year=item.model_year,
        full_model_name=item.full_model_name, fuel_type=item.fuel_type, color=colour_name(item.color),
        mileage=item.mileage, purchase_price=_money(item.purchase_price),
        sales_price=_money(item.sales_price),
        division=DivisionOut(id=division.id, name=division.name), warning=item.warning,
        days_in_state=day_counter(v.instance)(item.state_changed_at, utcnow(), item.division_id),
        state_changed_at=_iso(item.state_changed_at),
        stations=[
            TaskOut(
                id=t.id, station=t.station.shown_name, status=t.status, ordering=t.ordering,
                target_minutes=t.target_minutes, started_at=_iso(t.started_at),
                finished_at=_iso(t.finished_at),
            )
            for t in tasks
        ],
        manage_url=svc.manage_path(item),
    )  # fmt: skip
