"""The calendar link made while acting as someone (the administrator's, ending with the acting),
and the user's own link ending with "Sign out everywhere" and a new password."""

from datetime import timedelta

from sqlalchemy import select, update

from app.auth.models import UserSession
from app.core.audit import AuditLog
from app.core.models import utcnow
from app.events.models import CalendarFeed
from app.extensions import db
from tests.events.test_events import _make_link
from tests.factories import PASSWORD, make_instance, make_user
from tests.helpers import sign_in
from tests.shell.conftest import demo_user


def _act_as(client, token, email: str) -> None:
    answer = client.post(f"/api/impersonate/{demo_user(email).id}", headers={"X-CSRFToken": token})
    assert answer.status_code == 200


def test_a_link_made_while_acting_is_the_admins_and_ends_with_the_acting(as_demo, demo_app):
    client, token = as_demo("admin")
    admin, seller = demo_user("admin@demo.test"), demo_user("seller@demo.test")
    _act_as(client, token, "seller@demo.test")
    path = _make_link(client, token)
    feed = db.session.scalars(select(CalendarFeed).where(CalendarFeed.user_id == seller.id)).one()
    assert (feed.created_by_id, feed.acting_as_id) == (admin.id, seller.id)
    made = db.session.scalars(
        select(AuditLog).where(AuditLog.action == "calendar_feed_created")
    ).one()
    assert (made.user_id, made.acting_user_id) == (admin.id, seller.id)
    calendar = demo_app.test_client()
    assert calendar.get(path).status_code == 200  # while acting it works
    assert client.post("/impersonate/exit", data={"csrf_token": token}).status_code == 302
    assert calendar.get(path).status_code == 404


def test_a_link_made_while_acting_ends_with_the_admins_logout_and_session_expiry(as_demo, demo_app):
    client, token = as_demo("admin")
    _act_as(client, token, "seller@demo.test")
    path = _make_link(client, token)
    calendar = demo_app.test_client()
    assert client.post("/logout", data={"csrf_token": token}).status_code == 302
    assert calendar.get(path).status_code == 404

    client, token = as_demo("admin")
    _act_as(client, token, "seller@demo.test")
    path = _make_link(client, token)
    assert calendar.get(path).status_code == 200
    db.session.execute(
        update(UserSession)
        .where(UserSession.user_id == demo_user("admin@demo.test").id)
        .values(expires_at=utcnow() - timedelta(minutes=1))
    )
    assert calendar.get(path).status_code == 404


def test_the_users_own_link_outlives_an_acting_session(as_demo, demo_app):
    client, token = as_demo("seller")
    path = _make_link(client, token)
    admin, admin_token = as_demo("admin")
    _act_as(admin, admin_token, "station@demo.test")
    admin.post("/impersonate/exit", data={"csrf_token": admin_token})
    assert demo_app.test_client().get(path).status_code == 200


def test_sign_out_everywhere_ends_the_calendar_link(as_demo, demo_app):
    client, token = as_demo("seller")
    path = _make_link(client, token)
    assert client.post("/logout/everywhere", data={"csrf_token": token}).status_code == 302
    assert demo_app.test_client().get(path).status_code == 404


def test_a_new_password_ends_the_calendar_link(app, client):
    instance = make_instance()
    instance.options = {"configuration": {"enable_my_events": True}}
    user = make_user(instance=instance)
    token = sign_in(client, user)
    path = _make_link(client, token)
    assert app.test_client().get(path).status_code == 200
    changed = client.post(
        "/user/password",
        data={
            "csrf_token": token,
            "current_password": PASSWORD,
            "password": "Better-pass-2",
            "verify_password": "Better-pass-2",
        },
    )
    assert changed.status_code == 302
    assert app.test_client().get(path).status_code == 404
