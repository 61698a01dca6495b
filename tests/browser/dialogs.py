"""The dialogs every signed-in page may open by itself: system messages and the ranking summary.

Journeys about other features run with them already seen (`quiet_dialogs_script`, added by
conftest's new_page), so a demo message or a division's summary does not cover their pages;
tests/browser/test_messages_ranking.py opens its pages with quiet=False.
"""

import json

from sqlalchemy import select

from app.core.models import Division
from app.extensions import db
from app.messages.models import SystemMessage
from app.messages.services import to_api
from app.ranking.models import RankingSeason

SEEN_AT = "2026-01-01T00:00:00+00:00"


def quiet_dialogs_script(app) -> str:
    """An init script that marks every system message and ranking summary as seen."""
    with app.app_context():
        messages = [
            {"id": m.id, "createdAt": to_api(m)["modifiedAt"], "viewedAt": SEEN_AT}
            for m in db.session.scalars(select(SystemMessage))
        ]
        seasons = db.session.scalars(select(RankingSeason.identifier)).all()
        divisions = db.session.scalars(
            select(Division.id).execution_options(all_instances=True)
        ).all()
        db.session.remove()
    summaries = [
        {"divisionId": d, "season": s, "viewedAt": SEEN_AT} for d in divisions for s in seasons
    ]
    return (
        f"localStorage.setItem('viewedSystemMessages', {json.dumps(json.dumps(messages))});"
        f"localStorage.setItem('viewedTierSummaryMessages', {json.dumps(json.dumps(summaries))});"
    )


def messages_seen_script(app) -> str:
    """An init script that marks only the system messages existing now as seen."""
    with app.app_context():
        messages = [
            {"id": m.id, "createdAt": to_api(m)["modifiedAt"], "viewedAt": SEEN_AT}
            for m in db.session.scalars(select(SystemMessage))
        ]
        db.session.remove()
    return f"localStorage.setItem('viewedSystemMessages', {json.dumps(json.dumps(messages))});"
