"""The one item query behind the state lists, the overview and every other item table.

`ItemFilters.from_args(request.args)` reads the filters a link can carry (spec 02 section 2:
widget item filters as route parameters, `advancedFilter[name]`, `enum[state]`, `division`,
`searchphrase`); `item_query(...)` turns them into one SELECT; `paginate(...)` runs it as one
count and one page of rows.
"""

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import Select, and_, case, false, func, literal_column, select

from app.core.models import Division, Region, utcnow
from app.core.numbers import is_int
from app.core.pgconnection import plan_for_parameters
from app.core.tenancy import active_instance_id
from app.extensions import db
from app.preparation.models import ItemStateCount, ItemStationTask, ItemTag, PreparationItem
from app.preparation.recon_models import ACTUAL, ESTIMATE, ReconLine
from app.preparation.states import ARCHIVED, BY_ID

DIVISION_VALUE = re.compile(r"^(all|(division|region|country)-([0-9]{1,10}))$")
MAX_PHRASE = 100

# The advanced filters a link may carry as advancedFilter[name]=value: name -> (kind, meaning).
# Kinds: "int" (a whole number >= 0), "text" (matched case-insensitively, whole value).
ADVANCED_FILTERS: dict[str, str] = {
    "mileageFrom": "int",  # mileage at least
    "mileageTo": "int",  # mileage at most
    "priceFrom": "int",  # sales price at least
    "priceTo": "int",  # sales price at most
    "modelYearFrom": "int",
    "modelYearTo": "int",
    "daysInStateFrom": "int",  # in its state for at least this many days
    "daysInStateTo": "int",  # in its state for at most this many days
    "color": "text",
    "modelSeries": "text",
    "station": "int",  # has an unfinished task at this station (id)
    "parkingLocation": "int",  # parked at this location (id; app/preparation/locations.py)
    "keyLocation": "int",  # its keys are at this location (id)
    "deliveryLocation": "int",  # delivered from this location (id)
    "tag": "int",  # carries this tag (id; app/preparation/tags.py)
    "salesperson": "int",  # sold by this seller user (id; 0: by nobody given)
    "overEstimate": "flag",  # its actual reconditioning cost is above its estimate (yes/no)
}
ADVANCED_LABELS = {
    "mileageFrom": _l("Mileage from"),
    "mileageTo": _l("Mileage to"),
    "priceFrom": _l("Sales price from"),
    "priceTo": _l("Sales price to"),
    "modelYearFrom": _l("Model year from"),
    "modelYearTo": _l("Model year to"),
    "daysInStateFrom": _l("Days in state from"),
    "daysInStateTo": _l("Days in state to"),
    "color": _l("Colour"),
    "modelSeries": _l("Model series"),
    "station": _l("Station"),
    "parkingLocation": _l("Parking location"),
    "keyLocation": _l("Key location"),
    "deliveryLocation": _l("Delivery location"),
    "tag": _l("Tag"),
    "salesperson": _l("Salesperson"),
    "overEstimate": _l("Over estimate"),
}
TRUE_VALUES, FALSE_VALUES = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


