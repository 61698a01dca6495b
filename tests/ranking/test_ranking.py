"""The ranking: the points rule, tiers and positions (unit), the refresh, the summary call
(isolation, retry=false), the admin screens and the leaderboard."""

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from app.core import roles as R
from app.core.models import Division, utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import ItemStateEvent, PreparationItem
from app.ranking import services as S
from app.ranking.jobs import refresh_rankings
from app.ranking.models import RankingPoints, RankingSeason, RankingTier
from tests.factories import make_instance, make_user
from tests.helpers import sign_in

READ = R.global_read("TIER_RANKING")
_REGNOS = itertools.count(100)


# --- unit: the rule, tiers, positions --------------------------------------------------------


def test_the_points_rule():
    t0 = datetime(2026, 10, 1, tzinfo=UTC)
    tally = S.Tally(
        showroom=[
            S.Showroom(1, t0 + timedelta(days=10), t0),  # on time: 10 + 5
            S.Showroom(1, t0 + timedelta(days=30), t0),  # late: 10
        ],
        sold=2,  # 2 × 20
        market_sales=1,  # 15
    )
    assert S.points_of(tally) == 15 + 10 + 40 + 15
    assert S.points_of(S.Tally()) == 0


def test_positions_share_equal_points_and_skip_after():
    assert S.positions({1: 50, 2: 80, 3: 50, 4: 10}) == {2: 1, 1: 2, 3: 2, 4: 4}
    assert S.positions({}) == {}


def test_tier_and_progress_follow_the_thresholds():
    tiers = [RankingTier(name="B", min_points=0), RankingTier(name="S", min_points=100),
             RankingTier(name="G", min_points=300)]  # fmt: skip
    assert (S.tier_for(0, tiers)[0].name, S.tier_for(0, tiers)[1]) == ("B", 0)
    assert (S.tier_for(150, tiers)[0].name, S.tier_for(150, tiers)[1]) == ("S", 25)
    assert (S.tier_for(900, tiers)[0].name, S.tier_for(900, tiers)[1]) == ("G", 100)
    assert S.tier_for(5, [])[0] is None


# --- the refresh over real events ------------------------------------------------------------


def _season(days_back: int = 30, days_ahead: int = 30, identifier: str = "S-now") -> RankingSeason:
    now = utcnow()
    season = RankingSeason(
        identifier=identifier,
        start_at=now - timedelta(days=days_back),
        end_at=now + timedelta(days=days_ahead),
    )
    db.session.add(season)
    db.session.flush()
    return season


def _tiers():
    db.session.add_all(
        [RankingTier(name="Bronze", min_points=0), RankingTier(name="Silver", min_points=30)]
    )
    db.session.flush()


def _vehicle(instance, division: Division, moves: list[tuple[int, datetime]]) -> PreparationItem:
    activate(instance.id)
    item = PreparationItem(
        module="begcare", division_id=division.id, state=moves[-1][0], regno=f"ABC{next(_REGNOS)}",
        brand="Volvo", model="V60", created_at=moves[0][1], state_changed_at=moves[-1][1],
    )  # fmt: skip
    db.session.add(item)
    db.session.flush()
    previous = None
    for state, moment in moves:
        db.session.add(ItemStateEvent(item_id=item.id, from_state=previous, to_state=state,
                                      created_at=moment))  # fmt: skip
        previous = state
    db.session.flush()
    activate(None)
    return item


def _divisions(instance) -> list[Division]:
    return db.session.scalars(
        select(Division).where(Division.instance_id == instance.id).order_by(Division.id)
        .execution_options(all_instances=True)
    ).all()  # fmt: skip


@pytest.fixture
def ranked():
    """Two instances; division A earns 10+5+20, B 10 (late), the others nothing."""
    now = utcnow()
    first, second = make_instance(), make_instance()
    a, b = _divisions(first)
    _season()
    _tiers()
    _vehicle(
        first,
        a,
        [
            (2, now - timedelta(days=20)),
            (6, now - timedelta(days=15)),
            (7, now - timedelta(days=2)),
        ],
    )
    _vehicle(first, b, [(2, now - timedelta(days=200)), (6, now - timedelta(days=10))])
    _vehicle(
        first, b, [(2, now - timedelta(days=200)), (6, now - timedelta(days=100))]
    )  # before the season
    refresh_rankings()
    return first, second, a, b


def _row(division) -> RankingPoints:
    return db.session.scalars(
        select(RankingPoints).where(RankingPoints.division_id == division.id)
        .execution_options(all_instances=True)
    ).one()  # fmt: skip


def test_the_refresh_computes_points_tiers_and_positions(ranked):
    first, second, a, b = ranked
    row_a, row_b = _row(a), _row(b)
    assert (row_a.points, row_a.tier.name, row_a.position, row_a.overall_position) == (
        35,
        "Silver",
        1,
        1,
    )
    assert row_a.new_points == 20  # the sale two days ago
    assert (row_b.points, row_b.tier.name, row_b.position, row_b.overall_position) == (
        10,
        "Bronze",
        1,
        2,
    )
    others = [_row(d) for d in _divisions(second)]
    assert {(r.points, r.position, r.overall_position) for r in others} == {(0, 2, 3)}


