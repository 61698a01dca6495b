"""The market list's filters, one definition for the list, the saved searches and their e-mails.

`FilterForm` reads the criteria (the list's query string, or the saved-search form, which adds a
name); `Criteria` holds them, turns them into SQL conditions for a viewer's group, into the
list's query string, into JSON for a saved search and into the short text that names them.
A new advert matches a saved search when the list's query with the search's criteria finds it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from decimal import Decimal

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from sqlalchemy import and_, func, or_, select
from wtforms import SelectField, StringField
from wtforms.validators import NumberRange, Optional, ValidationError

from app.core.forms import too_long
from app.extensions import db
from app.market.adverts import SEARCH_MAX, search_condition
from app.market.forms import WholeNumberField
from app.market.models import COUNTRIES, MAX_AMOUNT, Advert, InstanceGroup, MarketPartner
from app.market.rates import convert_back, format_amount, rates_from
from app.preparation.items import FUEL_TYPES

YEARS = (1950, 2100)
MILEAGE_MAX = 9_999_999


def country_names() -> dict[str, str]:
    return {
        "SE": _("Sweden"),
        "NO": _("Norway"),
        "FI": _("Finland"),
        "DE": _("Germany"),
        "DK": _("Denmark"),
    }


@dataclass(frozen=True)
class Criteria:
    """What the market list is narrowed to; every part is optional."""

    q: str = ""
    brand: str = ""
    model: str = ""
    year_from: int | None = None
    year_to: int | None = None
    max_mileage: int | None = None
    max_price: int | None = None  # in the viewer's group's currency
    fuel: str = ""
    country: str = ""  # the seller's country

    @classmethod
    def from_json(cls, data: dict | None) -> Criteria:
        """Stored criteria; unknown keys and values of the wrong kind are dropped."""
        data = data or {}
        values = {}
        for f in fields(cls):
            value = data.get(f.name)
            text = f.type == "str"
            if isinstance(value, str) if text else type(value) is int:
                values[f.name] = value
        return cls(**values)

    def to_json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v not in (None, "")}

    def query_args(self) -> dict:
        """The list's query string for these criteria."""
        return self.to_json()

    @property
    def empty(self) -> bool:
        return not self.to_json()

    def conditions(self, group: InstanceGroup, sellers: SellerRates | None = None) -> list:
        """The SQL conditions on Advert (and on the seller's group, `seller`) for a viewer of
        `group`: each criterion given narrows the list. `sellers`: the sellers' rates the
        price criterion uses, when the caller has read them (seller_rates)."""
        where = []
        if (found := search_condition(self.q)) is not None:
            where.append(found)
        if self.brand:
            where.append(func.lower(Advert.brand) == self.brand.strip().lower())
        if self.model:
            where.append(
                func.lower(Advert.model).contains(self.model.strip().lower(), autoescape=True)
            )
        if self.year_from is not None:
            where.append(Advert.model_year >= self.year_from)
        if self.year_to is not None:
            where.append(Advert.model_year <= self.year_to)
        if self.max_mileage is not None:
            where.append(Advert.mileage <= self.max_mileage)
        if self.fuel:
            where.append(Advert.fuel_type == self.fuel)
        if self.country:
            where.append(
                Advert.seller_group_id.in_(
                    select(InstanceGroup.id).where(InstanceGroup.country_code == self.country)
                )
            )
        if self.max_price is not None:
            where.append(price_condition(group, self.max_price, sellers))
        return where

    def summary(self, currency: str = "") -> str:
        """The criteria in a line, as the reader's language writes them (a price in
        `currency`, the viewer's)."""
        parts = []
        if self.q:
            parts.append(f"“{self.q}”")
        if self.brand or self.model:
            parts.append(" ".join(p for p in (self.brand, self.model) if p))
        if self.year_from is not None and self.year_to is not None:
            parts.append(
                _("model year %(first)s–%(last)s", first=self.year_from, last=self.year_to)
            )
        elif self.year_from is not None:
            parts.append(_("model year from %(year)s", year=self.year_from))
        elif self.year_to is not None:
            parts.append(_("model year up to %(year)s", year=self.year_to))
        if self.max_mileage is not None:
            parts.append(_("at most %(mileage)s km", mileage=format_amount(self.max_mileage)))
        if self.max_price is not None:
            price = format_amount(self.max_price)
            parts.append(_("at most %(price)s", price=f"{price}\u00a0{currency}".strip()))
        if self.fuel:
            parts.append(str(FUEL_TYPES.get(self.fuel, self.fuel)))
        if self.country:
            parts.append(country_names().get(self.country, self.country))
        return " · ".join(parts) if parts else _("Every advert")


