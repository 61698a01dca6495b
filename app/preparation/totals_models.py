"""Monthly running totals of the statistics page (issue 33): what the page's period figures sum,
kept per instance, module, division and month in the transactions that write the rows they sum
(app/preparation/totals.py), so that the page reads a year of months, not a year of rows.

The key columns are never NULL (0, "" or the month itself stand for "none"), so that a total is
one row that `INSERT ... ON CONFLICT DO UPDATE` adds to, on PostgreSQL and SQLite alike."""

from datetime import date
from decimal import Decimal

from sqlalchemy import Date, Float, Index, Integer, Numeric, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.models import InstanceScoped
from app.extensions import db

# recon_month_total.figure
VEHICLE, TASK = "vehicle", "task"
# flow_month_total.figure
ENTERED, SOLD, SELLER, STAY, WORK = "entered", "sold", "seller", "stay", "work"


class MonthTotal(InstanceScoped):
    """The columns every monthly total has: whose (instance, module, division), which figure,
    which month, and how many rows it sums."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    module: Mapped[str] = mapped_column(String(10))
    figure: Mapped[str] = mapped_column(String(10))
    month: Mapped[date] = mapped_column(Date)
    division_id: Mapped[int] = mapped_column(Integer)
    count: Mapped[int] = mapped_column(Integer, default=0)


class ReconMonthTotal(MonthTotal, db.Model):
    """Reconditioning cost per month: of the vehicles (figure "vehicle", by brand and model)
    or the tasks (figure "task", by station) whose last actual cost line was entered in the
    month: how many, their estimates and actuals (all their lines), how many cost more than
    estimated."""

    KEY = (
        "instance_id",
        "module",
        "figure",
        "month",
        "division_id",
        "brand",
        "model",
        "station_id",
    )
    VALUES = ("count", "estimate", "actual", "over")
    __table_args__ = (Index("ux_recon_month_total", *KEY, unique=True),)

    brand: Mapped[str] = mapped_column(String(60), default="")
    model: Mapped[str] = mapped_column(String(80), default="")
    station_id: Mapped[int] = mapped_column(Integer, default=0)
    estimate: Mapped[Decimal] = mapped_column(Numeric(16, 2), default=0)
    actual: Mapped[Decimal] = mapped_column(Numeric(16, 2), default=0)
    over: Mapped[int] = mapped_column(Integer, default=0)


class FlowMonthTotal(MonthTotal, db.Model):
    """The vehicles' flow per month: entering the flow and sold (figures "entered", "sold":
    per ISO week inside the month), the sales per salesperson ("seller"), stays in a state that
    began in the month and ended ("stay": by state, their days) and tasks finished in the month
    ("work": by station, their minutes)."""

    KEY = ("instance_id", "module", "figure", "month", "division_id", "week", "state",
           "station_id", "seller_id")  # fmt: skip
    VALUES = ("count", "amount", "working")
    __table_args__ = (Index("ux_flow_month_total", *KEY, unique=True),)

    week: Mapped[date] = mapped_column(Date)  # the Monday of the ISO week; the month otherwise
    state: Mapped[int] = mapped_column(Integer, default=0)
    station_id: Mapped[int] = mapped_column(Integer, default=0)
    seller_id: Mapped[int] = mapped_column(Integer, default=0)  # 0: sold without a salesperson
    amount: Mapped[float] = mapped_column(Float, default=0.0)  # days (stay), minutes (work)
    # A stay's working days (app.core.workdays) with the instance's holidays: recounted when
    # they change (totals.recount_stays), for an instance that counts working days.
    working: Mapped[int] = mapped_column(Integer, default=0)
