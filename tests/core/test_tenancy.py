"""Tenancy: every query on an instance's rows sees only the active instance."""

import pytest
from sqlalchemy import delete, func, select, update

from app.auth.models import Group
from app.core.models import Country, Division, Region
from app.core.tenancy import activate
from app.extensions import db
from tests.factories import make_instance

SCOPED = [Division, Region, Country, Group]


@pytest.fixture
def two_instances():
    a, b = make_instance("Company A", divisions=2), make_instance("Company B", divisions=3)
    for instance in (a, b):
        activate(instance.id)
        db.session.add(Group(name=f"Sales {instance.company_name}", roles=["ROLE_USER"]))
        db.session.flush()
    activate(None)
    db.session.expunge_all()  # later reads must come from the database, not the identity map
    yield a, b
    activate(None)


def ids_of(model, instance_id) -> set[int]:
    stmt = select(model.id).where(model.instance_id == instance_id)
    return set(db.session.scalars(stmt.execution_options(all_instances=True)))


@pytest.mark.parametrize("model", SCOPED, ids=lambda m: m.__name__)
def test_a_select_sees_only_the_active_instances_rows(two_instances, model):
    a, b = two_instances
    activate(a.id)
    rows = db.session.scalars(select(model)).all()
    assert rows
    assert {row.instance_id for row in rows} == {a.id}
    assert {row.id for row in rows} == ids_of(model, a.id)
    activate(b.id)
    assert {row.instance_id for row in db.session.scalars(select(model))} == {b.id}


BUILT_ONCE = select(Division.id, Division.instance_id).order_by(Division.id)


def test_a_statement_built_once_is_limited_to_each_instance_in_turn(two_instances, monkeypatch):
    """The hook keeps a limited copy of a statement per instance: run again and again, in
    turn for A and B (and past the copies kept), each run sees only its own instance."""
    from app.core import tenancy

    a, b = two_instances
    monkeypatch.setattr(tenancy, "LIMITED_COPIES", 1)  # every switch drops the other's copy
    for instance in (a, b, a, a, b, b, a):
        activate(instance.id)
        rows = db.session.execute(BUILT_ONCE).all()
        assert {row.id for row in rows} == ids_of(Division, instance.id)
        assert {row.instance_id for row in rows} == {instance.id}
    activate(None)
    assert len(db.session.execute(BUILT_ONCE).all()) >= 5  # no instance: no scope, as before


@pytest.mark.parametrize("model", SCOPED, ids=lambda m: m.__name__)
def test_counts_and_joins_are_scoped_too(two_instances, model):
    a, b = two_instances
    activate(a.id)
    assert db.session.scalar(select(func.count(model.id))) == len(ids_of(model, a.id))
    joined = select(Division).join(Region).join(Country)
    assert {d.instance_id for d in db.session.scalars(joined)} == {a.id}


def test_another_instances_row_cannot_be_got_by_its_id(two_instances):
    a, b = two_instances
    b_division = min(ids_of(Division, b.id))
    activate(a.id)
    assert db.session.get(Division, b_division) is None
    assert db.session.scalars(select(Division).where(Division.id == b_division)).first() is None
    activate(b.id)
    assert db.session.get(Division, b_division) is not None


def test_relationships_do_not_lead_into_another_instance(two_instances):
    a, b = two_instances
    activate(a.id)
    for region in db.session.scalars(select(Region)):
        assert {d.instance_id for d in region.divisions} <= {a.id}


def test_updates_and_deletes_touch_only_the_active_instance(two_instances):
    a, b = two_instances
    activate(a.id)
    db.session.execute(update(Division).values(disabled=True))
    activate(b.id)
    db.session.execute(delete(Group))
    activate(None)
    disabled = db.session.scalars(
        select(Division.instance_id).where(Division.disabled.is_(True))
    ).all()
    assert set(disabled) == {a.id}
    assert ids_of(Group, a.id) and not ids_of(Group, b.id)


def test_a_new_row_gets_the_active_instance(two_instances):
    a, b = two_instances
    activate(b.id)
    group = Group(name="New group", roles=[])
    db.session.add(group)
    db.session.flush()
    assert group.instance_id == b.id


def test_a_row_for_another_instance_is_refused(two_instances):
    a, b = two_instances
    activate(a.id)
    region_b = db.session.scalars(
        select(Region).where(Region.instance_id == b.id).execution_options(all_instances=True)
    ).first()
    with pytest.raises(PermissionError):  # refused when added (tests/core/test_tenancy_add_time)
        db.session.add(
            Division(name="Smuggled", slug="smuggled", region=region_b, instance_id=b.id)
        )
    db.session.rollback()


def test_a_row_without_any_instance_is_refused(two_instances):
    activate(None)
    db.session.add(Group(name="Nobody's", roles=[]))
    with pytest.raises(RuntimeError):
        db.session.flush()
    db.session.rollback()


def test_all_instances_sees_every_instances_rows(two_instances):
    a, b = two_instances
    activate(a.id)
    stmt = select(Division).execution_options(all_instances=True)
    assert {d.instance_id for d in db.session.scalars(stmt)} >= {a.id, b.id}