@dataclass
class ItemFilters:
    """The filters of an item table, as a link or the filter form carries them."""

    searchphrase: str = ""
    state: int | None = None
    division: str | None = None  # 'all' or '{division|region|country}-{id}'; None: the selector's
    brand: str | None = None
    model: str | None = None
    fuel_type: str | None = None
    model_year: int | None = None
    warning: bool | None = None
    service_due: bool | None = None  # app/preparation/service_due.py
    advanced: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_args(cls, args: Mapping[str, str]) -> "ItemFilters":
        """Read the filters from request arguments; unknown names are ignored.

        Raises ValueError with a translated message for a malformed value."""
        get = lambda name: (args.get(name) or "").strip()  # noqa: E731
        filters = cls()
        filters.searchphrase = " ".join(get("searchphrase").split())[:MAX_PHRASE]
        if raw := get("enum[state]"):
            state = _int(raw, _("State"), "enum[state]")
            if state not in BY_ID:
                raise FilterError(
                    _("There is no vehicle state %(value)s.", value=raw), "enum[state]"
                )
            filters.state = state
        if raw := get("division"):
            if not DIVISION_VALUE.match(raw):
                raise FilterError(
                    _("The division filter %(value)s is not valid.", value=raw), "division"
                )
            filters.division = raw
        filters.brand = get("brand") or None
        filters.model = get("model") or None
        filters.fuel_type = get("fuelType") or None
        if raw := get("modelYear"):
            filters.model_year = _int(raw, _("Model year"), "modelYear")
        if raw := get("warning").lower():
            if raw not in TRUE_VALUES + FALSE_VALUES:
                raise FilterError(_("The warning filter must be yes or no."), "warning")
            filters.warning = raw in TRUE_VALUES
        if raw := get("serviceDue").lower():
            if raw not in TRUE_VALUES + FALSE_VALUES:
                raise FilterError(_("The service due filter must be yes or no."), "serviceDue")
            filters.service_due = raw in TRUE_VALUES
        for name, kind in ADVANCED_FILTERS.items():
            raw = get(f"advancedFilter[{name}]")
            if raw and kind == "flag":
                if raw.lower() not in TRUE_VALUES + FALSE_VALUES:
                    raise FilterError(
                        _("The filter “%(name)s” must be yes or no.", name=ADVANCED_LABELS[name]),
                        f"advancedFilter[{name}]",
                    )
                filters.advanced[name] = raw.lower() in TRUE_VALUES
            elif raw:
                filters.advanced[name] = (
                    _int(raw, str(ADVANCED_LABELS[name]), f"advancedFilter[{name}]")
                    if kind == "int"
                    else raw[:MAX_PHRASE]
                )
        return filters

    def to_args(self) -> dict[str, str]:
        """The filters as request arguments again (for sort and page links)."""
        args: dict[str, str] = {}
        if self.searchphrase:
            args["searchphrase"] = self.searchphrase
        if self.state is not None:
            args["enum[state]"] = str(self.state)
        if self.division:
            args["division"] = self.division
        for name, value in (
            ("brand", self.brand), ("model", self.model), ("fuelType", self.fuel_type),
            ("modelYear", self.model_year),
        ):  # fmt: skip
            if value not in (None, ""):
                args[name] = str(value)
        if self.warning is not None:
            args["warning"] = "1" if self.warning else "0"
        if self.service_due is not None:
            args["serviceDue"] = "1" if self.service_due else "0"
        for name, value in self.advanced.items():
            args[f"advancedFilter[{name}]"] = (
                ("1" if value else "0") if isinstance(value, bool) else str(value)
            )
        return args

    @property
    def is_empty(self) -> bool:
        return not self.to_args()

    @property
    def only_scope(self) -> bool:
        """Nothing but the state and the divisions: the counters know the total."""
        rest = {k for k in self.to_args() if k not in ("enum[state]", "division")}
        return not rest


class FilterError(ValueError):
    """A malformed filter value: the translated message and the argument it came from."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


def _int(raw: str, label: str, field: str) -> int:
    if not is_int(raw, high=999_999_999):  # the strict rule of app/core/numbers.py
        raise FilterError(
            _(
                "The filter “%(name)s” must be a whole number, not %(value)s.",
                name=label,
                value=raw,
            ),
            field,
        )
    return int(raw)


def division_scope(division: str | None, visible: Iterable, selected: Iterable[int]) -> list[int]:
    """The division ids a table shows: the filter's divisions within the visible ones, or the
    division selector's when the filter is not given. `visible` holds DivisionRef-like objects."""
    visible = list(visible)
    if not division:
        return list(selected)
    if division == "all":
        return [d.id for d in visible]
    kind, _sep, raw = division.partition("-")
    attribute = {"division": "id", "region": "region_id", "country": "country_id"}[kind]
    return [d.id for d in visible if getattr(d, attribute) == int(raw)]


