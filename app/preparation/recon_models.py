"""Reconditioning cost (issue 33): the estimated and actual cost lines of station tasks, the
approvals an estimate over the division's limit waits for, and that limit per division."""

from datetime import datetime
from decimal import Decimal

from sqlalchemy import ForeignKey, Index, Integer, Numeric, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.division_settings import DivisionSetting
from app.core.models import InstanceScoped, UTCDateTime, utcnow
from app.extensions import db

ESTIMATE, ACTUAL = "estimate", "actual"
PHASES = (ESTIMATE, ACTUAL)
PARTS, LABOUR, SUBLET = "parts", "labour", "sublet"
KINDS = (PARTS, LABOUR, SUBLET)
PENDING, APPROVED, REJECTED = "pending", "approved", "rejected"


class ReconLine(InstanceScoped, db.Model):
    """One estimated or actual cost of a station task, in the vehicle's division's currency.
    A labour line keeps its hours and the station's hourly rate at the time it was entered."""

    __table_args__ = (
        Index("ix_recon_line_item", "item_id", "phase"),
        Index("ix_recon_line_task", "task_id"),
        # The actual lines of a period (recon_statistics._period).
        Index("ix_recon_line_created", "instance_id", "phase", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("preparation_item.id", ondelete="CASCADE"))
    task_id: Mapped[int] = mapped_column(ForeignKey("item_station_task.id", ondelete="CASCADE"))
    phase: Mapped[str] = mapped_column(String(10))  # estimate, actual
    kind: Mapped[str] = mapped_column(String(10))  # parts, labour, sublet
    description: Mapped[str] = mapped_column(String(200), default="")
    hours: Mapped[Decimal | None] = mapped_column(Numeric(7, 2))
    rate: Mapped[Decimal | None] = mapped_column(Numeric(10, 2))
    amount: Mapped[Decimal] = mapped_column(Numeric(12, 2))
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ReconApproval(InstanceScoped, db.Model):
    """A task's estimate put to a manager: asked (by whom, when, for how much) and decided
    (approved or rejected, by whom, when, with a comment). The newest row of a task counts."""

    __table_args__ = (
        Index("ix_recon_approval_task", "task_id", "requested_at"),
        Index("ix_recon_approval_item", "item_id"),
        Index("ix_recon_approval_status", "instance_id", "status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("preparation_item.id", ondelete="CASCADE"))
    task_id: Mapped[int] = mapped_column(ForeignKey("item_station_task.id", ondelete="CASCADE"))
    amount: Mapped[Decimal] = mapped_column(Numeric(12, 2))
    status: Mapped[str] = mapped_column(String(10), default=PENDING)
    requested_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    requested_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    decided_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    comment: Mapped[str] = mapped_column(String(500), default="")


class ReconLimit(DivisionSetting, InstanceScoped, db.Model):
    """The estimate above which a task needs a manager's approval before it starts: one
    division's, or (division None) the whole instance's, which a division without its own
    follows. No row: no approval is needed."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    module: Mapped[str] = mapped_column(String(10))
    amount: Mapped[Decimal] = mapped_column(Numeric(12, 2))
