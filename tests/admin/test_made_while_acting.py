"""What an administrator makes while acting as someone is owned and audited as such: the row
and its audit entry name the administrator who made it and the user acted as."""

from datetime import date, timedelta

from sqlalchemy import select

import app.preparation  # noqa: F401  (first: the menu's imports form a cycle otherwise)
from app.auth.tokens import ApiToken
from app.core import roles as R
from app.core.audit import AuditLog
from app.extensions import db
from app.preparation.models import DynamicList
from tests.factories import make_instance, make_user
from tests.helpers import sign_in
from tests.shell.conftest import demo_user

ADMIN = ["ROLE_USER", R.ROLE_ADMIN, *R.ALL_TENANT_ROLES]
EXPIRES = {"expires_on": (date.today() + timedelta(days=30)).isoformat()}


def _act_as(client, token, user_id: int) -> None:
    answer = client.post(f"/api/impersonate/{user_id}", headers={"X-CSRFToken": token})
    assert answer.status_code == 200


def test_an_api_user_made_while_acting_names_the_admin_and_the_user(client):
    instance = make_instance()
    admin = make_user(instance, roles=[*ADMIN, R.IS_IMPERSONATOR])
    colleague = make_user(instance, roles=ADMIN)
    token = sign_in(client, admin)
    _act_as(client, token, colleague.id)
    response = client.post(
        "/admin/core/core-api-users/new",
        data={"csrf_token": token, "name": "Website", "scopes": ["vehicles:read"], **EXPIRES},
    )
    assert response.status_code == 200
    row = db.session.scalars(select(ApiToken)).one()
    assert (row.created_by_id, row.acting_as_id) == (admin.id, colleague.id)
    entry = db.session.scalars(
        select(AuditLog).where(AuditLog.action == f"admin:core/core-api-users:{row.id}:create")
    ).one()
    assert (entry.user_id, entry.acting_user_id) == (admin.id, colleague.id)


def test_an_api_user_made_by_oneself_names_only_its_maker(client):
    admin = make_user(make_instance(), roles=ADMIN)
    token = sign_in(client, admin)
    client.post(
        "/admin/core/core-api-users/new",
        data={"csrf_token": token, "name": "Website", "scopes": ["vehicles:read"], **EXPIRES},
    )
    row = db.session.scalars(select(ApiToken)).one()
    assert (row.created_by_id, row.acting_as_id) == (admin.id, None)


def test_a_saved_filter_made_while_acting_is_the_users_made_by_the_admin(as_demo):
    client, token = as_demo("admin")
    admin, seller = demo_user("admin@demo.test"), demo_user("seller@demo.test")
    _act_as(client, token, seller.id)
    response = client.post(
        "/my-lists",
        data={"csrf_token": token, "module": "begcare", "title": "Made while acting", "q": "volvo"},
    )
    assert response.status_code == 302
    saved = db.session.scalars(
        select(DynamicList).where(DynamicList.title == "Made while acting")
    ).one()
    assert saved.user_id == seller.id  # it is under the seller's My lists
    assert (saved.created_by_id, saved.acting_as_id) == (admin.id, seller.id)
    entry = db.session.scalars(
        select(AuditLog).where(AuditLog.action == "my_lists.dynamic_list.create")
    ).one()
    assert (entry.user_id, entry.acting_user_id) == (admin.id, seller.id)
    assert entry.details["list_id"] == saved.id
