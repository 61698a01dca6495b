"""The events a user takes part in, read from the data that carries their dates:

- sales and deliveries: vehicles moved into sold (7) or delivery flow (8) in the divisions and
  vehicle modules the user may see, at the moment of that move;
- station deadlines: active tasks at the user's stations or assigned to them, due when their
  target time after the start has passed;
- market endings: the end of bidding on the adverts of the user's company (published, closed
  or provisionally sold), for users of the market module;
- market decisions: when an advert of the company ended under its reserve, the moment the
  seller's time to accept, decline or counter the highest bid runs out (app.market.reserve).
- bookings: the test drives and deliveries the user booked (app.bookings), from their start
  to their end.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

import pytz
from flask_babel import gettext as _
from flask_babel import ngettext
from sqlalchemy import and_, or_, select

from app.bookings import services as bookings
from app.extensions import db
from app.market.models import Advert
from app.preparation.models import ItemStationTask, PreparationItem, Station, user_stations

SOLD, DELIVERY_FLOW = 7, 8
KINDS = ("sold", "delivery", "station", "market", "decision", "test_drive", "booked_delivery")
# A station deadline is found among tasks started at most this long before the window.
LONGEST_TARGET = timedelta(days=7)


@dataclass(frozen=True)
class Event:
    kind: str
    at: datetime  # timezone-aware, UTC
    title: str
    detail: str
    href: str
    uid: str  # stable across feed reads (RFC 5545 UID)
    overdue: bool = False
    until: datetime | None = None  # the end, for events that last (bookings)

    @property
    def label(self) -> str:
        return {
            "sold": _("Sold"),
            "delivery": _("Delivery"),
            "station": _("Station deadline"),
            "market": _("Bidding ends"),
            "decision": _("Your decision is due"),
            "test_drive": _("Test drive"),
            "booked_delivery": _("Booked delivery"),
        }[self.kind]


@dataclass(frozen=True)
class Who:
    """What decides a user's events (plain values, so that the feed needs no session)."""

    user_id: int
    modules: tuple[str, ...]
    division_ids: tuple[int, ...]


def local_window(first: date, days: int, zone: str) -> tuple[datetime, datetime]:
    """The UTC moments that begin `first` and end the `days` days after it, in `zone`."""
    tz = pytz.timezone(zone)
    start = tz.localize(datetime.combine(first, time(0)))
    end = tz.localize(datetime.combine(first + timedelta(days=days), time(0)))
    return start.astimezone(pytz.utc), end.astimezone(pytz.utc)


def _vehicle(item: PreparationItem) -> str:
    return f"{item.full_model_name} · {item.regno}"


def _item_events(who: Who, start: datetime, end: datetime) -> list[Event]:
    modules = [m for m in who.modules if m in ("begcare", "newcare")]
    if not modules or not who.division_ids:
        return []
    items = db.session.scalars(
        select(PreparationItem).where(
            PreparationItem.module.in_(modules),
            PreparationItem.division_id.in_(who.division_ids),
            PreparationItem.state.in_((SOLD, DELIVERY_FLOW)),
            PreparationItem.state_changed_at >= start,
            PreparationItem.state_changed_at < end,
        )
    )
    return [
        Event(
            kind="sold" if item.state == SOLD else "delivery",
            at=item.state_changed_at,
            title=_vehicle(item),
            detail=item.division.name if item.division else "",
            href=f"/{item.module}/{item.id}",
            uid=f"item-{item.id}-{item.state}",
        )
        for item in items
    ]


def _station_events(who: Who, start: datetime, end: datetime, now: datetime) -> list[Event]:
    mine = select(user_stations.c.station_id).where(user_stations.c.user_id == who.user_id)
    rows = db.session.execute(
        select(ItemStationTask, Station, PreparationItem)
        .join(Station, Station.id == ItemStationTask.station_id)
        .join(PreparationItem, PreparationItem.id == ItemStationTask.item_id)
        .where(
            ItemStationTask.status == "active",
            ItemStationTask.started_at >= start - LONGEST_TARGET,
            ItemStationTask.started_at < end,
            or_(
                ItemStationTask.station_id.in_(mine),
                ItemStationTask.assigned_user_id == who.user_id,
            ),
        )
    ).all()
    events = []
    for task, station, item in rows:
        due = task.started_at + timedelta(minutes=task.target_minutes or 0)
        if start <= due < end:
            events.append(
                Event(
                    kind="station",
                    at=due,
                    title=_vehicle(item),
                    detail=station.shown_name,
                    href=f"/{item.module}/{item.id}",
                    uid=f"task-{task.id}",
                    overdue=due <= now,
                )
            )
    return events


def _market_events(who: Who, start: datetime, end: datetime) -> list[Event]:
    if "market" not in who.modules:
        return []
    ending = and_(
        Advert.status.in_(("published", "closed", "provisional")),
        Advert.ends_at >= start,
        Advert.ends_at < end,
    )
    # The seller's own deadline; once countered, the bidder answers (not the seller's event).
    deciding = and_(
        Advert.status == "provisional",
        Advert.counter_price.is_(None),
        Advert.decision_due_at >= start,
        Advert.decision_due_at < end,
    )
    events = []
    for advert in db.session.scalars(select(Advert).where(or_(ending, deciding))):
        title = f"{advert.brand} {advert.model} · {advert.regno}"
        href = f"/market/adverts/{advert.id}"
        if start <= advert.ends_at < end:
            events.append(
                Event(
                    kind="market",
                    at=advert.ends_at,
                    title=title,
                    detail=ngettext("%(num)s bid", "%(num)s bids", advert.bid_count or 0),
                    href=href,
                    uid=f"advert-{advert.id}",
                )
            )
        if advert.status == "provisional" and advert.counter_price is None:
            due = advert.decision_due_at
            if due is not None and start <= due < end:
                events.append(
                    Event(
                        kind="decision",
                        at=due,
                        title=title,
                        detail=_("Accept, decline or counter the highest bid"),
                        href=href,
                        uid=f"advert-{advert.id}-decision",
                    )
                )
    return events


def _booking_events(who: Who, start: datetime, end: datetime) -> list[Event]:
    return [
        Event(
            kind="test_drive" if b.kind == "test_drive" else "booked_delivery",
            at=b.starts_at,
            until=b.ends_at,
            title=_vehicle(b.item),
            detail=" · ".join(part for part in (b.customer_name, b.place) if part),
            href=f"/bookings/{b.id}",
            uid=b.uid,
        )
        for b in bookings.between(
            start, end, division_ids=list(who.division_ids), made_by=who.user_id
        )
    ]


def events_between(who: Who, start: datetime, end: datetime, now: datetime) -> list[Event]:
    """Every event of the user from `start` (inclusive) to `end`, in time order."""
    events = [
        *_item_events(who, start, end),
        *_station_events(who, start, end, now),
        *_market_events(who, start, end),
        *_booking_events(who, start, end),
    ]
    return sorted(events, key=lambda e: (e.at, e.kind, e.uid))


def by_day(events: list[Event], zone: str) -> dict[date, list[Event]]:
    """The events grouped by their day in `zone`."""
    tz = pytz.timezone(zone)
    days: dict[date, list[Event]] = {}
    for event in events:
        days.setdefault(event.at.astimezone(tz).date(), []).append(event)
    return days
