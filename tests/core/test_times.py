"""One rule for times (issue 37, point 6): every time in the viewer's zone; the zone named where
people from several zones read the same text (public pages, mails)."""

from datetime import UTC, datetime

import pytest
from flask_babel import force_locale

from app.core.i18n import force_time_zone
from app.core.times import moment
from tests.factories import make_user
from tests.helpers import page_text, sign_in

WINTER = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "locale, named",
    [
        ("sv_SE", "2026-11-28 14:00 (Helsingfors, EET)"),
        ("nb_NO", "2026-11-28 14:00 (Helsingfors, EET)"),
        ("fi_FI", "2026-11-28 14:00 (Helsinki, +0200)"),
        ("da_DK", "2026-11-28 14:00 (Helsinki, EET)"),
        ("en_GB", "2026-11-28 14:00 (Helsinki, EET)"),
        ("de_DE", "2026-11-28 14:00 (Helsinki, OEZ)"),
        ("nl_NL", "2026-11-28 14:00 (Helsinki, EET)"),
    ],
)
def test_a_named_time_gives_the_zone_in_the_readers_language(app, locale, named):
    with app.test_request_context(), force_locale(locale), force_time_zone("Europe/Helsinki"):
        assert moment(WINTER) == "2026-11-28 14:00"
        assert moment(WINTER, named=True) == named
        assert moment(WINTER, "date") == "2026-11-28"
        assert moment(None) == ""
    with app.test_request_context():  # a visitor with no zone reads UTC, named as such
        assert moment(WINTER, named=True) == "2026-11-28 12:00 (UTC)"


def test_the_system_messages_list_shows_the_admins_zone_not_utc(client):
    """The list wrote its times as stored (UTC): now in the viewer's zone."""
    from app.core import roles as R
    from tests.messages.test_system_messages import READ, _message

    admin = make_user(roles=[R.ROLE_ADMIN, READ], options={"timeZone": "Europe/Helsinki"})
    _message(message="Winter", started_at=WINTER)
    sign_in(client, admin)
    text = page_text(client.get("/admin/global/system-messages"))
    assert "2026-11-28 14:00" in text  # Helsinki, UTC+2 in November
    assert "2026-11-28 12:00" not in text


def test_a_day_or_week_page_reads_its_period_and_falls_back_to_this_week():
    """My events and a booking calendar read ?day= and ?week= with one rule; anything
    unreadable shows the week of today (Monday first)."""
    from datetime import date

    from app.core.times import calendar_period, iso_week

    today = date(2027, 3, 31)  # a Wednesday
    assert calendar_period({"day": "2027-03-28"}, today) == ("day", date(2027, 3, 28), 1)
    assert calendar_period({"week": "2027-W13"}, today) == ("week", date(2027, 3, 29), 7)
    for bad in ({"day": "yesterday"}, {"week": "2027-W99"}, {}):
        assert calendar_period(bad, today) == ("week", date(2027, 3, 29), 7)
    assert iso_week(date(2027, 1, 1)) == "2026-W53"
