"""The administration area's own records: imports, and the settings rows of the
screens that have no model of their own elsewhere (tags, holidays, providers, ...)."""

from datetime import date, datetime

from sqlalchemy import JSON, Date, ForeignKey, Integer, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.models import InstanceScoped, UTCDateTime, utcnow
from app.core.settings import Address, Tag  # noqa: F401 - their screens' models live below the features
from app.extensions import db


class ImportRun(InstanceScoped, db.Model):
    """One vehicle import: the uploaded file, then the job's progress and report. Progress lives
    in the database, so every web and worker process reads the same numbers."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    filename: Mapped[str] = mapped_column(String(200))
    module: Mapped[str] = mapped_column(String(10), default="begcare")
    content: Mapped[bytes] = mapped_column(LargeBinary)
    language: Mapped[str] = mapped_column(String(5), default="en-GB")
    # previewed, queued, running, done, failed
    status: Mapped[str] = mapped_column(String(10), default="previewed")
    total: Mapped[int] = mapped_column(Integer, default=0)
    processed: Mapped[int] = mapped_column(Integer, default=0)
    created: Mapped[int] = mapped_column(Integer, default=0)
    unchanged: Mapped[int] = mapped_column(Integer, default=0)
    failed: Mapped[int] = mapped_column(Integer, default=0)
    errors: Mapped[list] = mapped_column(JSON, default=list)


class ExportRun(InstanceScoped, db.Model):
    """A large report written by a job: its progress, then the file to download."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    report: Mapped[str] = mapped_column(String(20))
    start: Mapped[date] = mapped_column(Date)
    end: Mapped[date] = mapped_column(Date)
    format: Mapped[str] = mapped_column(String(4))
    language: Mapped[str] = mapped_column(String(5), default="en-GB")
    status: Mapped[str] = mapped_column(
        String(10), default="queued"
    )  # queued, running, done, failed
    total: Mapped[int] = mapped_column(Integer, default=0)
    processed: Mapped[int] = mapped_column(Integer, default=0)
    content: Mapped[bytes | None] = mapped_column(LargeBinary)