def test_the_summary_of_a_division_and_its_global_statistics(client, ranked):
    first, second, a, b = ranked
    user = make_user(first, all_divisions=True)
    sign_in(client, user)
    response = client.get(f"/api/tier-ranking-division-summary/{a.id}")
    assert response.status_code == 200
    body = response.get_json()
    assert body["divisionData"] == [{
        "name": a.name, "season": "S-now", "tier": "Silver", "progress": 100, "points": 35,
        "newPoints": 20, "position": 1, "overallPosition": 1,
    }]  # fmt: skip
    assert body["seasonData"]["current"]["identifier"] == "S-now"
    assert body["seasonData"]["previous"] is None
    assert body["globalStatistics"] == [
        {"tier": "Bronze", "percentage": 75.0},
        {"tier": "Silver", "percentage": 25.0},
    ]


def test_another_instances_division_or_one_outside_the_users_rights_is_404(client, ranked):
    first, second, a, b = ranked
    other = _divisions(second)[0]
    user = make_user(first, divisions=[a])
    sign_in(client, user)
    for division_id in (other.id, b.id, 10**12, "abc"):
        response = client.get(f"/api/tier-ranking-division-summary/{division_id}")
        assert response.status_code == 404
        assert response.get_json()["retry"] is False
    assert client.get(f"/api/tier-ranking-division-summary/{a.id}").status_code == 200


def test_a_division_without_a_season_has_empty_division_data(client):
    instance = make_instance()
    division = _divisions(instance)[0]
    sign_in(client, make_user(instance, all_divisions=True))
    body = client.get(f"/api/tier-ranking-division-summary/{division.id}").get_json()
    assert body == {"divisionData": [], "seasonData": {"current": None, "previous": None},
                    "globalStatistics": []}  # fmt: skip


def test_the_leaderboard_shows_the_instances_divisions_only(client, ranked):
    first, second, a, b = ranked
    sign_in(client, make_user(first))
    html = client.get("/ranking").get_data(as_text=True)
    assert a.name in html and b.name in html
    assert _divisions(second)[0].name not in html
    assert client.get("/ranking?season=nope").status_code == 404


def test_admin_screens_read_and_write_rules(client, ranked):
    reader = make_user(roles=["ROLE_USER", READ])
    token = sign_in(client, reader)
    for path in ("seasons", "tiers", "leaderboard"):
        assert client.get(f"/admin/global/ranking/{path}").status_code == 200
    assert client.get("/admin/global/ranking/tiers/new").status_code == 403
    assert (
        client.post("/admin/global/ranking/seasons/refresh", data={"csrf_token": token}).status_code
        == 403
    )
    sign_in(client, make_user(roles=["ROLE_USER"]))
    assert client.get("/admin/global/ranking/seasons").status_code == 403


def test_an_admin_adds_a_tier_and_the_standings_follow(client, ranked):
    first, second, a, b = ranked
    admin = make_user(roles=[R.ROLE_ADMIN, READ])
    token = sign_in(client, admin)
    response = client.post(
        "/admin/global/ranking/tiers/new",
        data={"name": "Gold", "min_points": "35", "csrf_token": token},
    )
    assert response.status_code == 302
    assert _row(a).tier.name == "Gold"
    response = client.post(
        "/admin/global/ranking/tiers/new",
        data={"name": "gold", "min_points": "36", "csrf_token": token},
    )
    assert "Another tier has this name." in response.get_data(as_text=True)
    html = client.get("/admin/global/ranking/leaderboard").get_data(as_text=True)
    assert first.company_name in html and second.company_name in html


def test_a_season_form_refuses_an_end_before_its_start(client):
    admin = make_user(roles=[R.ROLE_ADMIN, READ])
    token = sign_in(client, admin)
    response = client.post(
        "/admin/global/ranking/seasons/new",
        data={"identifier": "Q9", "start_at": "2026-10-01T00:00", "end_at": "2026-09-01T00:00",
              "csrf_token": token},
    )  # fmt: skip
    assert response.status_code == 422
    assert "The end must come after the start." in response.get_data(as_text=True)
    assert 'value="Q9"' in response.get_data(as_text=True)
    assert db.session.scalars(select(RankingSeason)).first() is None


def test_the_demo_sellers_division_has_its_real_tier_and_position(demo_client):
    from tests.shell.conftest import demo_user

    seller = demo_user("seller@demo.test")
    sign_in(demo_client, seller)
    division = db.session.scalars(
        select(Division).where(Division.name == "Nordbil Göteborg").execution_options(all_instances=True)
    ).one()  # fmt: skip
    body = demo_client.get(f"/api/tier-ranking-division-summary/{division.id}").get_json()
    row = db.session.scalars(
        select(RankingPoints).where(RankingPoints.division_id == division.id)
        .order_by(RankingPoints.season_id.desc()).execution_options(all_instances=True)
    ).first()  # fmt: skip
    current = body["divisionData"][0]
    assert current["tier"] == row.tier.name and current["overallPosition"] == row.overall_position
    assert current["points"] > 0
    assert body["seasonData"]["current"] and body["seasonData"]["previous"]
    assert sum(s["percentage"] for s in body["globalStatistics"]) == pytest.approx(100, abs=0.5)
