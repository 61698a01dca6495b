"""A booked time: a test drive or a delivery of one vehicle, for one customer, on a calendar."""

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.core.audit import MadeBy
from app.core.models import Division, InstanceScoped, UTCDateTime, utcnow
from app.extensions import db
from app.preparation.models import PreparationItem

KINDS = ("test_drive", "delivery")


class Booking(MadeBy, InstanceScoped, db.Model):
    """One booking. `held_start` is the start while the booking holds its slot and NULL once it
    is cancelled: the unique (calendar, held_start) is what keeps two requests at the same
    moment from booking one slot twice (NULLs never collide, on SQLite as on PostgreSQL).
    `uid` and `sequence` are the invitation's (RFC 5545): one UID for the booking's life, the
    sequence raised by every change and by the cancellation."""

    __table_args__ = (
        UniqueConstraint("calendar_id", "held_start", name="uq_booking_calendar_slot"),
        Index("ix_booking_instance_division_start", "instance_id", "division_id", "starts_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    division_id: Mapped[int] = mapped_column(ForeignKey("division.id", ondelete="CASCADE"))
    calendar_id: Mapped[int | None] = mapped_column(
        ForeignKey("setting_row.id", ondelete="SET NULL")
    )
    location_id: Mapped[int | None] = mapped_column(
        ForeignKey("setting_row.id", ondelete="SET NULL")
    )
    item_id: Mapped[int] = mapped_column(
        ForeignKey("preparation_item.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(20))  # KINDS
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime)
    ends_at: Mapped[datetime] = mapped_column(UTCDateTime)
    held_start: Mapped[datetime | None] = mapped_column(UTCDateTime)
    place: Mapped[str] = mapped_column(String(300), default="")  # the address, as booked
    # A delivery's address (admin/general/address, the division's): where the car is handed
    # over; `place` then holds it as written at booking time.
    address_id: Mapped[int | None] = mapped_column(ForeignKey("address.id", ondelete="SET NULL"))
    customer_name: Mapped[str] = mapped_column(String(120))
    customer_email: Mapped[str] = mapped_column(String(254))
    customer_phone: Mapped[str] = mapped_column(String(40), default="")
    customer_language: Mapped[str | None] = mapped_column(String(5))
    status: Mapped[str] = mapped_column(String(10), default="booked")  # booked, cancelled
    uid: Mapped[str] = mapped_column(String(80), unique=True)
    sequence: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    changed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    item: Mapped[PreparationItem] = relationship()
    division: Mapped[Division] = relationship()

    @property
    def active(self) -> bool:
        return self.status == "booked"
