"""Acting as another user and changing the active instance (spec 01 sections 4 and 5)."""

from sqlalchemy import select

from app.core.audit import AuditLog
from app.extensions import db
from tests.factories import make_instance, make_user
from tests.helpers import sign_in
from tests.shell.conftest import demo_user


def impersonate(client, token, user_id):
    return client.post(f"/api/impersonate/{user_id}", headers={"X-CSRFToken": token})


def test_manager_admin_lists_users_of_the_active_instance(as_demo):
    client, _ = as_demo("admin")
    body = client.get("/api/users/detailed-list?pagination=false").get_json()
    emails = {u["username"] for u in body["hydra:member"]}
    assert {"seller@demo.test", "station@demo.test", "admin@demo.test"} <= emails
    assert "buyer@demo.test" not in emails  # another instance
    assert body["currentUserId"] == demo_user("admin@demo.test").id


def test_plain_users_cannot_list_users(as_demo):
    client, _ = as_demo("seller")
    assert client.get("/api/users/detailed-list?pagination=false").status_code == 403


def test_acting_as_a_user_and_returning_is_audited(as_demo):
    client, token = as_demo("admin")
    seller = demo_user("seller@demo.test")
    response = impersonate(client, token, seller.id)
    assert response.status_code == 200
    page = client.get("/user").get_data(as_text=True)
    assert "You are acting as Sara Lindqvist" in page
    assert "Return to my account" in page
    back = client.post("/impersonate/exit", data={"csrf_token": token})
    assert back.status_code == 302
    page = client.get("/user").get_data(as_text=True)
    assert "You are acting as" not in page and "Ada Admin" in page
    actions = [a.action for a in db.session.scalars(select(AuditLog).order_by(AuditLog.id))]
    assert actions[-2:] == ["impersonation_start", "impersonation_end"]


def test_an_impersonated_session_gains_no_role_the_impersonator_lacks(as_demo):
    client, token = as_demo("admin")
    seller = demo_user("seller@demo.test")
    impersonate(client, token, seller.id)
    me = client.get("/api/me").get_json()
    assert me["username"] == "seller@demo.test"
    # The seller holds ROLE_STATISTICS, the admin does not: the session must not have it.
    assert "ROLE_STATISTICS" not in me["roles"]
    nav = client.get("/user").get_data(as_text=True)
    assert 'data-menu-key="begcare.statistics"' not in nav


def test_an_impersonated_session_cannot_impersonate_further(as_demo):
    client, token = as_demo("admin")
    impersonate(client, token, demo_user("seller@demo.test").id)
    station = demo_user("station@demo.test")
    assert impersonate(client, token, station.id).status_code in (403, 404)


def test_users_without_is_impersonator_cannot_act_as_others(as_demo):
    client, token = as_demo("seller")
    assert impersonate(client, token, demo_user("station@demo.test").id).status_code == 404


def test_impersonating_a_user_of_another_instance_is_refused(client):
    home, other = make_instance(), make_instance()
    actor = make_user(home, roles=["IS_IMPERSONATOR"])
    stranger = make_user(other)
    token = sign_in(client, actor)
    assert impersonate(client, token, stranger.id).status_code == 404
    assert client.get("/api/me").get_json()["id"] == actor.id


def test_instances_are_listed_and_the_active_one_changes(as_demo):
    client, token = as_demo("admin")
    body = client.get("/api/me/instances").get_json()
    names = [i["companyName"] for i in body["hydra:member"]]
    assert names == ["Fjordauto AS", "Nordbil AB"]
    other = next(i for i in body["hydra:member"] if i["id"] != body["activeInstanceId"])
    changed = client.patch(
        f"/api/me/change-active-instance/{other['id']}", headers={"X-CSRFToken": token}
    )
    assert changed.status_code == 200
    assert changed.get_json()["activeInstanceId"] == other["id"]
    page = client.get("/begcare").get_data(as_text=True)
    assert "Fjordauto Oslo Sentrum" in page and "Nordbil Solna" not in page


def test_changing_to_an_instance_the_user_has_no_access_to_is_refused(as_demo):
    client, token = as_demo("seller")
    foreign = make_instance()
    response = client.patch(
        f"/api/me/change-active-instance/{foreign.id}", headers={"X-CSRFToken": token}
    )
    assert response.status_code == 404


def test_changing_instance_needs_csrf(as_demo):
    client, _ = as_demo("admin")
    ids = [i["id"] for i in client.get("/api/me/instances").get_json()["hydra:member"]]
    assert client.patch(f"/api/me/change-active-instance/{ids[0]}").status_code == 400
