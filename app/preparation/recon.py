"""Reconditioning cost of station tasks (issue 33): cost lines, the division's approval limit
and the manager's approval an estimate above it waits for.

A task's estimate is entered while it waits, its actuals once it has started. An estimate above
the limit of the vehicle's division (ReconLimit: the division's row, else the instance's) asks
for approval when the line that crosses it is saved; Start is refused until the newest approval
of the task is approved for at least the estimate. Approvers are the holders of
ROLE_MANAGER_ADMIN ("Manager") who see the vehicle's division and module (docs/decisions.md).
Every line, request and decision is written to the audit log with the vehicle's id, so the
vehicle's history shows them."""

from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from flask import url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import func, select

from app.auth.models import Membership, User
from app.core import audit
from app.core import roles as R
from app.core.formatting import decimal_format
from app.core.happenings import announce
from app.core.i18n import DEFAULT_LOCALE, user_time_zone
from app.core.models import Country, Division, Region, utcnow
from app.core.notifications import NOTIFICATION_TEXTS, notify
from app.extensions import db
from app.mail.services import send_mail
from app.preparation.models import ItemStationTask, PreparationItem, Station
from app.preparation.recon_models import (
    ACTUAL,
    APPROVED,
    ESTIMATE,
    KINDS,
    LABOUR,
    PENDING,
    REJECTED,
    ReconApproval,
    ReconLimit,
    ReconLine,
)

AMOUNT_MAX = Decimal("99999999.99")
HOURS_MAX = Decimal("999.99")
DESCRIPTION_MAX = 200
COMMENT_MAX = 500
CENT = Decimal("0.01")
APPROVER_ROLE = R.ROLE_MANAGER_ADMIN


class ReconError(ValueError):
    """A refused cost line or decision, with a message for the user and the field it is about."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def parse_decimal(raw, field: str, high: Decimal) -> Decimal:
    """A positive amount as people type it: "1 234,50", "1234.5" or "1,234.50"."""
    text = str(raw or "").strip().replace("\u00a0", "").replace("\u202f", "").replace(" ", "")
    if "," in text and "." in text:
        text = text.replace(",", "") if text.rfind(".") > text.rfind(",") else text.replace(".", "")
    text = text.replace(",", ".")
    try:
        value = Decimal(text)
    except InvalidOperation:
        value = None
    if value is None or not value.is_finite() or value <= 0 or value > high:
        raise ReconError(
            _(
                "Enter a number greater than 0 and at most %(max)s.",
                max=decimal_format("#,##0")(high),
            ),
            field,
        )
    return value.quantize(CENT, ROUND_HALF_UP)


def money(value, whole: bool = False) -> str:
    """An amount as the reader's language writes it: whole units, or with its two decimals."""
    return decimal_format("#,##0" if whole else "#,##0.00")(Decimal(value or 0))


def currency_of(division_id: int) -> str:
    """The currency of a division's country."""
    return db.session.scalar(
        select(Country.currency)
        .join(Region, Region.country_id == Country.id)
        .join(Division, Division.region_id == Region.id)
        .where(Division.id == division_id)
    )


def currencies(division_ids) -> dict[int, str]:
    """{division id: currency} of these divisions (one query)."""
    return dict(
        db.session.execute(
            select(Division.id, Country.currency)
            .join(Region, Region.id == Division.region_id)
            .join(Country, Country.id == Region.country_id)
            .where(Division.id.in_(list(division_ids)))
        ).all()
    )


def limit_for(module: str, division_id: int) -> Decimal | None:
    """The approval limit of a division: its own, else the whole instance's; None: none."""
    rows = db.session.execute(
        select(ReconLimit.division_id, ReconLimit.amount).where(
            ReconLimit.module == module,
            (ReconLimit.division_id == division_id) | ReconLimit.division_id.is_(None),
        )
    ).all()
    own = [a for d, a in rows if d == division_id]
    whole = [a for d, a in rows if d is None]
    return (own or whole or [None])[0]


