"""Exchange rates and amounts: what one currency is worth in another (the seller's own table),
the next bid, the currency table a bid page shows, and a whole amount as the reader writes it."""

from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from babel.numbers import parse_pattern
from flask_babel import get_locale
from sqlalchemy import bindparam, select

from app.extensions import db
from app.market.models import Advert, ExchangeRate

_rate_t = ExchangeRate.__table__
_RATES = select(_rate_t.c.to_currency, _rate_t.c.rate).where(
    _rate_t.c.instance_id == bindparam("instance_id"), _rate_t.c.currency == bindparam("currency")
)


def rates_from(instance_id: int, currency: str) -> dict[str, Decimal]:
    """What 1 `currency` is worth in each currency the seller keeps a rate for (itself: 1)."""
    rows = db.session.execute(_RATES, {"instance_id": instance_id, "currency": currency}).all()
    rates = {to: Decimal(rate) for to, rate in rows if to != currency and rate and rate > 0}
    return {currency: Decimal(1), **dict(sorted(rates.items()))}


def convert_up(amount: int, rate: Decimal) -> int:
    """`amount` in another currency, rounded up to a whole unit."""
    return int((Decimal(amount) * rate).to_integral_value(rounding=ROUND_CEILING))


def convert_back(amount: int, rate: Decimal) -> int:
    """An amount in another currency expressed in the advert's, rounded down: a bid of at
    least convert_up(n, rate) always converts back to at least n."""
    return int((Decimal(amount) / rate).to_integral_value(rounding=ROUND_FLOOR))


def next_bid(advert) -> int:
    """The lowest acceptable bid in the advert's currency (an Advert or a row of its columns)."""
    if advert.highest_bid is None:
        return advert.start_price
    return advert.highest_bid + advert.bid_step


def currency_table(advert: Advert, rates: dict[str, Decimal] | None = None) -> dict:
    """GET _public/market-advert/currencies: the next bid in the advert's currency, and per
    currency the exchange rate and the next bid there, rounded up."""
    rates = rates if rates is not None else rates_from(advert.instance_id, advert.currency)
    amount = next_bid(advert)
    return {
        "currency": advert.currency,
        "nextBid": amount,
        "exchangeRates": [
            {
                "currency": cur,
                "exchangeRate": format(rate.normalize(), "f"),
                "nextBid": convert_up(amount, rate),
            }
            for cur, rate in rates.items()
        ],
    }


_AMOUNT = parse_pattern("#,##0")  # parsed once, not at every amount


def format_amount(amount: int) -> str:
    """A whole amount grouped as the reader's language writes numbers (190 000 with no-break
    spaces in Swedish, 190.000 in German, 190,000 in English): the current locale, which a
    mail's rendering sets to the recipient's."""
    return _AMOUNT.apply(amount, get_locale())
