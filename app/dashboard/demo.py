"""Demo dashboards: the seller's one widget of every type, fitting dashboards for the other staff
users, the module dashboards and goals for the demo divisions. No widget has a typed title: each
reads its preset's, figure's or type's title in the reader's language (issue 37)."""

from datetime import timedelta

from sqlalchemy import select

from app.core.models import Division, utcnow
from app.core.tenancy import activate
from app.dashboard import services as svc
from app.dashboard.models import Goal
from app.demo import seeder
from app.extensions import db
from app.preparation.models import CustomList

GREEN, AMBER, RED = "#067647", "#b54708", "#b42318"


def _division_value(divisions: dict, name: str) -> str:
    return f"division-{divisions[name].id}"


def seller_widgets(divisions: dict, list_id: int | None) -> list[dict]:
    """One widget of every type; the error one covers a division of the other company."""
    solna = _division_value(divisions, "Nordbil Solna")
    everywhere = ["all"]
    return [
        {"type": "number", "w": 1,
         "options": {"preset": "inFlow", "module": "begcare", "divisions": everywhere, "metric": "count",
                     "colorConditions": [{"operator": "gt", "value": 40, "color": RED}]},
         "item_filters": {"enum[state]": "4"}, "auto_update": 60},
        {"type": "number", "w": 1,
         "options": {"preset": "stockDays", "module": "begcare", "divisions": everywhere, "metric": "stockDays",
                     "gauge": True, "minimum": 0, "colorConditions": [
                         {"operator": "lt", "value": 60, "color": GREEN},
                         {"operator": "lt", "value": 120, "color": AMBER},
                         {"operator": "gt", "value": 120, "color": RED}]}},
        {"type": "number", "w": 1,
         "options": {"preset": "soldThisMonth", "module": "begcare", "divisions": [solna], "metric": "sold",
                     "period": "month"}},
        {"type": "number", "w": 1,
         "options": {"module": "begcare", "divisions": everywhere, "metric": "turnover",
                     "period": "month"}},
        {"type": "chart", "w": 2, "h": 2,
         "options": {"preset": "soldPerMonth", "module": "begcare", "divisions": [solna], "metric": "sold",
                     "chartType": "bar", "tickSpan": "month"}},
        {"type": "numberSummary", "w": 2,
         "options": {"module": "begcare", "divisions": everywhere}},
        {"type": "list", "w": 1, "h": 2,
         "options": {"module": "begcare", "divisions": everywhere, "groupBy": "state"}},
        {"type": "customList", "w": 2, "h": 1,
         "options": {"module": "begcare", "divisions": everywhere, "customListId": list_id}},
        {"type": "tier", "w": 1,
         "options": {"module": "begcare", "divisions": [solna]}},
        {"type": "bookings", "w": 1, "h": 2,
         "options": {"module": "begcare", "divisions": everywhere}},
        {"type": "reconCost", "w": 1, "h": 1,
         "options": {"module": "begcare", "divisions": everywhere}},
        {"type": "number", "w": 1,
         "options": {"module": "begcare", "divisions": [
             _division_value(divisions, "Fjordauto Oslo Sentrum")], "metric": "count"}},
        {"type": "chart", "w": 2, "h": 1,
         "options": {"module": "newcare", "divisions": everywhere, "metric": "entered",
                     "chartType": "line", "tickSpan": "week"}},
    ]  # fmt: skip


def _add(user_id: int, dashboard: str, widgets: list[dict]) -> None:
    for fields in widgets:
        svc.add_widget(user_id, dashboard, fields)


@seeder(50)
def seed_dashboards(ctx: dict) -> None:
    """Dashboards of the staff demo users and goals for the demo divisions."""
    users, divisions = ctx["users"], ctx["divisions"]
    seller = users["seller@demo.test"]
    activate(seller.home_instance_id)
    list_id = db.session.scalar(
        select(CustomList.id).where(CustomList.user_id == seller.id).order_by(CustomList.name)
    )
    _add(seller.id, "my", seller_widgets(divisions, list_id))
    for module in ("begcare", "newcare"):
        svc.ensure_module_dashboard(seller.id, module)

    goteborg = _division_value(divisions, "Nordbil Göteborg")
    divadmin = users["divadmin@demo.test"]
    _add(divadmin.id, "my", [
        {"type": "numberSummary", "w": 2,
         "options": {"module": "begcare", "divisions": [goteborg]}},
        {"type": "number", "options": {"preset": "stockDays",
            "module": "begcare", "divisions": [goteborg], "metric": "stockDays"}},
        {"type": "number", "options": {
            "module": "begcare", "divisions": [goteborg], "metric": "leadTime", "period": "year"}},
        {"type": "list", "h": 2, "options": {
            "module": "newcare", "divisions": [goteborg], "groupBy": "brand"}},
    ])  # fmt: skip

    solna = _division_value(divisions, "Nordbil Solna")
    station = users["station@demo.test"]
    _add(station.id, "my", [
        {"type": "number", "options": {"preset": "inFlow",
            "module": "begcare", "divisions": [solna], "metric": "count"},
         "item_filters": {"enum[state]": "4"}, "auto_update": 30},
        {"type": "number", "options": {
            "module": "begcare", "divisions": [solna], "metric": "avgDaysInState"},
         "item_filters": {"enum[state]": "4"}},
    ])  # fmt: skip

    admin = users["admin@demo.test"]
    activate(admin.home_instance_id)
    _add(admin.id, "my", [
        {"type": "numberSummary", "w": 2,
         "options": {"module": "begcare", "divisions": ["all"]}},
        {"type": "numberSummary", "w": 2,
         "options": {"module": "newcare", "divisions": ["all"]}},
        {"type": "number", "options": {
            "module": "begcare", "divisions": ["all"], "metric": "salesSum"},
         "item_filters": {"enum[state]": "6"}},
    ])  # fmt: skip

    seed_goals(seller.home_instance_id, divisions)
    activate(None)


def seed_goals(instance_id: int, divisions: dict) -> None:
    """Goals for the first company's divisions: an older and a newer one for Solna's sales
    (the newer wins), stock days per region and a country-wide flow goal."""
    activate(instance_id)
    now = utcnow().replace(microsecond=0)
    solna: Division = divisions["Nordbil Solna"]
    goals = [
        Goal(name="sold", goal_name="Försäljningsmål", goal_value=8, module="begcare",
             time_period="month", division_id=solna.id, created_at=now - timedelta(days=90)),
        Goal(name="sold", goal_name="Försäljningsmål", goal_value=10, acceptance=8,
             module="begcare", time_period="month", division_id=solna.id,
             created_at=now - timedelta(days=10)),
        Goal(name="stockDays", goal_name="Lagerdagar", goal_value=60, module="begcare",
             time_period="month", region_id=solna.region_id, created_at=now - timedelta(days=30)),
        Goal(name="count", goal_name="Fordon i flödet", goal_value=40, module="begcare",
             time_period="month", country_id=solna.region.country_id,
             created_at=now - timedelta(days=30)),
    ]  # fmt: skip
    for name in ("Nordbil Södertälje", "Nordbil Göteborg", "Nordbil Borås"):
        goals.append(
            Goal(name="sold", goal_name="Försäljningsmål", goal_value=6, module="begcare",
                 time_period="month", division_id=divisions[name].id,
                 created_at=now - timedelta(days=10))
        )  # fmt: skip
    db.session.add_all(goals)
    db.session.flush()
