"""A user made a station user in the user admin lands on their station's vehicles (issue 37),
unless they already have a landing page; a station user's own choice is left alone."""

from sqlalchemy import select

from app.auth.landing import STATION_LANDING
from app.auth.models import User
from app.core import roles as R
from app.core.models import Division
from app.core.tenancy import activate
from app.extensions import db
from tests.admin.test_core_screens import admin
from tests.factories import make_user
from tests.helpers import sign_in


def _form(token, person: User, division: Division, roles: list[str]) -> dict:
    return {
        "csrf_token": token, "email": person.email if person else "stina@example.test",
        "firstname": "Stina", "lastname": "Station", "language": "sv-SE",
        "modules": ["begcare"], "roles": roles, "divisions": [division.id], "active": "y",
    }  # fmt: skip


def test_a_new_station_user_gets_the_station_vehicles_as_landing_page(client):
    writer = admin()
    token = sign_in(client, writer)
    activate(writer.active_instance_id)
    division = db.session.scalars(select(Division)).first()
    data = _form(token, None, division, ["ROLE_USER", R.ROLE_STATION_USER])
    assert client.post("/admin/core/users/new", data=data).status_code == 302
    made = db.session.scalars(select(User).where(User.email == "stina@example.test")).one()
    assert made.options["landingPage"] == STATION_LANDING

    plain = {**_form(token, None, division, ["ROLE_USER"]), "email": "pelle@example.test"}
    assert client.post("/admin/core/users/new", data=plain).status_code == 302
    other = db.session.scalars(select(User).where(User.email == "pelle@example.test")).one()
    assert "landingPage" not in (other.options or {})


def test_made_a_station_user_keeps_a_landing_page_of_their_own(client):
    writer = admin()
    token = sign_in(client, writer)
    activate(writer.active_instance_id)
    division = db.session.scalars(select(Division)).first()
    chose = make_user(writer.instances[0], options={"landingPage": "/begcare/overview"})
    none = make_user(writer.instances[0])
    for person in (chose, none):
        data = _form(token, person, division, ["ROLE_USER", R.ROLE_STATION_USER])
        assert client.post(f"/admin/core/users/{person.id}/edit", data=data).status_code == 302
    db.session.expire_all()
    assert db.session.get(User, chose.id).options["landingPage"] == "/begcare/overview"
    assert db.session.get(User, none.id).options["landingPage"] == STATION_LANDING

    # A station user who chose the first module in My settings keeps that choice on an edit.
    station = db.session.get(User, none.id)
    station.options = {**station.options, "landingPage": ""}
    db.session.flush()
    data = _form(token, station, division, ["ROLE_USER", R.ROLE_STATION_USER])
    assert client.post(f"/admin/core/users/{station.id}/edit", data=data).status_code == 302
    db.session.expire_all()
    assert db.session.get(User, none.id).options["landingPage"] == ""