# --- totals of one vehicle's tasks ---------------------------------------------------------------


def task_sums(item_id: int) -> dict[int, dict[str, Decimal]]:
    """{task id: {"estimate": sum, "actual": sum}} of one vehicle (one grouped query)."""
    sums: dict[int, dict[str, Decimal]] = {}
    for task_id, phase, total in db.session.execute(
        select(ReconLine.task_id, ReconLine.phase, func.sum(ReconLine.amount))
        .where(ReconLine.item_id == item_id)
        .group_by(ReconLine.task_id, ReconLine.phase)
    ):
        sums.setdefault(task_id, {ESTIMATE: Decimal(0), ACTUAL: Decimal(0)})[phase] = Decimal(
            total or 0
        )
    return sums


def estimate_of(task_id: int) -> Decimal:
    return Decimal(
        db.session.scalar(
            select(func.coalesce(func.sum(ReconLine.amount), 0)).where(
                ReconLine.task_id == task_id, ReconLine.phase == ESTIMATE
            )
        )
        or 0
    )


def lines_of(item_id: int) -> list[ReconLine]:
    """Every cost line of a vehicle, by task, phase and entry."""
    return list(
        db.session.scalars(
            select(ReconLine)
            .where(ReconLine.item_id == item_id)
            .order_by(ReconLine.task_id, ReconLine.phase.desc(), ReconLine.id)
        )
    )


def newest_approvals(item_id: int) -> dict[int, ReconApproval]:
    """The newest approval of each of a vehicle's tasks (one query)."""
    newest: dict[int, ReconApproval] = {}
    for row in db.session.scalars(
        select(ReconApproval)
        .where(ReconApproval.item_id == item_id)
        .order_by(ReconApproval.requested_at, ReconApproval.id)
    ):
        newest[row.task_id] = row
    return newest


def newest_approval(task_id: int) -> ReconApproval | None:
    return db.session.scalars(
        select(ReconApproval)
        .where(ReconApproval.task_id == task_id)
        .order_by(ReconApproval.requested_at.desc(), ReconApproval.id.desc())
        .limit(1)
    ).first()


def days_waited(approval: ReconApproval | None, now: datetime | None = None) -> float | None:
    """Days from the request to the decision (or until now while it waits), to a tenth."""
    if approval is None:
        return None
    end = approval.decided_at or now or utcnow()
    return round((end - approval.requested_at).total_seconds() / 86400, 1)


# --- the start rule ------------------------------------------------------------------------------


def covers(approval: ReconApproval | None, estimate: Decimal) -> bool:
    return approval is not None and approval.status == APPROVED and approval.amount >= estimate


def start_refusal(item: PreparationItem, task: ItemStationTask) -> str | None:
    """Why the task may not start yet (its estimate waits for approval), or None."""
    limit = limit_for(item.module, item.division_id)
    if limit is None:
        return None
    estimate = estimate_of(task.id)
    if estimate <= limit:
        return None
    approval = newest_approval(task.id)
    if covers(approval, estimate):
        return None
    if approval is not None and approval.status == REJECTED and approval.amount >= estimate:
        return _("A manager rejected the estimate of this task. Lower the estimate first.")
    return _(
        "The estimate of this task is above the division's limit of %(limit)s: "
        "a manager must approve it before the work starts.",
        limit=f"{decimal_format('#,##0')(limit)} {currency_of(item.division_id)}",
    )


# --- cost lines ----------------------------------------------------------------------------------


def phase_for(task: ItemStationTask) -> str:
    """What a task's lines are now: its estimate while it waits, its actual cost once started."""
    return ESTIMATE if task.status == "pending" else ACTUAL


