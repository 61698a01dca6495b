"""My events (by day and week) and the user's calendar feed behind a secret link."""

from datetime import timedelta

from flask import (
    abort,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import force_locale
from flask_babel import gettext as _
from flask_login import current_user

from app.auth.models import User
from app.auth.viewer import _division_tree, viewer
from app.core import audit
from app.core.i18n import DEFAULT_LOCALE, babel_name, force_time_zone, to_locale, user_time_zone
from app.core.models import utcnow
from app.core.pages import public_page
from app.core.ratelimit import check_public_rate
from app.core.tenancy import activate
from app.core.times import calendar_period, iso_week
from app.events import bp, feeds, ical
from app.events import services as svc
from app.extensions import db

_FRESH_LINK = "calendar_feed_link"  # shown once, right after it was made
FEED_PAST_DAYS, FEED_FUTURE_DAYS = 30, 90


def _events_on() -> None:
    v = viewer()
    if not v.configuration("enable_my_events"):
        abort(404)


def _who_signed_in() -> svc.Who:
    v = viewer()
    return svc.Who(v.user.id, tuple(v.modules), tuple(d.id for d in v.visible_divisions))


@bp.get("/my-events")
def my_events():
    """The user's events of one week (grouped by day) or of one day."""
    _events_on()
    zone = user_time_zone(current_user)
    view, first, days = calendar_period(
        request.args, utcnow().astimezone(svc.pytz.timezone(zone)).date()
    )
    start, end = svc.local_window(first, days, zone)
    events = svc.events_between(_who_signed_in(), start, end, utcnow())
    grouped = svc.by_day(events, zone)
    step = timedelta(days=days)
    nav = (
        {"day": (first - step).isoformat()} if view == "day" else {"week": iso_week(first - step)},
        {"day": (first + step).isoformat()} if view == "day" else {"week": iso_week(first + step)},
    )
    feed = feeds.feed_of(current_user.id)
    return render_template(
        "events/my_events.html",
        view=view,
        first=first,
        days=[first + timedelta(days=n) for n in range(days)],
        grouped=grouped,
        count=len(events),
        week=iso_week(first),
        previous=nav[0],
        following=nav[1],
        today=utcnow().astimezone(svc.pytz.timezone(zone)).date(),
        zone=zone,
        feed=feed,
        fresh_link=session.pop(_FRESH_LINK, None),
    )


@bp.post("/my-events/calendar-link")
def make_calendar_link():
    """Make (or replace) the secret calendar link; the old one stops working."""
    _events_on()
    token = feeds.new_link(current_user._get_current_object())
    audit.record("calendar_feed_created")
    db.session.commit()
    session[_FRESH_LINK] = url_for("events.calendar_feed", token=token, _external=True)
    flash(_("Your calendar link is ready. Older links no longer work."), "success")
    return redirect(url_for("events.my_events") + "#calendar")


@bp.post("/my-events/calendar-link/delete")
def delete_calendar_link():
    """Turn the calendar link off."""
    _events_on()
    if feeds.turn_off(current_user.id):
        audit.record("calendar_feed_deleted")
        db.session.commit()
        flash(_("The calendar link has been turned off."), "success")
    return redirect(url_for("events.my_events") + "#calendar")


@bp.get("/my-events/calendar/<token>.ics")
@public_page
def calendar_feed(token: str):
    """The user's events as an iCalendar feed (RFC 5545); any unknown token answers 404."""
    check_public_rate()
    feed = feeds.find(token)
    user = db.session.get(User, feed.user_id) if feed is not None else None
    if user is None or not user.active or user.active_instance is None:
        abort(404)
    instance = user.active_instance
    if not instance.configuration("enable_my_events"):
        abort(404)
    activate(instance.id)
    divisions, _choices = _division_tree(user, instance)
    modules = tuple(m for m in (user.modules or []))
    who = svc.Who(user.id, modules, tuple(d.id for d in divisions))
    now = utcnow()
    zone = user_time_zone(user)
    feed.last_read_at = now
    language = to_locale((user.options or {}).get("language")) or DEFAULT_LOCALE
    with force_locale(babel_name(language)), force_time_zone(zone):
        events = svc.events_between(
            who, now - timedelta(days=FEED_PAST_DAYS), now + timedelta(days=FEED_FUTURE_DAYS), now
        )
        body = ical.calendar(
            events,
            name=f"{_('My events')} · {instance.company_name}",
            zone=zone,
            host=request.host.split(":", 1)[0],
            base_url=request.host_url,
            now=now,
        )
    db.session.commit()
    response = make_response(body)
    response.headers["Content-Type"] = "text/calendar; charset=utf-8"
    response.headers["Content-Disposition"] = 'inline; filename="my-events.ics"'
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
