"""GET tier-ranking-division-summary/{divisionId}."""

from flask import jsonify
from flask_babel import gettext as _

from app.core.api import ApiError, api_call
from app.ranking import api_bp
from app.ranking.services import division_summary


@api_call(api_bp, "/tier-ranking-division-summary/<divisionId>")
def tier_ranking_division_summary(divisionId: str):  # noqa: N803 - the spec's path name
    """The ranking summary of one of the user's divisions. A division of another instance or
    outside the user's divisions answers 404; errors carry retry=false, as asking again cannot
    help."""
    try:
        division_id = int(divisionId)
    except ValueError:
        division_id = -1
    summary = division_summary(division_id)
    if summary is None:
        raise ApiError(404, _("This division has no ranking you can see."), retry=False)
    return jsonify(summary)