def add_line(
    item: PreparationItem, task: ItemStationTask, user, kind: str, description: str, quantity
) -> ReconLine:
    """Add a cost line to the task (`quantity`: hours for labour, the amount otherwise); an
    estimate that crosses the limit asks for approval."""
    if kind not in KINDS:
        raise ReconError(_("Choose parts, labour or sublet."), "kind")
    description = (description or "").strip()
    if len(description) > DESCRIPTION_MAX:
        raise ReconError(_("At most %(max)s characters.", max=DESCRIPTION_MAX), "description")
    hours = rate = None
    if kind == LABOUR:
        rate = db.session.scalar(select(Station.hourly_rate).where(Station.id == task.station_id))
        if rate is None:
            raise ReconError(
                _("This station has no hourly rate yet. Ask your administrator to set one."),
                "quantity",
            )
        hours = parse_decimal(quantity, "quantity", HOURS_MAX)
        amount = (hours * Decimal(rate)).quantize(CENT, ROUND_HALF_UP)
    else:
        amount = parse_decimal(quantity, "quantity", AMOUNT_MAX)
    phase = phase_for(task)
    line = ReconLine(
        item_id=item.id, task_id=task.id, phase=phase, kind=kind, description=description,
        hours=hours, rate=rate, amount=amount, created_by_id=user.id,
    )  # fmt: skip
    db.session.add(line)
    db.session.flush()
    _record("preparation.recon.line", user, item, task, phase=phase, kind=kind,
            amount=str(amount), description=description)  # fmt: skip
    if phase == ESTIMATE:
        ask_if_needed(item, task, user)
    return line


def remove_line(item: PreparationItem, task: ItemStationTask, line: ReconLine, user) -> None:
    """Take back a line of the task's current phase (a mistyped one)."""
    if line.task_id != task.id or line.phase != phase_for(task):
        raise ReconError(_("This line can no longer be changed."))
    _record("preparation.recon.remove", user, item, task, phase=line.phase, kind=line.kind,
            amount=str(line.amount), description=line.description)  # fmt: skip
    db.session.delete(line)
    db.session.flush()


def ask_if_needed(item: PreparationItem, task: ItemStationTask, user) -> ReconApproval | None:
    """Put the task's estimate to the managers when it is above the limit and no approval
    covers it or waits already."""
    limit = limit_for(item.module, item.division_id)
    estimate = estimate_of(task.id)
    if limit is None or estimate <= limit:
        return None
    newest = newest_approval(task.id)
    if covers(newest, estimate):
        return None
    if newest is not None and newest.status == PENDING:
        newest.amount = estimate  # the managers decide on what the estimate is now
        return newest
    approval = ReconApproval(
        item_id=item.id, task_id=task.id, amount=estimate, requested_by_id=user.id,
        requested_at=utcnow(),
    )  # fmt: skip
    db.session.add(approval)
    db.session.flush()
    _record("preparation.recon.request", user, item, task, amount=str(estimate))
    _tell_approvers(item, task, approval)
    return approval


# --- the decision ----------------------------------------------------------------------------------


def may_approve(v, item: PreparationItem) -> bool:
    """Whether the viewer is a manager of the vehicle's division and module."""
    return (
        v is not None
        and v.has(APPROVER_ROLE)
        and item.module in v.modules
        and item.division_id in {d.id for d in v.visible_divisions}
    )


def decide(
    item: PreparationItem, approval: ReconApproval, user, approve: bool, comment: str
) -> None:
    """Approve or reject a waiting estimate, with who, when and an optional comment."""
    comment = (comment or "").strip()
    if len(comment) > COMMENT_MAX:
        raise ReconError(_("At most %(max)s characters.", max=COMMENT_MAX), "comment")
    if approval.status != PENDING:
        raise ReconError(_("This estimate has been decided already."))
    if not approve and not comment:
        raise ReconError(_("Say why the estimate is rejected."), "comment")
    approval.status = APPROVED if approve else REJECTED
    approval.decided_by_id, approval.decided_at, approval.comment = user.id, utcnow(), comment
    task = db.session.get(ItemStationTask, approval.task_id)
    _record(f"preparation.recon.{approval.status}", user, item, task,
            amount=str(approval.amount), comment=comment)  # fmt: skip
    db.session.flush()


