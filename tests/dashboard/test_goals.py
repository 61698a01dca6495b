"""Goals (spec 02 section 5): looked up only for exactly one division, region or country value
with goals shown; the most recently defined matching goal wins; a placeholder otherwise. And the
administrators' goals screen."""

from datetime import timedelta

from sqlalchemy import select

from app.core.models import Division, utcnow
from app.core.tenancy import activate
from app.dashboard.models import Goal
from app.dashboard.services import find_goal, goal_site
from app.dashboard.values import period_since
from app.extensions import db
from tests.helpers import page_text
from tests.shell.conftest import demo_user


def test_a_goal_is_looked_up_only_for_one_site_with_goals_shown():
    assert goal_site(["division-3"], False) == ("division", 3)
    assert goal_site(["region-2"], False) == ("region", 2)
    assert goal_site(["country-1"], False) == ("country", 1)
    assert goal_site(["all"], False) is None
    assert goal_site(["division-3", "division-4"], False) is None
    assert goal_site([], False) is None
    assert goal_site(["division-3"], True) is None  # goals hidden
    assert goal_site(["shop-3"], False) is None


def _solna():
    seller = demo_user("seller@demo.test")
    activate(seller.active_instance_id)
    return db.session.scalars(select(Division).where(Division.name == "Nordbil Solna")).one()


def test_the_most_recent_matching_goal_wins(demo_app):
    solna = _solna()
    found = find_goal("sold", "begcare", ("division", solna.id))
    assert found["goalValue"] == 10.0 and found["acceptance"] == 8.0  # the demo's newer goal
    db.session.add(
        Goal(name="sold", goal_name="Nytt mål", goal_value=14, module="begcare",
             time_period="month", division_id=solna.id, created_at=utcnow())
    )  # fmt: skip
    db.session.add(  # another module and another figure do not match
        Goal(name="sold", goal_name="x", goal_value=99, module="newcare", time_period="month",
             division_id=solna.id, created_at=utcnow() + timedelta(days=1))
    )  # fmt: skip
    db.session.flush()
    assert find_goal("sold", "begcare", ("division", solna.id))["goalValue"] == 14
    assert find_goal("stockDays", "begcare", ("region", solna.region_id))["goalValue"] == 60
    country = find_goal("count", "begcare", ("country", solna.region.country_id))
    assert country["goalValue"] == 40


def test_no_matching_goal_gives_a_placeholder_without_value(demo_app):
    solna = _solna()
    placeholder = find_goal("leadTime", "begcare", ("division", solna.id))
    assert placeholder["goalValue"] is None and placeholder["name"] == "leadTime"
    assert find_goal("sold", "begcare", None) is None


def test_another_instances_goals_are_not_found(demo_app):
    solna = _solna()
    buyer = demo_user("buyer@demo.test")
    activate(buyer.active_instance_id)
    assert find_goal("sold", "begcare", ("division", solna.id))["goalValue"] is None


def test_periods_start_on_monday_the_first_of_the_month_and_new_year():
    from datetime import date

    assert period_since("week", date(2026, 11, 26)).date() == date(2026, 11, 23)
    assert period_since("month", date(2026, 11, 26)).date() == date(2026, 11, 1)
    assert period_since("year", date(2026, 11, 26)).date() == date(2026, 1, 1)


def test_administrators_set_goals_and_others_may_not(as_demo):
    client, token = as_demo("admin")
    page = client.get("/admin/general/goals")
    assert page.status_code == 200
    solna = _solna()
    bad = client.post(
        "/admin/general/goals/new",
        data={"csrf_token": token, "name": "sold", "goal_name": "Mål Solna", "goal_value": "många",
              "module": "begcare", "site": f"division-{solna.id}", "time_period": "month"},
    )  # fmt: skip
    assert bad.status_code == 422
    assert 'value="Mål Solna"' in page_text(bad)  # the input is kept
    before = db.session.scalar(select(db.func.count()).select_from(Goal))
    good = client.post(
        "/admin/general/goals/new",
        data={"csrf_token": token, "name": "sold", "goal_name": "Mål Solna", "goal_value": "12",
              "module": "begcare", "site": f"division-{solna.id}", "time_period": "month"},
    )  # fmt: skip
    assert good.status_code == 302
    assert db.session.scalar(select(db.func.count()).select_from(Goal)) == before + 1
    assert "Mål Solna" in page_text(client.get("/admin/general/goals"))
    seller_client, _token = as_demo("seller")
    assert seller_client.get("/admin/general/goals").status_code == 403
