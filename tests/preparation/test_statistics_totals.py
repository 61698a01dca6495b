"""The statistics page's figures from the monthly totals (issue 33) are the figures counted from
the rows themselves, on the demo's year of data and after every kind of write a user makes:
a cost line added, changed and taken back, a task started and finished, a vehicle moved into
another month, given another division, model or salesperson, and deleted, events inserted as
the import inserts them, a holiday added, a station deleted. And the totals kept write by write are the totals
the backfill computes afresh."""

from datetime import timedelta
from decimal import Decimal

import pytest
from flask import g
from sqlalchemy import insert, select

from app.auth.models import User
from app.core.models import Division, Instance, utcnow
from app.core.settings import Holiday, SettingRow
from app.core.tenancy import activate
from app.core.workdays import FLAG, WorkingDays, day_counter
from app.extensions import db
from app.preparation import recon, tasks
from app.preparation import recon_statistics as raw_recon
from app.preparation import statistics as raw
from app.preparation import statistics_totals as kept
from app.preparation.models import ItemStateEvent, ItemStationTask, PreparationItem, Station
from app.preparation.recon_models import ReconLine
from app.preparation.services import move_item
from app.preparation.totals import rebuild
from app.preparation.totals_models import FlowMonthTotal, ReconMonthTotal
from tests.factories import make_instance, make_user
from tests.helpers import page_text, sign_in
from tests.preparation.manage_helpers import demo_item, in_seller_instance
from tests.shell.conftest import demo_user


def figures(source, recon_source, module: str, division_ids: list[int]) -> dict:
    return {
        "throughput": source.throughput(module, division_ids),
        "days per state": source.days_per_state(module, division_ids),
        "minutes per station": source.minutes_per_station(module, division_ids),
        "sales per salesperson": source.sales_by_salesperson(module, division_ids),
        "reconditioning": recon_source.recon_figures(module, division_ids),
    }


def working_days() -> WorkingDays:
    """The seller instance's working days, its holidays read afresh."""
    instance = db.session.get(Instance, in_seller_instance())
    instance.options = {**(instance.options or {}), "configuration": {FLAG: True}}
    g.pop("day_counters", None)
    return day_counter(instance)


def assert_same_figures() -> None:
    """Every figure of both modules, for all divisions and for each one alone, from the
    totals and from the rows; the days per state in calendar and in working days."""
    db.session.flush()
    counter = working_days()
    divisions = list(db.session.scalars(select(Division.id).order_by(Division.id)))
    for module in ("begcare", "newcare"):
        for chosen in (divisions, *([d] for d in divisions)):
            from_rows = figures(raw, raw_recon, module, chosen)
            from_rows["working days per state"] = raw.days_per_state(
                module, chosen, count_days=counter
            )
            from_totals = figures(kept, kept, module, chosen)
            from_totals["working days per state"] = kept.days_per_state(
                module, chosen, working=True
            )
            for name, expected in from_rows.items():
                assert from_totals[name] == expected, f"{name}, {module}, divisions {chosen}"


def totals_rows() -> dict:
    """Every non-empty total, floats to a millionth (sums of days and minutes)."""
    found = {}
    for model in (ReconMonthTotal, FlowMonthTotal):
        for row in db.session.scalars(select(model).execution_options(all_instances=True)):
            values = tuple(
                round(v, 6) if isinstance(v, float) else v
                for v in (getattr(row, name) for name in model.VALUES)
            )
            if any(values):
                found[(model.__name__, *(getattr(row, k) for k in model.KEY))] = values
    return found


def assert_kept_as_rebuilt() -> None:
    db.session.flush()
    kept_rows = totals_rows()
    rebuild(db.session.connection())
    db.session.expire_all()
    assert totals_rows() == kept_rows


def test_the_demo_years_figures_are_the_same_from_totals_and_from_rows(as_demo):
    in_seller_instance()
    assert db.session.scalar(select(ReconMonthTotal.id).limit(1)) is not None
    assert_same_figures()
    assert_kept_as_rebuilt()


def pending_task() -> ItemStationTask:
    """A pending task of a used vehicle in the flow, at a station with an hourly rate."""
    return db.session.scalars(
        select(ItemStationTask)
        .join(PreparationItem, PreparationItem.id == ItemStationTask.item_id)
        .where(
            ItemStationTask.status == "pending",
            PreparationItem.module == "begcare",
            PreparationItem.state == 4,
        )
        .order_by(ItemStationTask.id)
    ).first()


def test_every_write_keeps_the_figures_the_rows_give(as_demo):
    in_seller_instance()
    user = demo_user("seller@demo.test")
    worker = tasks.Worker(user, None)
    task = pending_task()
    item = db.session.get(PreparationItem, task.item_id)

    estimate = recon.add_line(item, task, user, "parts", "Brake discs", "4 000")
    assert_same_figures()
    tasks.start_task(task, worker)  # the conditional UPDATE of tasks.py
    actual = recon.add_line(item, task, user, "sublet", "Alignment", "900")
    recon.add_line(item, task, user, "parts", "Discs", "5 200,50")
    assert_same_figures()
    actual.amount = Decimal("1250.00")  # a line changed
    assert_same_figures()
    recon.remove_line(item, task, actual, user)
    assert_same_figures()
    tasks.finish_task(task, worker)
    assert_same_figures()
    assert estimate.phase == "estimate"

    # a vehicle moved into an earlier month and sold there, by a salesperson
    earlier = utcnow() - timedelta(days=45)
    move_item(item, 6, user.id, when=earlier)
    item.salesperson_id = db.session.scalars(select(SettingRow.id).limit(1)).first()
    move_item(item, 7, user.id, when=earlier + timedelta(days=2))
    assert_same_figures()
    # its salesperson, model and division changed: every share of it moves
    item.salesperson_id = None
    item.brand, item.model = "Saab", "9-3"
    item.division_id = db.session.scalars(
        select(Division.id).where(Division.id != item.division_id).order_by(Division.id)
    ).first()
    assert_same_figures()
    assert_kept_as_rebuilt()