def approvers(instance_id: int, item: PreparationItem) -> list[User]:
    """The active managers of the vehicle's instance who see its division and module."""
    members = db.session.scalars(
        select(User)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.instance_id == instance_id, User.active.is_(True))
        .execution_options(all_instances=True)
    ).all()
    chosen = []
    for user in members:
        membership = user.membership_in(instance_id)
        if APPROVER_ROLE not in user.roles_in(instance_id):
            continue
        if item.module not in (membership.modules or []):
            continue
        if membership.all_divisions or item.division_id in {d.id for d in user.divisions}:
            chosen.append(user)
    return chosen


NOTIFICATION_TEXTS["recon_approval"] = _l(
    "%(station)s: an estimate of %(amount)s %(currency)s for %(regno)s waits for your approval"
)


def _tell_approvers(item: PreparationItem, task: ItemStationTask, approval: ReconApproval):
    """Tell the managers (in the app and by e-mail) and announce the request (webhooks and event
    rules hook on)."""
    currency = currency_of(item.division_id)
    station = task.station.name
    link = url_for("preparation.recon_approvals", module=item.module, _external=True)
    managers = approvers(item.instance_id, item)
    notify(
        item.instance_id, [u.id for u in managers], "recon_approval",
        link=url_for("preparation.recon_approvals", module=item.module), station=station,
        amount=str(approval.amount), currency=currency, regno=item.regno,
    )  # fmt: skip
    for user in managers:
        options = user.options or {}
        send_mail(
            to=user.email, template="recon_approval", kind="recon_approval",
            language=options.get("language") or DEFAULT_LOCALE, instance_id=item.instance_id,
            time_zone=user_time_zone(user), regno=item.regno, model=item.full_model_name,
            station=station, amount=approval.amount, currency=currency, approvals_url=link,
        )  # fmt: skip
    announce("task.approval_requested", item.instance_id, itemId=item.id, module=item.module,
             regno=item.regno, divisionId=item.division_id, taskId=task.id, station=station,
             amount=str(approval.amount), currency=currency)  # fmt: skip


def _record(action: str, user, item: PreparationItem, task, **details) -> None:
    audit.record(
        action, user=user, division_id=item.division_id, item_id=item.id,
        task_id=task.id if task else None, station=task.station.name if task else "", **details,
    )  # fmt: skip


# --- the managers' queue -----------------------------------------------------------------------


@dataclass(frozen=True)
class WaitingRow:
    approval: ReconApproval
    item: PreparationItem
    station: str
    division: str
    currency: str
    asked_by: str | None


def waiting(module: str, division_ids) -> list[WaitingRow]:
    """The estimates waiting for a manager in these divisions, oldest first (one query)."""
    rows = db.session.execute(
        select(ReconApproval, PreparationItem, Station.name, Division.name, Country.currency, User)
        .join(PreparationItem, PreparationItem.id == ReconApproval.item_id)
        .join(ItemStationTask, ItemStationTask.id == ReconApproval.task_id)
        .join(Station, Station.id == ItemStationTask.station_id)
        .join(Division, Division.id == PreparationItem.division_id)
        .join(Region, Region.id == Division.region_id)
        .join(Country, Country.id == Region.country_id)
        .outerjoin(User, User.id == ReconApproval.requested_by_id)
        .where(
            ReconApproval.status == PENDING,
            PreparationItem.module == module,
            PreparationItem.division_id.in_(list(division_ids)),
        )
        .order_by(ReconApproval.requested_at, ReconApproval.id)
        .limit(200)
    ).all()
    return [WaitingRow(a, i, s, d, c, u.full_name if u else None) for a, i, s, d, c, u in rows]


def find_approval(item_id: int, approval_id: int) -> ReconApproval | None:
    return db.session.scalars(
        select(ReconApproval).where(
            ReconApproval.id == approval_id, ReconApproval.item_id == item_id
        )
    ).first()


def find_line(item_id: int, line_id: int) -> ReconLine | None:
    return db.session.scalars(
        select(ReconLine).where(ReconLine.id == line_id, ReconLine.item_id == item_id)
    ).first()
