"""The core admin screens on the shared mechanism: list, search, create, edit, validation,
delete with confirmation, audit history, scope and rights."""

import re

from sqlalchemy import select

from app.auth.models import Group, User
from app.core import roles as R
from app.core.audit import AuditLog
from app.core.models import Country, Division, Region
from app.core.tenancy import activate
from app.extensions import db
from app.mail.models import EmailMessage
from tests.factories import make_instance, make_user
from tests.helpers import page_text, sign_in

ADMIN_ROLES = ["ROLE_USER", R.ROLE_ADMIN, *R.ALL_TENANT_ROLES, *R.ALL_GLOBAL_ROLES]


def table(response) -> str:
    """The admin list's table body (the shell around it names divisions and countries too)."""
    text = page_text(response)
    return text.split("<tbody>", 1)[1].split("</tbody>", 1)[0] if "<tbody>" in text else ""


def admin(instance=None):
    instance = instance or make_instance()
    return make_user(instance, roles=ADMIN_ROLES, all_divisions=True)


def test_countries_list_create_validate_edit_delete_and_history(client):
    user = admin()
    token = sign_in(client, user)
    page = client.get("/admin/general/countries")
    assert page.status_code == 200
    assert "Sverige" in page_text(page)

    bad = client.post(
        "/admin/general/countries/new",
        data={"csrf_token": token, "code": "N0", "name": "Norge", "milage_unit": "km",
              "currency": "NOK", "locale": "nb-NO"},
    )  # fmt: skip
    assert bad.status_code == 422
    text = page_text(bad)
    assert "Enter 2 letters." in text and 'value="Norge"' in text

    ok = client.post(
        "/admin/general/countries/new",
        data={"csrf_token": token, "code": "no", "name": "Norge", "milage_unit": "km",
              "currency": "nok", "locale": "nb-NO"},
    )  # fmt: skip
    assert ok.status_code == 302
    activate(user.active_instance_id)
    norway = db.session.scalars(select(Country).where(Country.name == "Norge")).one()
    assert (norway.code, norway.currency) == ("NO", "NOK")
    norway_id = norway.id

    search = table(client.get("/admin/general/countries?q=norg"))
    assert "Norge" in search and "Sverige" not in search

    edit = client.post(
        f"/admin/general/countries/{norway.id}/edit",
        data={"csrf_token": token, "code": "NO", "name": "Noreg", "milage_unit": "km",
              "currency": "NOK", "locale": "nb-NO"},
    )  # fmt: skip
    assert edit.status_code == 302
    history = page_text(client.get(f"/admin/general/countries/{norway.id}/history"))
    assert "Norge → Noreg" in history and user.email in history

    confirm = client.get(f"/admin/general/countries/{norway.id}/delete")
    assert confirm.status_code == 200 and "cannot be undone" in page_text(confirm)
    assert db.session.get(Country, norway.id) is not None
    gone = client.post(f"/admin/general/countries/{norway.id}/delete", data={"csrf_token": token})
    assert gone.status_code == 302
    db.session.expire_all()
    assert db.session.get(Country, norway_id) is None
    entries = db.session.scalars(
        select(AuditLog).where(AuditLog.action.like(f"admin:general/countries:{norway_id}:%"))
    ).all()
    assert sorted(e.action.rsplit(":", 1)[1] for e in entries) == ["create", "delete", "update"]


def test_another_instances_ids_answer_404(client):
    user = admin()
    other = make_instance()
    activate(other.id)
    region = db.session.scalars(select(Region)).first()
    division = db.session.scalars(select(Division)).first()
    activate(None)
    sign_in(client, user)
    for url in (
        f"/admin/general/regions/{region.id}/edit",
        f"/admin/general/divisions/{division.id}/edit",
        f"/admin/general/divisions/{division.id}/delete",
        f"/admin/general/divisions/{division.id}/history",
        f"/admin/general/countries/{region.country_id}/edit",
    ):
        assert client.get(url).status_code == 404, url
    stranger = make_user(other)
    assert client.get(f"/admin/core/users/{stranger.id}/edit").status_code == 404


