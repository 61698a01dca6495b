"""What the pages show of reconditioning cost: a vehicle's estimate against actual per task,
per station and in total, with the days each task waited for approval; and the cost of the
tasks on a station user's cards. A fixed number of queries however many tasks and lines."""

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from sqlalchemy import select

from app.extensions import db
from app.preparation import recon
from app.preparation.recon_models import ACTUAL, ESTIMATE, ReconApproval, ReconLine

ZERO = Decimal(0)


class Compared:
    """An estimate against the actual cost (`estimate`, `actual`)."""

    estimate: Decimal
    actual: Decimal

    @property
    def difference(self) -> Decimal:
        return self.actual - self.estimate

    @property
    def over(self) -> bool:
        return self.actual > self.estimate


@dataclass
class TaskCost(Compared):
    """One task's lines and sums, and its newest approval."""

    task_id: int
    station: str = ""
    estimate: Decimal = ZERO
    actual: Decimal = ZERO
    lines: list[ReconLine] = field(default_factory=list)
    approval: ReconApproval | None = None
    days_waited: float | None = None

    @property
    def estimate_lines(self) -> list[ReconLine]:
        return [line for line in self.lines if line.phase == ESTIMATE]

    @property
    def actual_lines(self) -> list[ReconLine]:
        return [line for line in self.lines if line.phase == ACTUAL]


@dataclass(frozen=True)
class StationCost(Compared):
    station: str
    estimate: Decimal
    actual: Decimal


@dataclass(frozen=True)
class VehicleCost(Compared):
    currency: str
    limit: Decimal | None
    tasks: list[TaskCost]
    stations: list[StationCost]
    estimate: Decimal
    actual: Decimal

    @property
    def any(self) -> bool:
        return any(t.lines or t.approval for t in self.tasks)

    def of(self, task_id: int) -> TaskCost:
        return next((t for t in self.tasks if t.task_id == task_id), TaskCost(task_id))


def task_costs(task_ids, now: datetime | None = None) -> dict[int, TaskCost]:
    """{task id: TaskCost} of these tasks: two queries (lines, approvals)."""
    task_ids = list(task_ids)
    costs = {t: TaskCost(t) for t in task_ids}
    if not task_ids:
        return costs
    for line in db.session.scalars(
        select(ReconLine).where(ReconLine.task_id.in_(task_ids)).order_by(ReconLine.id)
    ):
        cost = costs[line.task_id]
        cost.lines.append(line)
        if line.phase == ESTIMATE:
            cost.estimate += line.amount
        else:
            cost.actual += line.amount
    for approval in db.session.scalars(
        select(ReconApproval)
        .where(ReconApproval.task_id.in_(task_ids))
        .order_by(ReconApproval.requested_at, ReconApproval.id)
    ):
        costs[approval.task_id].approval = approval
        costs[approval.task_id].days_waited = recon.days_waited(approval, now)
    return costs


def vehicle_costs(item, task_rows, now: datetime | None = None) -> VehicleCost:
    """A vehicle's cost per task (in the tasks' order), per station and in total."""
    costs = task_costs([row.task.id for row in task_rows], now)
    tasks = []
    stations: dict[str, list[Decimal]] = {}
    for row in task_rows:
        cost = costs[row.task.id]
        cost.station = row.station
        tasks.append(cost)
        sums = stations.setdefault(row.station, [ZERO, ZERO])
        sums[0] += cost.estimate
        sums[1] += cost.actual
    return VehicleCost(
        currency=recon.currency_of(item.division_id),
        limit=recon.limit_for(item.module, item.division_id),
        tasks=tasks,
        stations=[StationCost(name, e, a) for name, (e, a) in stations.items()],
        estimate=sum((t.estimate for t in tasks), ZERO),
        actual=sum((t.actual for t in tasks), ZERO),
    )
