"""System messages: the admin screens (sanitised on save, who may change), the my-messages
call (time window, audience, order, viewed records) and the viewed call."""

from datetime import timedelta

from sqlalchemy import select

from app.core import roles as R
from app.core.models import utcnow
from app.extensions import db
from app.messages.models import SystemMessage
from app.messages.services import sanitise, save
from tests.factories import make_instance, make_user
from tests.helpers import sign_in

READ = R.global_read("SYSTEM_MESSAGES")
PATH = "/admin/global/system-messages"


def _message(**values) -> SystemMessage:
    now = utcnow()
    data = {
        "type": "info",
        "message": "Hello",
        "description": "<p>Text</p>",
        "started_at": now - timedelta(hours=1),
        "ended_at": None,
        "persistent": False,
        "show_as": "modal",
        "audience": "all",
        **values,
    }
    return save(SystemMessage(), data, None)


def _form(**values) -> dict:
    return {
        "type": "info",
        "message": "Service window tonight",
        "description": "",
        "started_at": (utcnow() - timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M"),
        "ended_at": "",
        "show_as": "modal",
        "audience": "all",
        "audience_instance_id": "",
        "audience_role": "",
        **values,
    }


def _mine(client, **headers):
    response = client.get("/api/system-messages/my-messages", headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def test_a_description_with_a_script_and_an_event_handler_is_stored_sanitised(client):
    admin = make_user(roles=[R.ROLE_ADMIN, READ])
    token = sign_in(client, admin)
    dirty = (
        '<p onclick="steal()">Read <a href="javascript:alert(1)">this</a> and '
        '<a href="https://example.test/x" onmouseover="x()">that</a></p>'
        "<script>alert('x')</script><img src=x onerror=alert(1)><strong>bold</strong>"
    )
    response = client.post(f"{PATH}/new", data=_form(description=dirty, csrf_token=token))
    assert response.status_code == 302
    stored = db.session.scalars(select(SystemMessage)).one().description
    assert "<script" not in stored and "alert(" not in stored
    assert "onclick" not in stored and "onmouseover" not in stored and "onerror" not in stored
    assert "javascript:" not in stored
    assert '<a href="https://example.test/x"' in stored
    assert "<strong>bold</strong>" in stored
    answered = _mine(client)[0]["description"]
    assert answered == stored


def test_sanitise_keeps_safe_markup_and_links():
    assert sanitise('<a href="mailto:a@b.test">m</a>').startswith('<a href="mailto:a@b.test"')
    assert (
        sanitise('<a href="data:text/html,x">d</a>')
        == '<a target="_blank" rel="noopener noreferrer">d</a>'
    )
    assert sanitise("<style>p{}</style><ul><li>x</li></ul>") == "<ul><li>x</li></ul>"


def test_my_messages_answers_the_active_ones_sorted_by_modified_at_with_the_spec_fields(client):
    user = make_user()
    now = utcnow()
    later = _message(message="Second")
    first = _message(message="First", show_as="alert", persistent=True)
    first.modified_at = now - timedelta(minutes=10)
    _message(message="Not yet", started_at=now + timedelta(hours=1))
    _message(message="Over", started_at=now - timedelta(days=2), ended_at=now - timedelta(days=1))
    db.session.flush()
    sign_in(client, user)
    answer = _mine(client, **{"last-fetched": now.isoformat()})
    assert [m["message"] for m in answer] == ["First", "Second"]
    assert answer[0]["options"] == {"persistent": True, "showAs": "alert"}
    assert answer[1]["id"] == later.id
    assert set(answer[1]) >= {
        "id", "type", "message", "description", "modifiedAt", "startedAt", "options"
    }  # fmt: skip


def test_a_message_outside_its_time_window_is_not_returned(client):
    user = make_user()
    now = utcnow()
    _message(
        message="Ended", started_at=now - timedelta(days=3), ended_at=now - timedelta(seconds=1)
    )
    _message(message="Scheduled", started_at=now + timedelta(minutes=1))
    sign_in(client, user)
    assert _mine(client) == []


def test_the_audience_of_an_instance_or_a_role(client):
    here, elsewhere = make_instance(), make_instance()
    station = make_user(here, roles=["ROLE_USER", R.ROLE_STATION_USER])
    other = make_user(elsewhere)
    _message(message="Company", audience="instance", audience_instance_id=here.id)
    _message(message="Stations", audience="role", audience_role=R.ROLE_STATION_USER)
    _message(message="Everyone")
    sign_in(client, station)
    assert {m["message"] for m in _mine(client)} == {"Company", "Stations", "Everyone"}
    sign_in(client, other)
    assert {m["message"] for m in _mine(client)} == {"Everyone"}


def test_stop_showing_is_recorded_and_an_edit_shows_the_message_again(client):
    user = make_user()
    message = _message()
    token = sign_in(client, user)
    response = client.post(
        f"/api/system-messages/{message.id}/viewed", json={}, headers={"X-CSRFToken": token}
    )
    assert response.status_code == 200
    assert response.get_json()["createdAt"] == message.modified_at.isoformat()
    assert _mine(client) == []
    admin = make_user(roles=[R.ROLE_ADMIN, READ])
    token = sign_in(client, admin)
    response = client.post(
        f"{PATH}/{message.id}/edit", data=_form(message="Changed", csrf_token=token)
    )
    assert response.status_code == 302
    sign_in(client, user)
    assert [m["message"] for m in _mine(client)] == ["Changed"]


def test_the_viewed_call_of_a_message_for_another_audience_is_404(client):
    here, elsewhere = make_instance(), make_instance()
    user = make_user(here)
    message = _message(audience="instance", audience_instance_id=elsewhere.id)
    token = sign_in(client, user)
    for target in (message.id, 999_999, 2**40):
        response = client.post(
            f"/api/system-messages/{target}/viewed", json={}, headers={"X-CSRFToken": token}
        )
        assert response.status_code == 404


def test_my_messages_needs_sign_in_and_refuses_a_malformed_last_fetched(client):
    assert client.get("/api/system-messages/my-messages").status_code == 401
    sign_in(client, make_user())
    response = client.get("/api/system-messages/my-messages", headers={"last-fetched": "soon"})
    assert response.status_code == 422
    assert response.get_json()["retry"] is False


def test_reading_needs_the_read_role_and_changing_also_role_admin(client):
    reader = make_user(roles=["ROLE_USER", READ])
    token = sign_in(client, reader)
    page = client.get(PATH)
    assert page.status_code == 200
    assert "New system message" not in page.get_data(as_text=True)
    assert client.get(f"{PATH}/new").status_code == 403
    assert client.post(f"{PATH}/new", data=_form(csrf_token=token)).status_code == 403
    assert db.session.scalars(select(SystemMessage)).first() is None
    sign_in(client, make_user(roles=["ROLE_USER"]))
    assert client.get(PATH).status_code == 403


def test_unknown_or_huge_ids_in_the_admin_screens_are_404(client):
    sign_in(client, make_user(roles=[R.ROLE_ADMIN, READ, R.global_read("TIER_RANKING")]))
    for path in (
        f"{PATH}/999999/edit",
        f"{PATH}/{2**40}/delete",
        f"/admin/global/ranking/seasons/{2**40}/edit",
        f"/admin/global/ranking/tiers/{2**40}/delete",
    ):
        assert client.get(path).status_code == 404, path


def test_a_refused_form_keeps_the_input_and_saves_nothing(client):
    admin = make_user(roles=[R.ROLE_ADMIN, READ])
    token = sign_in(client, admin)
    response = client.post(
        f"{PATH}/new",
        data=_form(message="Kept text", audience="role", audience_role="", csrf_token=token),
    )
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'value="Kept text"' in html
    assert 'data-message-key="FIELD_REQUIRED"' in html
    assert db.session.scalars(select(SystemMessage)).first() is None
    start = utcnow().strftime("%Y-%m-%dT%H:%M")
    response = client.post(
        f"{PATH}/new", data=_form(started_at=start, ended_at=start, csrf_token=token)
    )
    assert "The end must come after the start." in response.get_data(as_text=True)


def test_the_admin_list_shows_each_message_with_its_state(client):
    admin = make_user(roles=[R.ROLE_ADMIN, READ])
    _message(message="Live one")
    _message(message="Later one", started_at=utcnow() + timedelta(days=1))
    sign_in(client, admin)
    html = client.get(PATH).get_data(as_text=True)
    assert "Live one" in html and "Later one" in html
    assert "Active" in html and "Scheduled" in html