# --- the query -------------------------------------------------------------------------------

# sort key -> columns in ascending order of the key; (column, True) runs against the key.
SORTS = {
    "regno": ((PreparationItem.regno, False),),
    "model": ((PreparationItem.brand, False), (PreparationItem.model, False)),
    "division": ((Division.name, False),),
    "days": ((PreparationItem.state_changed_at, True),),  # more days in state: earlier change
    "mileage": ((PreparationItem.mileage, False),),
    "price": ((PreparationItem.sales_price, False),),
    "state": ((PreparationItem.state, False),),
    "modelYear": ((PreparationItem.model_year, False),),
    "state_changed_at": ((PreparationItem.state_changed_at, False),),
}


def parse_sort(sort: str | None, default: str = "-state_changed_at") -> str:
    """A known sort key with an optional '-' for descending; unknown keys give the default."""
    sort = (sort or "").strip()
    return sort if sort.lstrip("-") in SORTS else default


def _search(phrase: str):
    """Every word of the phrase is found in the regno, the VIN, the brand, the model or the
    series: one LIKE per word on the generated search text (a trigram index on PostgreSQL)."""
    return and_(*(_contains(word) for word in phrase.split()))


def in_stock():
    """Not archived: the overview's search looks through these first. Written with the state
    as a constant, as the partial trigram index ix_item_search_stock's condition is, so that
    PostgreSQL can use that index whatever the statement's parameters."""
    return PreparationItem.state.op("<>")(literal_column(str(ARCHIVED)))


def _contains(text: str):
    return PreparationItem.search_text.like(f"%{_escape(text.lower())}%", escape="\\")


def _spellings(value: str) -> list[str]:
    """The usual spellings of a stored word, so that an indexed IN finds it whatever the case."""
    return sorted({value, value.lower(), value.upper(), value.capitalize(), value.title()})


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def in_scope(module, division_ids, instance_id, state=None) -> list:
    """The conditions for a module's items in these divisions (and this state) of an instance
    (none when no instance is active): values, or bind parameters for a statement built once
    (items.scope_table_rows)."""
    conditions = [PreparationItem.module == module, PreparationItem.division_id.in_(division_ids)]
    if instance_id is not None:
        conditions.append(PreparationItem.instance_id == instance_id)
    if state is not None:
        conditions.append(PreparationItem.state == state)
    return conditions


def item_query(
    module: str,
    division_ids: list[int],
    *,
    state: int | None = None,
    filters: ItemFilters | None = None,
    sort: str = "-state_changed_at",
) -> Select:
    """Select the module's items in these divisions (already limited to what the user may see),
    filtered and sorted; the active instance's rows only."""
    filters = filters or ItemFilters()
    if state is None:
        state = filters.state
    stmt = select(PreparationItem).where(
        *in_scope(module, list(division_ids), active_instance_id(), state)
    )
    if filters.state is not None and filters.state != state:
        stmt = stmt.where(false())
    if filters.searchphrase:
        plan_for_parameters(db.session)  # a LIKE's pattern decides its plan
        stmt = stmt.where(_search(filters.searchphrase))
    if filters.brand:  # the whole brand, any case: ix_item_module_brand_lower (a b-tree)
        stmt = stmt.where(func.lower(PreparationItem.brand) == filters.brand.lower())
    for column, value in (
        (PreparationItem.model, filters.model),
        (PreparationItem.model_series, filters.advanced.get("modelSeries")),
    ):
        if value:  # the search text's index narrows, the exact comparison decides
            stmt = stmt.where(_contains(value), func.lower(column) == value.lower())
    for column, value in (
        (PreparationItem.fuel_type, filters.fuel_type),
        (PreparationItem.color, filters.advanced.get("color")),
    ):
        if value:
            stmt = stmt.where(column.in_(_spellings(value)))
    if filters.model_year is not None:
        stmt = stmt.where(PreparationItem.model_year == filters.model_year)
    if filters.warning is not None:
        stmt = stmt.where(PreparationItem.warning.is_(filters.warning))
    if filters.service_due is not None:
        stmt = stmt.where(PreparationItem.service_due.is_(filters.service_due))
    stmt = _advanced(stmt, filters.advanced)
    if filters.division and filters.division != "all":
        stmt = stmt.where(_division_condition(filters.division))
    return sorted_by(stmt, parse_sort(sort))