def test_division_with_duplicate_name_gets_its_own_slug(client):
    user = admin()
    token = sign_in(client, user)
    activate(user.active_instance_id)
    region = db.session.scalars(select(Region)).first()
    for _ in range(2):
        response = client.post(
            "/admin/general/divisions/new",
            data={"csrf_token": token, "name": "Nordbil Kista", "region_id": region.id},
        )
        assert response.status_code == 302
    slugs = db.session.scalars(select(Division.slug).where(Division.name == "Nordbil Kista")).all()
    assert sorted(slugs) == ["nordbil-kista", "nordbil-kista-2"]


def test_invited_user_gets_a_set_password_mail_and_can_be_deactivated(client):
    user = admin()
    token = sign_in(client, user)
    activate(user.active_instance_id)
    division = db.session.scalars(select(Division)).first()
    data = {
        "csrf_token": token, "email": "New.Person@Example.test", "firstname": "Nora",
        "lastname": "Nyström", "language": "sv-SE", "modules": ["begcare"],
        "roles": ["ROLE_USER"], "divisions": [division.id], "active": "y",
    }  # fmt: skip
    created = client.post("/admin/core/users/new", data=data)
    assert created.status_code == 302
    new = db.session.scalars(select(User).where(User.email == "new.person@example.test")).one()
    assert [d.id for d in new.divisions] == [division.id]
    assert [i.id for i in new.instances] == [user.active_instance_id]
    mail = db.session.scalars(
        select(EmailMessage).where(EmailMessage.to_address == new.email)
    ).one()
    assert "/reset-password/" in mail.body_text and mail.language == "sv-SE"

    again = client.post("/admin/core/users/new", data=data)
    assert again.status_code == 422
    assert "already exists" in page_text(again)

    client.post(f"/admin/core/users/{new.id}/delete", data={"csrf_token": token})
    db.session.expire_all()
    assert db.session.get(User, new.id).active is False
    own = client.get(f"/admin/core/users/{user.id}/delete")
    assert "cannot deactivate your own account" in page_text(own)


def test_rights_a_plain_user_gets_403(client):
    plain = make_user()
    sign_in(client, plain)
    assert client.get("/admin/general/countries").status_code == 403
    assert client.get("/admin/general/countries/new").status_code == 403
    reader = make_user(roles=["ROLE_USER", R.tenant_read("COUNTRY")])
    token = sign_in(client, reader)
    assert client.get("/admin/general/countries").status_code == 200
    response = client.post("/admin/general/countries/new", data={"csrf_token": token, "name": "X"})
    assert response.status_code == 403


def test_division_admin_reaches_only_users_of_their_divisions_and_grants_only_own_roles(client):
    instance = make_instance(divisions=2)
    activate(instance.id)
    mine, other = db.session.scalars(select(Division).order_by(Division.id)).all()
    activate(None)
    divadmin = make_user(
        instance, roles=["ROLE_USER", R.ROLE_USER_DIVISION_ADMIN], divisions=[mine]
    )
    colleague = make_user(instance, divisions=[mine])
    stranger = make_user(instance, divisions=[other])
    token = sign_in(client, divadmin)
    listing = table(client.get("/admin/core/users"))
    assert colleague.email in listing and stranger.email not in listing
    assert client.get(f"/admin/core/users/{stranger.id}/edit").status_code == 404
    form = page_text(client.get("/admin/core/users/new"))
    assert R.ROLE_ADMIN not in form and other.name not in form and mine.name in form
    response = client.post(
        "/admin/core/users/new",
        data={"csrf_token": token, "email": "x@example.test", "firstname": "X", "lastname": "Y",
              "language": "en-GB", "roles": [R.ROLE_ADMIN], "divisions": [mine.id]},
    )  # fmt: skip
    assert response.status_code == 422  # ROLE_ADMIN is not one of the offered roles
    assert db.session.scalar(select(User.id).where(User.email == "x@example.test")) is None


