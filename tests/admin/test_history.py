"""Every admin record has a history page: each screen's list links every row it shows to its
history, and each of those pages opens (walked from the screens' declarations over the demo
data). Entries the hand-written screens wrote under their own names show there too."""

import importlib
import re

from sqlalchemy import select

import app.admin.routes  # noqa: F401  (declares the screens)
from app.admin.crud import SCREENS
from app.auth.models import MODULES
from app.core import roles as R
from app.core.audit import AuditLog
from app.core.models import Instance
from app.extensions import db
from tests.factories import make_user
from tests.helpers import page_text, sign_in

ALL = ["ROLE_USER", R.ROLE_ADMIN, *R.ALL_TENANT_ROLES, *R.ALL_GLOBAL_ROLES]
MIGRATION = importlib.import_module(
    "migrations.versions.a1d7e0c29f31_admin_audit_one_naming_scheme"
)


def _everyone(demo_client) -> str:
    nordbil = db.session.scalars(
        select(Instance).where(Instance.company_name == "Nordbil AB")
    ).one()
    admin = make_user(nordbil, roles=ALL, modules=list(MODULES), all_divisions=True)
    return sign_in(demo_client, admin)


def test_every_record_of_every_screen_opens_its_history(demo_client):
    _everyone(demo_client)
    walked = 0
    for path, screen in sorted(SCREENS.items()):
        if not screen.history_link:
            assert demo_client.get(screen.url).status_code == 200, path
            continue  # the logs: each row is an audit entry itself
        parents = _walk(demo_client, screen.parent) if screen.parent else [None]
        for parent_id in parents:
            walked += len(_walk(demo_client, screen, parent_id))
    assert walked > 50


def _walk(demo_client, screen, parent_id=None) -> list[str]:
    """Open the list (of one parent row's rows) and each row's history; return the row ids."""
    listing = demo_client.get(screen.list_url(parent_id))
    assert listing.status_code == 200, screen.path
    html = page_text(listing)
    rows = len(re.findall(r'<th scope="row"', html))
    base = re.escape(screen.base_url(parent_id))
    links = re.findall(rf'href="{base}/(\d+)/history"', html)
    assert len(links) == rows, f"{screen.path}: {rows} rows, {len(links)} history links"
    for row_id in links:
        page = demo_client.get(f"{screen.base_url(parent_id)}/{row_id}/history")
        assert page.status_code == 200, (screen.path, row_id)
    return links


def test_a_change_made_on_a_screen_and_an_old_entry_show_on_the_history(client):
    from app.ranking.models import RankingSeason

    admin = make_user(roles=["ROLE_USER", R.ROLE_ADMIN, R.global_read("TIER_RANKING")])
    token = sign_in(client, admin)
    response = client.post(
        "/admin/global/ranking/seasons/new",
        data={"identifier": "2026-Q4", "start_at": "2026-10-01T00:00",
              "end_at": "2027-01-01T00:00", "csrf_token": token},
    )  # fmt: skip
    assert response.status_code == 302
    season = db.session.scalars(select(RankingSeason)).one()
    # What the ranking's own screen wrote before it moved onto the shared one.
    db.session.add(
        AuditLog(action="ranking.season.update", user_id=admin.id,
                 details={"season_id": season.id, "identifier": "2026-Q3"})
    )  # fmt: skip
    db.session.flush()
    MIGRATION.rename_all(db.session.connection())
    db.session.expire_all()
    text = page_text(client.get(f"/admin/global/ranking/seasons/{season.id}/history"))
    assert text.count(admin.email) == 2
    assert "Created" in text and "Changed" in text and "2026-Q3" in text
    MIGRATION.restore_all(db.session.connection())
    assert db.session.scalars(
        select(AuditLog.action).where(AuditLog.action.like("ranking.%"))
    ).all() == ["ranking.season.update"]