# The criteria's names: the list's query string parameters.
FILTER_NAMES = tuple(f.name for f in fields(Criteria))


# (seller group id, what 1 of the seller's currency is worth in the viewer's, or None)
SellerRates = list[tuple[int, Decimal | None]]


def seller_rates(group: InstanceGroup) -> SellerRates:
    """The rate of every seller whose adverts the group sees (itself and its partners) into
    the group's currency, as the price criterion converts with them."""
    sellers = db.session.execute(
        select(InstanceGroup.id, InstanceGroup.instance_id, InstanceGroup.currency)
        .where(
            or_(
                InstanceGroup.id == group.id,
                InstanceGroup.id.in_(
                    select(MarketPartner.seller_group_id).where(
                        MarketPartner.buyer_group_id == group.id
                    )
                ),
            )
        )
        .execution_options(all_instances=True)
    ).all()
    return [
        (seller_id, rates_from(instance_id, currency).get(group.currency))
        for seller_id, instance_id, currency in sellers
    ]


def price_condition(group: InstanceGroup, max_price: int, sellers: SellerRates | None = None):
    """Adverts whose price (the highest bid, else the start price) is at most `max_price` in the
    group's currency, converted with each seller's own exchange rates as a bid would be. A
    seller without a rate to the group's currency has no advert within any price. `sellers`:
    seller_rates(group), or the part of it the caller narrows the adverts to."""
    price = func.coalesce(Advert.highest_bid, Advert.start_price)
    parts = [
        and_(Advert.seller_group_id == seller_id, price <= convert_back(max_price, rate))
        for seller_id, rate in (seller_rates(group) if sellers is None else sellers)
        if rate is not None
    ]
    return or_(*parts) if parts else Advert.id.is_(None)


def _strip(value):
    return " ".join(value.split()) if isinstance(value, str) else value


class FilterForm(FlaskForm):
    """The market list's filters; the saved-search form adds a name to the same fields."""

    class Meta:
        csrf = False

    q = StringField(
        _l("Search"),
        filters=[_strip],
        validators=[too_long(SEARCH_MAX)],
    )
    brand = StringField(_l("Brand"), filters=[_strip], validators=[too_long(100)])
    model = StringField(_l("Model"), filters=[_strip], validators=[too_long(100)])
    year_from = WholeNumberField(
        _l("Model year from"),
        validators=[
            Optional(),
            NumberRange(*YEARS, _l("Enter a year between %(min)s and %(max)s.")),
        ],
    )
    year_to = WholeNumberField(
        _l("Model year to"),
        validators=[
            Optional(),
            NumberRange(*YEARS, _l("Enter a year between %(min)s and %(max)s.")),
        ],
    )
    max_mileage = WholeNumberField(
        _l("Highest mileage (km)"),
        validators=[
            Optional(),
            NumberRange(0, MILEAGE_MAX, _l("Enter a mileage of at most %(max)s km.")),
        ],
    )
    max_price = WholeNumberField(
        _l("Highest price"),
        validators=[Optional(), NumberRange(1, MAX_AMOUNT, _l("Enter an amount above zero."))],
    )
    fuel = SelectField(_l("Fuel"), choices=[], validate_choice=True)
    country = SelectField(_l("Seller's country"), choices=[], validate_choice=True)

    def __init__(self, *args, currency: str = "", **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.currency = currency
        self.fuel.choices = [("", _("Any fuel"))] + [(k, str(v)) for k, v in FUEL_TYPES.items()]
        names = country_names()
        self.country.choices = [("", _("Any country"))] + [(c, names[c]) for c in COUNTRIES]
        if currency:
            self.max_price.label.text = _("Highest price (%(currency)s)", currency=currency)
        for name in ("fuel", "country"):  # an absent choice is "any", not a refused value
            if self[name].data is None:
                self[name].data = ""

    def validate_year_to(self, field) -> None:
        first = self.year_from.data
        if field.data is not None and first is not None and field.data < first:
            raise ValidationError(_("The last year cannot be before the first."))

    def criteria(self) -> Criteria:
        return Criteria(
            q=self.q.data or "",
            brand=self.brand.data or "",
            model=self.model.data or "",
            year_from=self.year_from.data,
            year_to=self.year_to.data,
            max_mileage=self.max_mileage.data,
            max_price=self.max_price.data,
            fuel=self.fuel.data or "",
            country=self.country.data or "",
        )
