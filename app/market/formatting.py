"""How the market's pages write times, amounts, rates, time left and statuses: template
filters for every market template (registered on the market's blueprint)."""

from datetime import datetime

from flask_babel import format_decimal
from flask_babel import gettext as _

from app.core.models import utcnow
from app.core.times import moment
from app.market import bp
from app.market.adverts import aware
from app.market.rates import format_amount
from app.market.status import STATUS_LABELS


@bp.app_template_filter("advert_time")
def advert_time(value: datetime | None) -> str:
    """A moment as spec 02 section 9 writes it (y-MM-dd HH:mm), in the user's time zone."""
    return moment(value)


@bp.app_template_filter("advert_day")
def advert_day(value: datetime | None) -> str:
    """A day as spec 02 section 9 writes it (y-MM-dd), in the user's time zone."""
    return moment(value, "date") if value else ""


@bp.app_template_filter("advert_money")
def advert_money(amount: int | None, currency: str = "") -> str:
    """A whole amount grouped as the user's language writes numbers, with its currency."""
    if amount is None:
        return ""
    number = format_amount(amount)
    return f"{number}\u00a0{currency}" if currency else number


@bp.app_template_filter("advert_rate")
def advert_rate(rate) -> str:
    """An exchange rate as the user's language writes decimals (1,024 in Norwegian)."""
    return format_decimal(rate, format="#,##0.######")


@bp.app_template_filter("advert_left")
def advert_left(ends_at: datetime | None) -> str:
    """How long bidding still runs: days and hours, or hours and minutes on the last day."""
    if ends_at is None:
        return ""
    seconds = int((aware(ends_at) - utcnow()).total_seconds())
    if seconds <= 0:
        return _("Ended")
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    if days:
        return _("%(days)s d %(hours)s h left", days=days, hours=hours)
    return _("%(hours)s h %(minutes)s min left", hours=hours, minutes=max(1, rest // 60))


@bp.app_template_global("advert_status")
def advert_status(status: str) -> str:
    return str(STATUS_LABELS.get(status, status))