def test_editing_a_user_shows_and_keeps_groups_divisions_and_other_roles(client):
    instance = make_instance()
    activate(instance.id)
    division = db.session.scalars(select(Division).order_by(Division.id)).first()
    group = Group(name="Sales", roles=["ROLE_STATISTICS"])
    db.session.add(group)
    db.session.flush()
    activate(None)
    admin = make_user(instance, roles=ADMIN_ROLES, all_divisions=True)
    person = make_user(
        instance, roles=["ROLE_USER", "ROLE_SOMETHING_ELSE"], groups=[group], divisions=[division]
    )
    token = sign_in(client, admin)
    form = client.get(f"/admin/core/users/{person.id}/edit")
    assert form.status_code == 200
    text = page_text(form)
    assert re.search(
        rf'<input checked id="groups-\d+" name="groups" type="checkbox" value="{group.id}"', text
    )
    assert re.search(
        rf'<input checked id="divisions-\d+" name="divisions" type="checkbox" value="{division.id}"',
        text,
    )
    response = client.post(
        f"/admin/core/users/{person.id}/edit",
        data={"csrf_token": token, "email": person.email, "firstname": "Per", "lastname": "Son",
              "language": "de-DE", "roles": ["ROLE_USER"], "groups": [], "divisions": [division.id],
              "active": "y"},
    )  # fmt: skip
    assert response.status_code == 302
    db.session.expire_all()
    person = db.session.get(User, person.id)
    assert person.groups == [] and [d.id for d in person.divisions] == [division.id]
    assert set(person.roles) == {"ROLE_USER", "ROLE_SOMETHING_ELSE"}  # not offered: kept
    assert person.options["language"] == "de-DE"
    history = page_text(client.get(f"/admin/core/users/{person.id}/history"))
    assert "Sales" in history and "de-DE" in history


def test_a_user_without_a_password_can_be_invited_again(client):
    boss = admin()
    invited = make_user(boss.instances[0], password_hash=None)
    token = sign_in(client, boss)
    listing = page_text(client.get("/admin/core/users"))
    assert f"/admin/core/users/{invited.id}/invite" in listing
    assert f"/admin/core/users/{boss.id}/invite" not in listing  # has a password
    response = client.post(f"/admin/core/users/{invited.id}/invite", data={"csrf_token": token})
    assert response.status_code == 302
    mails = db.session.scalars(
        select(EmailMessage).where(EmailMessage.to_address == invited.email)
    ).all()
    assert len(mails) == 1 and "/reset-password/" in mails[0].body_text
    history = page_text(client.get(f"/admin/core/users/{invited.id}/history"))
    assert "Invitation sent" in history
    again = client.post(f"/admin/core/users/{boss.id}/invite", data={"csrf_token": token})
    assert again.status_code == 404


def test_a_country_region_or_division_others_refer_to_stays_and_says_why(client):
    user = admin()
    token = sign_in(client, user)
    activate(user.active_instance_id)
    region = db.session.scalars(select(Region)).first()
    country_id, region_id = region.country_id, region.id
    empty = Region(name="Tom", slug="tom", country_id=country_id)
    db.session.add(empty)
    db.session.commit()
    empty_id = empty.id

    for path, row_id, why in (
        ("countries", country_id, "Delete its regions first."),
        ("regions", region_id, "Delete or move its divisions first."),
    ):
        refused = client.post(f"/admin/general/{path}/{row_id}/delete", data={"csrf_token": token})
        assert refused.status_code == 409 and why in page_text(refused)
    db.session.expire_all()
    assert db.session.get(Region, region_id) is not None

    gone = client.post(f"/admin/general/regions/{empty_id}/delete", data={"csrf_token": token})
    assert gone.status_code == 302
    db.session.expire_all()
    assert db.session.get(Region, empty_id) is None
