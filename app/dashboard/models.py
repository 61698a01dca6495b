"""Dashboard widgets (spec 02 section 3) and the goals admins set for them."""

from datetime import datetime

from sqlalchemy import JSON, Boolean, Float, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.models import InstanceScoped, TimestampMixin, UTCDateTime, utcnow
from app.extensions import db
from app.preparation.models import ItemStateEvent


class DashboardWidget(InstanceScoped, TimestampMixin, db.Model):
    """One widget on one user's dashboard: 'my' (My dashboard) or a module's ('begcare', ...)."""

    __table_args__ = (Index("ix_widget_user_dashboard", "user_id", "dashboard", "position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    dashboard: Mapped[str] = mapped_column(String(10), default="my")
    position: Mapped[int] = mapped_column(Integer, default=0)
    type: Mapped[str] = mapped_column(String(20))
    title: Mapped[str] = mapped_column(String(100), default="")
    h: Mapped[int] = mapped_column(Integer, default=1)
    w: Mapped[int] = mapped_column(Integer, default=1)
    auto_update: Mapped[int] = mapped_column(Integer, default=0)
    # module, divisions, metric, period, chartType, colorConditions, gauge, minimum, goalValue,
    # customListId, groupBy, unit
    options: Mapped[dict] = mapped_column(JSON, default=dict)
    # hideGoals, manage (hub|central), showStateInteractionButtons, columns
    config: Mapped[dict] = mapped_column(JSON, default=dict)
    item_filters: Mapped[dict] = mapped_column(JSON, default=dict)


class Goal(InstanceScoped, db.Model):
    """A target an admin sets for one figure (name) of a module, for a division, a region or a
    country, over a time period. The most recently defined matching goal wins (spec 02)."""

    __table_args__ = (Index("ix_goal_lookup", "instance_id", "name", "module"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40))  # the widget metric it measures
    goal_name: Mapped[str] = mapped_column(String(100))
    goal_value: Mapped[float] = mapped_column(Float)
    acceptance: Mapped[float | None] = mapped_column(Float)
    module: Mapped[str] = mapped_column(String(20))
    time_period: Mapped[str] = mapped_column(String(10), default="month")
    division_id: Mapped[int | None] = mapped_column(ForeignKey("division.id", ondelete="CASCADE"))
    region_id: Mapped[int | None] = mapped_column(ForeignKey("region.id", ondelete="CASCADE"))
    country_id: Mapped[int | None] = mapped_column(ForeignKey("country.id", ondelete="CASCADE"))
    translate: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


# The dashboard's period figures (sold or entering the flow this week, month or year; the charts'
# twelve months) read the state events by target state and time: without this index every widget
# scans all events of all instances.
Index(
    "ix_state_event_instance_to_state_created",
    ItemStateEvent.instance_id,
    ItemStateEvent.to_state,
    ItemStateEvent.created_at,
)
