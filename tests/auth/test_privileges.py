"""The privilege model (app/auth/privileges.py): rights belong to a membership, nobody grants
beyond their ceiling, and an acting session holds only what both people hold. The sweep over
every writer and field is tests/gates/test_privileges.py; these are the findings one by one."""

from sqlalchemy import select

from app.auth.models import Group, User
from app.core import roles as R
from app.core.models import Division, Instance
from app.core.tenancy import activate
from app.extensions import db
from app.mail.models import EmailMessage
from tests.factories import make_instance, make_user
from tests.helpers import page_text, sign_in
from tests.shell.conftest import demo_user


def test_a_role_granted_in_one_company_applies_in_that_company_only(client):
    first, second = make_instance(), make_instance()
    person = make_user(first, instances=[first, second], roles=["ROLE_USER"])
    person.membership_in(second.id).roles = ["ROLE_USER", R.ROLE_ADMIN]
    db.session.flush()
    assert not person.has_role(R.ROLE_ADMIN)  # works in the first company
    person.active_instance_id = second.id
    assert person.has_role(R.ROLE_ADMIN)


def test_the_demo_division_admin_cannot_make_itself_an_instance_admin(demo_client):
    """The probe's finding: a group carrying ROLE_ADMIN was offered to a division admin."""
    divadmin = demo_user("divadmin@demo.test")
    activate(divadmin.active_instance_id)
    admins = Group(name="Administrators", roles=[R.ROLE_ADMIN])
    db.session.add(admins)
    db.session.flush()
    activate(None)
    token = sign_in(demo_client, divadmin)
    form = page_text(demo_client.get(f"/admin/core/users/{divadmin.id}/edit"))
    assert "Administrators" not in form and 'value="ROLE_ADMIN"' not in form
    membership = divadmin.membership
    answer = demo_client.post(
        f"/admin/core/users/{divadmin.id}/edit",
        data={"csrf_token": token, "email": divadmin.email, "firstname": "Dina", "lastname": "Ek",
              "language": "sv-SE", "roles": membership.roles, "modules": membership.modules,
              "groups": [admins.id], "divisions": [d.id for d in divadmin.divisions]},
    )  # fmt: skip
    assert answer.status_code == 422
    db.session.expire_all()
    assert not demo_user("divadmin@demo.test").roles_in(divadmin.active_instance_id) & {
        R.ROLE_ADMIN
    }


def test_a_customers_admin_cannot_take_over_the_platform_administrator(demo_client):
    """Fjordauto's administrator sees admin@demo.test among its users, but may not change their
    e-mail (the take-over), roles or active flag, nor act as them."""
    fjord = demo_user("buyer@demo.test").active_instance_id
    boss = make_user(
        db.session.get(Instance, fjord),
        roles=["ROLE_USER", R.ROLE_ADMIN, R.IS_IMPERSONATOR],
        modules=["market"],
        all_divisions=True,
    )
    platform = demo_user("admin@demo.test")
    token = sign_in(demo_client, boss)
    listing = page_text(demo_client.get("/admin/core/users?q=admin%40demo"))
    assert "admin@demo.test" in listing
    assert f"/admin/core/users/{platform.id}/edit" not in listing
    assert demo_client.get(f"/admin/core/users/{platform.id}/edit").status_code == 403
    answer = demo_client.post(
        f"/admin/core/users/{platform.id}/edit",
        data={"csrf_token": token, "email": "taken@evil.test", "firstname": "A", "lastname": "B",
              "language": "en-GB"},
    )  # fmt: skip
    assert answer.status_code == 403
    assert demo_client.post(
        f"/admin/core/users/{platform.id}/act-as", data={"csrf_token": token}
    ).status_code in (403, 404)
    db.session.expire_all()
    assert demo_user("admin@demo.test").email == "admin@demo.test"


def test_an_acting_session_holds_only_the_modules_and_divisions_both_people_hold(client):
    instance = make_instance()
    activate(instance.id)
    first, second = db.session.scalars(select(Division).order_by(Division.id)).all()[:2]
    activate(None)
    admin = make_user(
        instance, roles=["ROLE_USER", R.ROLE_ADMIN, R.IS_IMPERSONATOR], modules=["begcare"],
        divisions=[first],
    )  # fmt: skip
    seller = make_user(
        instance, roles=["ROLE_USER"], modules=["begcare", "newcare"], divisions=[first, second]
    )
    token = sign_in(client, admin)
    assert (
        client.post(f"/admin/core/users/{seller.id}/act-as", data={"csrf_token": token}).status_code
        == 302
    )
    page = page_text(client.get("/begcare"))
    assert "You are acting as" in page
    assert first.name in page and second.name not in page  # the admin does not see the second
    assert 'href="/newcare"' not in page  # nor work in new vehicles
    assert client.get("/newcare").status_code in (403, 404)


def test_changing_a_persons_e_mail_tells_the_old_address(client):
    instance = make_instance()
    admin = make_user(instance, roles=["ROLE_USER", R.ROLE_ADMIN], all_divisions=True)
    person = make_user(instance, roles=["ROLE_USER"], email="old.address@example.test")
    token = sign_in(client, admin)
    answer = client.post(
        f"/admin/core/users/{person.id}/edit",
        data={"csrf_token": token, "email": "new.address@example.test", "firstname": "Per",
              "lastname": "Son", "language": "sv-SE", "roles": ["ROLE_USER"],
              "modules": ["begcare"], "active": "y"},
    )  # fmt: skip
    assert answer.status_code == 302
    mail = db.session.scalars(
        select(EmailMessage).where(EmailMessage.kind == "account_email_changed")
    ).one()
    assert mail.to_address == "old.address@example.test"
    assert "new.address@example.test" in mail.body_text
    db.session.expire_all()
    assert db.session.get(User, person.id).email == "new.address@example.test"
