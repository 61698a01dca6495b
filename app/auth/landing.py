"""Where a station user's day starts: the vehicles waiting at their stations (the main menu's
"Station vehicles"), not the module's state counts. Set as the landing page of a user made a
station user (app.admin.users) and of the demo's station user; the landing rule itself is
app.shell.landing."""

STATION_LANDING = "/begcare/station/vehicles"


def with_station_landing(options: dict | None) -> dict:
    """The options of a user just made a station user: their station's vehicles as landing
    page, unless they already have one."""
    options = dict(options or {})
    if not options.get("landingPage"):
        options["landingPage"] = STATION_LANDING
    return options
