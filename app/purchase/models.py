"""Purchase analyses: the analysis of a vehicle the dealer may buy, its valuations, comments
with images, and the admin configuration behind it (dynamic fields, priorities, calculators)."""

from datetime import datetime
from decimal import Decimal

from flask_babel import lazy_gettext as _l
from sqlalchemy import (
    JSON,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.auth.models import User
from app.core.localized import Named, for_reader, option_labels
from app.core.models import Division, InstanceScoped, TimestampMixin, UTCDateTime, utcnow
from app.extensions import db
from app.preparation.models import AttachedFile, CommentImage, VehicleColumns

# An analysis's status as people read it: the badge on its pages and the report's column.
STATUS_TITLES = {
    "draft": _l("Draft"), "requested": _l("Approval requested"),
    "approved": _l("Approved"), "rejected": _l("Rejected"),
}  # fmt: skip

FIELD_TYPES = (
    "text", "textarea", "date", "select", "link", "number", "mileage", "currency", "checkbox",
    "image",
)  # fmt: skip
STATUSES = ("draft", "requested", "approved", "rejected")


class PurchaseDynamicField(InstanceScoped, db.Model):
    """An input field every analysis of the instance asks for, in a titled section."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    title: Mapped[str] = mapped_column(String(100))
    title_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    section: Mapped[str] = mapped_column(String(100))
    section_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    field_type: Mapped[str] = mapped_column(String(20))
    choices: Mapped[list] = mapped_column(JSON, default=list)  # the options of a select
    # The options in each language, {tag: one on each line in the order of `choices`}; an
    # analysis stores the option as first written (app.core.localized.option_labels).
    choices_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    required: Mapped[bool] = mapped_column(Boolean, default=False)
    ordering: Mapped[int] = mapped_column(Integer, default=0)


class PurchasePriority(Named, InstanceScoped, db.Model):
    """A priority an analysis can carry (urgent, normal, ...), in the admin's order; its name
    per language (`Named`)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    ordering: Mapped[int] = mapped_column(Integer, default=0)


class Calculator(InstanceScoped, db.Model):
    """A calculation template: rows with + or - operators and units, and a preset in percent.

    rows: [{"title", "operator": "+"|"-", "value", "unit": "currency"|"percent"}]. The title
    per language (`title_texts`) and the rows' titles per language (`row_titles_texts`, one on
    each line in the rows' order, as a choice's options: app.core.localized.option_labels)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    title: Mapped[str] = mapped_column(String(100))
    title_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    rows: Mapped[list] = mapped_column(JSON, default=list)
    row_titles_texts: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    preset_description: Mapped[str] = mapped_column(String(200), default="")
    preset_percent: Mapped[Decimal] = mapped_column(Numeric(6, 2), default=0)

    @property
    def shown_title(self) -> str:
        return for_reader(self.title_texts, self.title)

    def shown_calculation(self, result: dict) -> dict:
        """A calculation made with this calculator (an analysis keeps it with the titles as
        written then), its title and rows' titles in the reader's language."""
        labels = option_labels([r.get("title") for r in self.rows or []], self.row_titles_texts)
        rows = [{**r, "title": labels.get(r.get("title"), r.get("title"))} for r in result["rows"]]
        same = result.get("title") == self.title  # else renamed since: as it was then
        return {**result, "title": self.shown_title if same else result.get("title"), "rows": rows}


class PurchaseAnalysis(InstanceScoped, TimestampMixin, VehicleColumns, db.Model):
    """One analysis of one vehicle in one division."""

    __table_args__ = (
        Index("ix_purchase_analysis_regno", "instance_id", "regno"),
        Index("ix_purchase_analysis_status", "instance_id", "status"),
        Index("ix_purchase_analysis_item", "item_id"),  # a vehicle's delete clears it by this
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    identifier: Mapped[str] = mapped_column(String(30))
    division_id: Mapped[int] = mapped_column(ForeignKey("division.id", ondelete="RESTRICT"))
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    status: Mapped[str] = mapped_column(String(10), default="draft")
    priority_id: Mapped[int | None] = mapped_column(
        ForeignKey("purchase_priority.id", ondelete="SET NULL")
    )
    # {field id (text): value}, by the dynamic fields.
    inputs: Mapped[dict] = mapped_column(JSON, default=dict)
    # {priceMin, priceMax, priceAvg, pricePrediction, source}
    valuation: Mapped[dict] = mapped_column(JSON, default=dict)
    # [{date, price, source}]
    price_predictions: Mapped[list] = mapped_column(JSON, default=list)
    # {annualTax, annualMalus, chassis, segment, equipment: [..], trimPackages: [..]}
    basic: Mapped[dict] = mapped_column(JSON, default=dict)
    # The last calculation: {calculatorId, title, inputValue, outputValue, rows, preset...}
    latest_calculation: Mapped[dict | None] = mapped_column(JSON)
    # Who asked for approval last: with the creator, not the one to approve (approval_refused).
    requested_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    decided_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    item_id: Mapped[int | None] = mapped_column(
        ForeignKey("preparation_item.id", ondelete="SET NULL")
    )

    division: Mapped[Division] = relationship()
    created_by: Mapped[User | None] = relationship(foreign_keys=[created_by_id])
    priority: Mapped[PurchasePriority | None] = relationship()
    valuations: Mapped[list["PurchaseValuation"]] = relationship(
        order_by="PurchaseValuation.created_at", cascade="all, delete-orphan"
    )
    comments: Mapped[list["PurchaseComment"]] = relationship(
        order_by="PurchaseComment.created_at", cascade="all, delete-orphan"
    )

    @property
    def model_id(self) -> str:
        return model_id(self.brand, self.model)


def model_id(brand: str, model: str) -> str:
    """The model analysis key (docs/decisions.md): brand and model, lower case, joined by '|'."""
    return f"{' '.join(brand.split()).lower()}|{' '.join(model.split()).lower()}"


class PurchaseValuation(InstanceScoped, db.Model):
    """A price in (what we pay) and price out (what we sell for) from one source."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    analysis_id: Mapped[int] = mapped_column(
        ForeignKey("purchase_analysis.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    price_in: Mapped[Decimal | None] = mapped_column(Numeric(12, 2))
    price_out: Mapped[Decimal | None] = mapped_column(Numeric(12, 2))
    source: Mapped[str] = mapped_column(String(100), default="")
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    division_id: Mapped[int | None] = mapped_column(ForeignKey("division.id", ondelete="SET NULL"))
    data: Mapped[dict] = mapped_column(JSON, default=dict)

    user: Mapped[User | None] = relationship()
    division: Mapped[Division | None] = relationship()


class PurchaseComment(InstanceScoped, TimestampMixin, db.Model):
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    analysis_id: Mapped[int] = mapped_column(
        ForeignKey("purchase_analysis.id", ondelete="CASCADE"), index=True
    )
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    content: Mapped[str] = mapped_column(Text, default="")

    created_by: Mapped[User | None] = relationship()
    images: Mapped[list["PurchaseCommentImage"]] = relationship(
        order_by="PurchaseCommentImage.id", cascade="all, delete-orphan"
    )


class PurchaseCommentImage(InstanceScoped, CommentImage, db.Model):
    """An image of a comment: the file object's owner is the comment's analysis."""

    comment_table = "purchase_comment"


class PurchaseInputImage(InstanceScoped, AttachedFile, db.Model):
    """The upload of an analysis' image field: the file object's owner is the analysis (its
    read rights, app.purchase.services.can_read_file), one per analysis and field."""

    __table_args__ = (UniqueConstraint("analysis_id", "field_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    analysis_id: Mapped[int] = mapped_column(ForeignKey("purchase_analysis.id", ondelete="CASCADE"))
    field_id: Mapped[int] = mapped_column(Integer)  # the dynamic field's id (its inputs key)
