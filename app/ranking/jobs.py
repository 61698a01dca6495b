"""The ranking refresh, a plain function for the scheduler and the CLI."""

import logging

from app.core.tenancy import activate, active_instance_id
from app.extensions import db
from app.ranking import services

log = logging.getLogger(__name__)


def refresh_rankings(every_season: bool = False) -> dict[str, int]:
    """Recompute the current and previous season's points, tiers and positions of every
    division of every instance, and commit; return divisions ranked per season."""
    previous = active_instance_id()
    activate(None)  # across instances (the admin's "recompute now" runs in a request)
    try:
        result = services.refresh(every_season=every_season)
        db.session.commit()
    finally:
        activate(previous)
    log.info("ranking refreshed: %s", result)
    return result
