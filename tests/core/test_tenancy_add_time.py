"""Issue 18, defect 7: a new row belongs to the instance active when it was added, not the one
active when the session happens to flush; and the demo's vehicle requests are their buyers'."""

import pytest
from sqlalchemy import select

from app.auth.models import Group
from app.core.models import Division, Region
from app.core.tenancy import activate
from app.extensions import db
from app.market.models import InstanceGroup, VehicleRequest
from tests.core.test_tenancy import two_instances  # noqa: F401
from tests.helpers import page_text, sign_in
from tests.shell.conftest import demo_user


def test_a_row_belongs_to_the_instance_active_when_it_was_added(two_instances):  # noqa: F811
    a, b = two_instances
    activate(a.id)
    first = Group(name="Added in A", roles=[])
    db.session.add(first)
    activate(b.id)
    second = Group(name="Added in B", roles=[])
    db.session.add(second)
    db.session.flush()
    assert (first.instance_id, second.instance_id) == (a.id, b.id)
    activate(None)


def test_a_row_cascaded_in_gets_the_instance_active_then(two_instances):  # noqa: F811
    a, b = two_instances
    activate(a.id)
    region = db.session.scalars(select(Region)).first()
    division = Division(name="Cascaded", slug="cascaded")
    region.divisions.append(division)  # cascaded into the session now, with A active
    activate(b.id)
    db.session.flush()
    assert division.instance_id == a.id
    activate(None)


def test_a_row_for_another_instance_is_refused_when_added(two_instances):  # noqa: F811
    a, b = two_instances
    activate(a.id)
    with pytest.raises(PermissionError):
        db.session.add(Group(name="Smuggled", roles=[], instance_id=b.id))
    db.session.rollback()
    activate(None)


def test_a_row_moved_to_another_instance_after_it_was_added_is_refused(two_instances):  # noqa: F811
    a, b = two_instances
    activate(a.id)
    group = Group(name="Moved", roles=[])
    db.session.add(group)
    group.instance_id = b.id
    with pytest.raises(PermissionError):
        db.session.flush()
    db.session.rollback()
    activate(None)


def test_the_demos_vehicle_requests_belong_to_their_buyers(demo_app, demo_client):
    groups = db.session.scalars(select(InstanceGroup).execution_options(all_instances=True)).all()
    by_id = {g.id: g for g in groups}
    requests = db.session.scalars(
        select(VehicleRequest).execution_options(all_instances=True)
    ).all()
    assert requests
    for request in requests:
        assert request.instance_id == by_id[request.group_id].instance_id, request.model
    sign_in(demo_client, demo_user("buyer@demo.test"))
    page = page_text(demo_client.get("/market/vehicle-requests?lang=en-GB"))
    assert "XC60" in page and "Model Y" in page