def _advanced(stmt: Select, advanced: dict[str, Any]) -> Select:
    ranges = {
        "mileageFrom": PreparationItem.mileage.__ge__,
        "mileageTo": PreparationItem.mileage.__le__,
        "priceFrom": PreparationItem.sales_price.__ge__,
        "priceTo": PreparationItem.sales_price.__le__,
        "modelYearFrom": PreparationItem.model_year.__ge__,
        "modelYearTo": PreparationItem.model_year.__le__,
    }
    for name, compare in ranges.items():
        if name in advanced:
            stmt = stmt.where(compare(advanced[name]))
    now = utcnow()
    if "daysInStateFrom" in advanced:
        cutoff = now - timedelta(days=min(advanced["daysInStateFrom"], 36500))
        stmt = stmt.where(PreparationItem.state_changed_at <= cutoff)
    if "daysInStateTo" in advanced:
        cutoff = now - timedelta(days=min(advanced["daysInStateTo"] + 1, 36500))
        stmt = stmt.where(PreparationItem.state_changed_at > cutoff)
    if "station" in advanced:
        open_task = select(ItemStationTask.item_id).where(
            ItemStationTask.station_id == advanced["station"],
            ItemStationTask.status != "done",
        )
        stmt = stmt.where(PreparationItem.id.in_(open_task))
    for name, column in (
        ("parkingLocation", PreparationItem.parking_location_id),
        ("keyLocation", PreparationItem.key_location_id),
        ("deliveryLocation", PreparationItem.delivery_location_id),
    ):
        if name in advanced:  # another division's or instance's id: outside the scope anyway
            stmt = stmt.where(column == advanced[name])
    if "salesperson" in advanced:  # another instance's seller: no vehicle here was sold by them
        wanted = advanced["salesperson"]
        column = PreparationItem.salesperson_id
        stmt = stmt.where(column.is_(None) if wanted == 0 else column == wanted)
    if "overEstimate" in advanced:
        over = PreparationItem.id.in_(over_estimate_items())
        stmt = stmt.where(over if advanced["overEstimate"] else ~over)
    if "tag" in advanced:  # another instance's tag: no vehicle carries it here
        stmt = stmt.where(
            PreparationItem.id.in_(select(ItemTag.item_id).where(ItemTag.tag_id == advanced["tag"]))
        )
    return stmt


def over_estimate_items() -> Select:
    """The ids of the vehicles whose actual reconditioning cost is above their estimate."""
    actual = func.sum(case((ReconLine.phase == ACTUAL, ReconLine.amount), else_=0))
    estimate = func.sum(case((ReconLine.phase == ESTIMATE, ReconLine.amount), else_=0))
    return select(ReconLine.item_id).group_by(ReconLine.item_id).having(actual > estimate)


def _division_condition(value: str):
    kind, _sep, raw = value.partition("-")
    ident = int(raw)
    if kind == "division":
        return PreparationItem.division_id == ident
    if kind == "region":
        return PreparationItem.division_id.in_(
            select(Division.id).where(Division.region_id == ident)
        )
    return PreparationItem.division_id.in_(
        select(Division.id)
        .join(Region, Division.region_id == Region.id)
        .where(Region.country_id == ident)
    )


