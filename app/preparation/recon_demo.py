"""Demo reconditioning cost (issue 33): hourly rates, an approval limit per instance, a year of
estimated and actual cost lines on the used vehicles' tasks, and, at the demo station user's
wash, one estimate above the limit waiting for a manager. The same every time."""

import random
from datetime import timedelta
from decimal import Decimal

from sqlalchemy import select

from app.core import audit
from app.core.models import utcnow
from app.core.tenancy import activate
from app.demo import seeder
from app.extensions import db
from app.preparation.demo import _wash_station
from app.preparation.models import ItemStationTask
from app.preparation.recon_models import (
    ACTUAL,
    ESTIMATE,
    LABOUR,
    PARTS,
    SUBLET,
    ReconApproval,
    ReconLimit,
    ReconLine,
)

# Per station position of the begcare stations (demo.STATIONS): rate per hour in SEK (NOK is
# about the same number), typical hours, and what parts or sublet work cost there.
WORK = (
    (950, (1.0, 4.0), (PARTS, "Bromsbelägg och skivor", 800, 6500)),
    (1050, (2.0, 8.0), (SUBLET, "Lackering stötfångare", 2500, 14000)),
    (650, (0.5, 1.0), (PARTS, "Tvättmedel och vax", 80, 300)),
    (650, (1.0, 3.0), (PARTS, "Klädselrengöring", 150, 900)),
    (600, (0.3, 0.7), None),
)
LIMIT = Decimal(15000)


def _money(value: float) -> Decimal:
    return Decimal(str(round(value)))


def _lines(rng, item, task, position, phase, factor=1.0) -> list[ReconLine]:
    rate, (low, high), other = WORK[position]
    hours = Decimal(str(round(rng.uniform(low, high) * factor * 2) / 2 or 0.5))
    lines = [
        ReconLine(
            instance_id=item.instance_id, item_id=item.id, task_id=task.id, phase=phase,
            kind=LABOUR, description="", hours=hours, rate=Decimal(rate),
            amount=hours * rate, created_at=task.started_at or item.state_changed_at,
        )
    ]  # fmt: skip
    if other is not None and rng.random() < 0.7:
        kind, what, lo, hi = other
        lines.append(
            ReconLine(
                instance_id=item.instance_id, item_id=item.id, task_id=task.id, phase=phase,
                kind=kind, description=what, amount=_money(rng.uniform(lo, hi) * factor),
                created_at=task.started_at or item.state_changed_at,
            )
        )  # fmt: skip
    return lines


@seeder(34)
def seed_recon(ctx: dict) -> None:
    """Rates, limits and cost lines of the used vehicles' tasks."""
    rng = random.Random(20261206)  # noqa: S311 - demo data, the same every time
    for instance in ctx["instances"]:
        activate(instance.id)
        stations = ctx["stations"][(instance.id, "begcare")]
        position = {s.id: n for n, s in enumerate(stations)}
        for n, station in enumerate(stations):
            station.hourly_rate = Decimal(WORK[n][0])
        for station in ctx["stations"][(instance.id, "newcare")]:
            station.hourly_rate = Decimal(850)
        # The whole company's limit, and one site that does heavier work has its own.
        own = [d for d in ctx["divisions"].values() if d.instance_id == instance.id][-1]
        for module in ("begcare", "newcare"):
            db.session.add(ReconLimit(module=module, division_id=None, amount=LIMIT))
            db.session.add(ReconLimit(module=module, division_id=own.id, amount=LIMIT * 2))
        items = {i.id: i for i in ctx["items"][instance.id] if i.module == "begcare"}
        tasks = db.session.scalars(
            select(ItemStationTask)
            .where(ItemStationTask.item_id.in_(list(items)))
            .order_by(ItemStationTask.item_id, ItemStationTask.ordering)
        ).all()
        for task in tasks:
            item = items[task.item_id]
            if item.state == 1:
                continue
            at = position[task.station_id]
            estimate = _lines(rng, item, task, at, ESTIMATE)
            db.session.add_all(estimate)
            if task.status != "pending":
                # Most tasks land near their estimate; a few run well over it.
                factor = rng.choice((0.9, 1.0, 1.0, 1.1, 1.2, 1.6))
                db.session.add_all(_lines(rng, item, task, at, ACTUAL, factor))
        db.session.flush()
    _waiting_estimate(ctx)
    activate(None)


def _waiting_estimate(ctx: dict) -> None:
    """The second vehicle at the station user's wash: an estimate above the limit, waiting."""
    station_user = ctx["users"]["station@demo.test"]
    activate(station_user.home_instance_id)
    wash = _wash_station(ctx, station_user)
    solna = ctx["divisions"]["Nordbil Solna"]
    queue = [
        i
        for i in ctx["items"][station_user.home_instance_id]
        if i.module == "begcare" and i.division_id == solna.id and i.state == 4
    ]
    task = item = None
    for candidate in queue:
        tasks = db.session.scalars(
            select(ItemStationTask)
            .where(ItemStationTask.item_id == candidate.id)
            .order_by(ItemStationTask.ordering)
        ).all()
        nxt = next((t for t in tasks if t.status != "done"), None)
        if nxt is not None and nxt.station_id == wash.id and nxt.status == "pending":
            task, item = nxt, candidate
            break
    if task is None:
        return
    asked = utcnow().replace(second=0, microsecond=0) - timedelta(days=2, hours=3)
    line = ReconLine(
        instance_id=item.instance_id, item_id=item.id, task_id=task.id, phase=ESTIMATE,
        kind=SUBLET, description="Keramisk lackskydd", amount=Decimal(16500),
        created_by_id=station_user.id, created_at=asked,
    )  # fmt: skip
    db.session.add(line)
    db.session.flush()
    total = sum(
        db.session.scalars(
            select(ReconLine.amount).where(
                ReconLine.task_id == task.id, ReconLine.phase == ESTIMATE
            )
        )
    )
    db.session.add(
        ReconApproval(
            instance_id=item.instance_id, item_id=item.id, task_id=task.id, amount=total,
            requested_by_id=station_user.id, requested_at=asked,
        )
    )  # fmt: skip
    audit.record(
        "preparation.recon.request", user=station_user, instance_id=item.instance_id,
        division_id=item.division_id, item_id=item.id, task_id=task.id, station=wash.name,
        amount=str(total),
    )  # fmt: skip
    db.session.flush()
