"""Helpers of the dashboard tests: the widgets of a demo user and the calls."""

import html
import json
import re

from flask_babel import force_locale
from sqlalchemy import select

from app.core.tenancy import activate
from app.dashboard.models import DashboardWidget
from app.dashboard.services import default_title
from app.extensions import db
from tests.shell.conftest import demo_user

API = "/api/dashboard-widgets"


def page_props(response) -> dict:
    """The dashboard island's props from a page."""
    match = re.search(
        r'data-island="dashboard" data-island-props="([^"]*)"', response.get_data(as_text=True)
    )
    assert match, "the page has no dashboard island"
    return json.loads(html.unescape(match.group(1)))


def widgets_of(email: str, dashboard: str = "my") -> list[DashboardWidget]:
    user = demo_user(email)
    activate(user.active_instance_id)
    return list(
        db.session.scalars(
            select(DashboardWidget)
            .where(DashboardWidget.user_id == user.id, DashboardWidget.dashboard == dashboard)
            .order_by(DashboardWidget.position, DashboardWidget.id)
        )
    )


def widget_titled(email: str, title: str) -> DashboardWidget:
    """The user's widget whose title reads `title` in Swedish (typed or its default)."""
    with force_locale("sv_SE"):
        return next(w for w in widgets_of(email) if (w.title or default_title(w)) == title)


def new_widget(**fields) -> dict:
    body = {
        "dashboard": "my", "type": "number", "title": "Test", "module": "begcare",
        "divisions": ["all"], "metric": "count", "period": "month", "autoUpdate": 0, "h": 1, "w": 1,
        "colorConditions": [], "itemFilters": {},
    }  # fmt: skip
    body.update(fields)
    return body