def sorted_by(stmt: Select, sort: str) -> Select:
    """`stmt` in the order of a (known) sort key, the item id breaking ties."""
    descending = sort.startswith("-")
    key = sort.lstrip("-")
    if key == "division":
        stmt = stmt.join(Division, PreparationItem.division_id == Division.id)
    columns = [
        column.desc() if descending != against else column.asc() for column, against in SORTS[key]
    ]
    tiebreak = PreparationItem.id.desc() if descending else PreparationItem.id.asc()
    return stmt.order_by(*columns, tiebreak)


# --- pagination ------------------------------------------------------------------------------


COUNT_CAP = 10_000  # filtered tables count this far and then say "more than"


@dataclass
class Page:
    items: list
    total: int
    page: int
    per_page: int
    capped: bool = False  # there are more than `total` rows

    @property
    def pages(self) -> int:
        return max(1, math.ceil(self.total / self.per_page))

    @property
    def first_index(self) -> int:
        return (self.page - 1) * self.per_page + 1 if self.total else 0

    @property
    def last_index(self) -> int:
        return self.first_index + len(self.items) - 1 if self.items else 0

    def window(self) -> list[int | None]:
        """Page numbers around the current one, with the first and last; None for a gap."""
        shown = sorted(
            {1, self.pages, *range(max(1, self.page - 2), min(self.pages, self.page + 2) + 1)}
        )
        window: list[int | None] = []
        for n in shown:
            if window and n - (window[-1] or 0) > 1:
                window.append(None)
            window.append(n)
        return window


def count(stmt: Select, cap: int | None = None) -> int:
    """The number of rows a select would give (at most cap + 1), without its ordering."""
    inner = stmt.order_by(None).with_only_columns(PreparationItem.id)
    if cap is not None:
        inner = inner.limit(cap + 1)
    return db.session.scalar(select(func.count()).select_from(inner.subquery())) or 0


def counter_total(module: str, division_ids: list[int], state: int | None = None) -> int:
    """Items of a module in these divisions (and state) from the maintained counters: a sum
    over a few dozen rows instead of counting items."""
    stmt = select(func.coalesce(func.sum(ItemStateCount.count), 0)).where(
        ItemStateCount.module == module, ItemStateCount.division_id.in_(list(division_ids))
    )
    if state is not None:
        stmt = stmt.where(ItemStateCount.state == state)
    return int(db.session.scalar(stmt) or 0)


def paginate(
    stmt: Select | None,
    page: int,
    per_page: int,
    *,
    total: int | None = None,
    cap: int | None = None,
    fetch: Callable[[int, int], list] | None = None,
) -> Page:
    """At most one count (none when `total` is known, or when the first page is not full) and
    one page of rows; the count goes up to `cap` when given; the page number is clamped.
    `fetch(limit, offset)` reads a page (default: `stmt`'s first column, the items); `stmt`
    is only counted, and may be None when `total` and `fetch` are given."""
    per_page = max(1, per_page)
    fetch = fetch or (
        lambda limit, offset: list(db.session.scalars(stmt.limit(limit).offset(offset)))
    )
    rows = lambda n: fetch(per_page, (n - 1) * per_page)  # noqa: E731
    if total is None and page <= 1:
        items = rows(1)
        if len(items) < per_page:  # a short first page is everything there is
            return Page(items=items, total=len(items), page=1, per_page=per_page)
        return _page_with_count(stmt, items, 1, per_page, cap)
    capped = False
    if total is None:
        total = count(stmt, cap)
        if cap is not None and total > cap:
            total, capped = cap, True
    page = min(max(1, page), max(1, math.ceil(total / per_page)))
    items = rows(page) if total else []
    return Page(items=items, total=total, page=page, per_page=per_page, capped=capped)


def _page_with_count(stmt: Select, items: list, page: int, per_page: int, cap: int | None):
    total = count(stmt, cap)
    capped = cap is not None and total > cap
    return Page(items, cap if capped else total, page, per_page, capped)
