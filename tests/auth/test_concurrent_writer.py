"""A request that reads and then writes is not refused its write ("database is locked", a 500)
because another connection, the scheduler's say, committed in between (issue 28, finding 6).

On SQLite a transaction begun with a plain BEGIN that has read holds a snapshot; a write on it
after another connection's commit is refused at once (SQLITE_BUSY_SNAPSHOT: waiting would not
help, busy_timeout is not consulted). These tests commit for real, on a file database of their
own, served as in production (an error is a 500 page, not an exception), and put a second
connection's commit exactly between the request's reads and its first write."""

import pytest
from sqlalchemy import func, select, update

from app.auth import routes, services
from app.auth.models import User, UserSession
from app.extensions import db
from tests.conftest import csrf_token, database_url, make_app
from tests.factories import PASSWORD, make_user


@pytest.fixture(autouse=True)
def _transaction():
    """These tests commit for real on their own database: no rolled-back test transaction
    (this replaces the autouse fixture of tests/conftest.py for this module)."""
    yield


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    app = make_app(database_url(tmp_path_factory, "writers"))
    app.config["TESTING"] = False  # as served: a failure is a 500 answer
    return app


@pytest.fixture
def people(served):
    """A user who signs in, and one whose row the other connection changes."""
    with served.app_context():
        user, other = make_user(), make_user()
        db.session.commit()
        people = user.email, other.id
        db.session.remove()
    return people


def _commit_elsewhere(user_id: int) -> None:
    """What the scheduler does meanwhile: a write committed on a connection of its own."""
    with db.engine.begin() as other:
        other.execute(update(User).where(User.id == user_id).values(firstname=func.random()))


def _sessions(app, email: str) -> int:
    with app.app_context():
        count = db.session.scalar(
            select(func.count())
            .select_from(UserSession)
            .join(User, User.id == UserSession.user_id)
            .where(User.email == email)
        )
        db.session.remove()
    return count


def test_a_sign_in_is_not_refused_by_a_commit_between_its_reads_and_its_writes(
    served, people, monkeypatch
):
    email, other_id = people
    verify = services.verify_password

    def verify_then_another_commits(user, password):
        # The sign-in has read its throttle rows and the user: its snapshot is taken.
        ok = verify(user, password)
        _commit_elsewhere(other_id)
        return ok

    monkeypatch.setattr(services, "verify_password", verify_then_another_commits)
    client = served.test_client()
    response = client.post(
        "/login", data={"email": email, "password": PASSWORD, "csrf_token": csrf_token(client)}
    )
    assert response.status_code == 302 and response.headers["Location"] == "/"
    assert _sessions(served, email) == 1
    assert client.get("/api/me/instances").status_code == 200  # signed in


def test_a_signed_in_write_is_not_refused_by_a_commit_after_its_reads(served, people, monkeypatch):
    """The same for any request: signing out reads the session (and the user), then writes."""
    email, other_id = people
    client = served.test_client()
    token = csrf_token(client)
    client.post("/login", data={"email": email, "password": PASSWORD, "csrf_token": token})
    end_session = routes.end_session

    def another_commits_then_end(user):
        _commit_elsewhere(other_id)
        return end_session(user)

    monkeypatch.setattr(routes, "end_session", another_commits_then_end)
    response = client.post("/logout", data={"csrf_token": csrf_token(client, "/error")})
    assert response.status_code == 302 and response.headers["Location"].endswith("/login")
    assert client.get("/api/me/instances").status_code == 401