def test_deletes_and_inserted_events_keep_the_figures_the_rows_give(as_demo):
    instance_id = in_seller_instance()
    sold = db.session.scalars(
        select(PreparationItem)
        .where(PreparationItem.state == 9)
        .where(PreparationItem.id.in_(select(ReconLine.item_id)))
        .order_by(PreparationItem.id.desc())
    ).first()
    assert sold is not None
    db.session.delete(sold)  # its events, tasks and lines go with it (ON DELETE CASCADE)
    assert_same_figures()

    item = demo_item(state=4)
    now = utcnow()
    db.session.execute(  # as the import inserts the first events of its vehicles
        insert(ItemStateEvent.__table__),
        [{"instance_id": instance_id, "item_id": item.id, "from_state": 4, "to_state": 6,
          "created_at": now - timedelta(days=70)},
         {"instance_id": instance_id, "item_id": item.id, "from_state": 6, "to_state": 7,
          "created_at": now - timedelta(days=3)}],
    )  # fmt: skip
    assert_same_figures()

    # a holiday added on a weekday in the middle of the stays: their working days change
    weekday = (now - timedelta(days=30)).date()
    while weekday.weekday() >= 5:
        weekday -= timedelta(days=1)
    db.session.add(Holiday(day=weekday, name="Bench day", country_id=None))
    assert_same_figures()

    station = db.session.scalars(
        select(Station).where(Station.id.in_(select(ItemStationTask.station_id))).limit(1)
    ).one()
    db.session.delete(station)  # its tasks and their cost lines go with it
    assert_same_figures()
    assert_kept_as_rebuilt()


def test_another_instances_sales_and_costs_are_not_counted(client):
    """Totals are the instance's: the figures of a new instance stay empty while another's
    vehicles are sold and reconditioned."""
    instance = make_instance(divisions=1)
    viewer = make_user(instance, modules=["begcare"], all_divisions=True, roles=["ROLE_STATISTICS"])
    other = make_instance(divisions=1)
    activate(other.id)
    division = db.session.scalars(select(Division.id)).one()
    station = Station(module="begcare", name="Tvätt", target_minutes=30, hourly_rate=800)
    item = PreparationItem(
        module="begcare", division_id=division, state=4, regno="OTHER1", brand="Volvo",
        model="V70", state_changed_at=utcnow() - timedelta(days=5),
    )  # fmt: skip
    db.session.add_all([station, item])
    db.session.flush()
    task = ItemStationTask(item_id=item.id, station_id=station.id, status="active")
    db.session.add(task)
    db.session.flush()
    worker_user = db.session.get(User, viewer.id)
    recon.add_line(item, task, worker_user, "labour", "", "2")
    move_item(item, 7)
    db.session.flush()
    activate(instance.id)
    sign_in(client, viewer)
    html = page_text(client.get("/begcare/statistics"))
    assert "Volvo V70" not in html
    assert "1,600" not in html and "1 600" not in html
    mine = list(db.session.scalars(select(Division.id)))
    assert kept.recon_figures("begcare", mine).vehicles == 0
    assert kept.throughput("begcare", mine).total_sold == 0


@pytest.mark.parametrize("module", ["begcare", "newcare"])
def test_the_page_shows_the_totals_figures(as_demo, module):
    """The page reads the totals: its reconditioning table has the vehicles the rows give."""
    client, _ = as_demo("seller")
    divisions = list(db.session.scalars(select(Division.id)))
    in_seller_instance()
    expected = raw_recon.recon_figures(module, divisions)
    html = page_text(client.get(f"/{module}/statistics"))
    for row in expected.models[:3]:
        assert row.label in html


def test_the_recount_command_counts_menus_and_totals_afresh(demo_app):
    """Rows written past the app leave the counters and totals behind until `flask preparation
    recount` counts them again from the rows."""
    from app.preparation.models import ItemStateCount

    kept = totals_rows()
    every = {"all_instances": True}
    counters = dict(
        db.session.execute(
            select(ItemStateCount.id, ItemStateCount.count).execution_options(**every)
        ).all()
    )
    counter = db.session.scalars(
        select(ItemStateCount).where(ItemStateCount.count > 0).execution_options(**every)
    ).first()
    key, before = (counter.module, counter.division_id, counter.state), counter.count
    counter.count += 100
    db.session.execute(FlowMonthTotal.__table__.delete())
    db.session.flush()
    assert totals_rows() != kept
    result = demo_app.test_cli_runner().invoke(args=["preparation", "recount"])
    assert result.exit_code == 0, result.output
    assert "statistics' monthly totals rebuilt" in result.output
    db.session.expire_all()
    assert totals_rows() == kept
    recounted = db.session.execute(
        select(ItemStateCount.module, ItemStateCount.division_id, ItemStateCount.state,
               ItemStateCount.count).execution_options(**every)
    ).all()  # fmt: skip
    assert {(m, d, s): n for m, d, s, n in recounted}[key] == before
    assert sum(n for *_key, n in recounted) == sum(counters.values())
