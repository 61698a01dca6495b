"""Demo data of CONTRACT.md: the six accounts, the organisation tree, and `flask demo-links`."""

import json

import pytest
from argon2 import PasswordHasher
from sqlalchemy import func, select

from app.auth.models import User
from app.core import roles
from app.core.models import Country, Division, Instance, Region
from app.demo import DEMO_PASSWORD, load_demo_data
from app.extensions import db

DEMO_EMAILS = {
    "admin@demo.test",
    "seller@demo.test",
    "buyer@demo.test",
    "station@demo.test",
    "divadmin@demo.test",
    "global@demo.test",
}
LINK_NAMES = {
    "reserve_advert",
    "reserve_bid",
    "invite",
    "bid",
    "allocate",
    "change_status",
    "quick_test",
    "quick_test_pdf",
    "purchase_analysis_pdf",
    "dashboard",
}


def every(stmt):
    return db.session.scalars(stmt.execution_options(all_instances=True)).all()


def demo_users() -> dict[str, User]:
    return {u.email: u for u in every(select(User).where(User.email.like("%@demo.test")))}


def test_the_six_demo_accounts_exist_with_the_demo_password(demo_app):
    users = demo_users()
    assert set(users) >= DEMO_EMAILS  # the contract's six; the market adds a second bidder
    assert DEMO_PASSWORD == "demo-pass-1"
    hasher = PasswordHasher()
    for password_hash in {u.password_hash for u in users.values()}:
        assert hasher.verify(password_hash, "demo-pass-1")
        assert password_hash.startswith("$argon2id$")


def test_the_demo_accounts_have_the_contracts_roles(demo_app):
    users = demo_users()
    admin = users["admin@demo.test"]
    assert {roles.ROLE_ADMIN, roles.ROLE_MANAGER_ADMIN, roles.IS_IMPERSONATOR} <= admin.all_roles()
    assert set(roles.ALL_GLOBAL_ROLES) <= admin.all_roles()
    assert set(roles.ALL_TENANT_ROLES) <= admin.all_roles()
    assert len(admin.instances) == 2

    seller = users["seller@demo.test"]
    assert set(seller.modules) >= {"begcare", "newcare", "purchaseAnalysis", "quickTest", "market"}
    assert roles.ROLE_STATISTICS in seller.all_roles()
    assert {roles.add_vehicle("begcare"), roles.add_vehicle("newcare")} <= seller.all_roles()

    first, second = sorted(admin.instances, key=lambda i: i.id)
    assert [i.id for i in seller.instances] == [first.id]
    buyer = users["buyer@demo.test"]
    assert [i.id for i in buyer.instances] == [second.id]
    assert "market" in buyer.modules

    assert roles.ROLE_STATION_USER in users["station@demo.test"].all_roles()
    divadmin = users["divadmin@demo.test"]
    assert roles.ROLE_USER_DIVISION_ADMIN in divadmin.all_roles()
    assert len(divadmin.divisions) == 1
    assert users["global@demo.test"].is_global


def test_two_instances_each_with_one_country_two_regions_four_divisions(demo_app):
    instances = every(select(Instance))
    assert len(instances) >= 2  # the contract's two companies and the market's second bidder
    for instance in instances:
        for model, count in ((Country, 1), (Region, 2), (Division, 4)):
            rows = every(select(model).where(model.instance_id == instance.id))
            assert len(rows) == count, f"{instance.company_name}: {len(rows)} {model.__name__}"
        divisions = every(select(Division).where(Division.instance_id == instance.id))
        assert len({d.slug for d in divisions}) == 4


def test_loading_twice_loads_nothing_the_second_time(demo_app):
    counts = {
        model: db.session.scalar(
            select(func.count()).select_from(model).execution_options(all_instances=True)
        )
        for model in (User, Instance, Division)
    }
    assert load_demo_data() is False
    for model, count in counts.items():
        assert (
            db.session.scalar(
                select(func.count()).select_from(model).execution_options(all_instances=True)
            )
            == count
        )


def test_the_demo_data_command_refuses_a_database_with_data(demo_app):
    result = demo_app.test_cli_runner().invoke(args=["demo-data"])
    assert result.exit_code == 0, result.output
    assert "nothing loaded" in result.output
    assert len(every(select(Instance))) == 3


def test_demo_links_prints_one_json_object_with_the_contracts_keys(demo_app):
    result = demo_app.test_cli_runner().invoke(args=["demo-links"])
    assert result.exit_code == 0, result.output
    links = json.loads(result.output)
    assert isinstance(links, dict)
    assert set(links) >= LINK_NAMES  # the contract's keys; more may follow
    # Issue 16's journey: two buyers' bid links to the same open advert.
    assert links["bid_second_buyer"] and links["bid"] != links["bid_second_buyer"]
    assert links["bid"].split("/")[4] == links["bid_second_buyer"].split("/")[4]
    for name, url in links.items():
        assert url is None or (url.startswith("/") and not url.startswith("//")), name


@pytest.mark.parametrize("email", sorted(DEMO_EMAILS))
def test_every_demo_account_can_sign_in(demo_client, email):
    response = demo_client.post("/api/auth/login", json={"email": email, "password": "demo-pass-1"})
    assert response.status_code == 200
    assert response.get_json()["user"]["username"] == email
