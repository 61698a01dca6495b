"""The events a user takes part in, read from the data that carries their dates:

- sales and deliveries: vehicles moved into sold (7) or delivery flow (8) in the divisions and
  vehicle modules the user may see, at the moment of that move;
- station deadlines: active tasks at the user's stations or assigned to them, due when their
  target time after the start has passed;
- market endings: the end of bidding on the adverts of the user's company (published or
  closed), for users of the market module.
Bookings have no data of their own yet (booking calendars are an admin screen to come).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

import pytz
from flask_babel import gettext as _
from flask_babel import ngettext
from sqlalchemy import or_, select

from app.extensions import db
from app.market.models import Advert
from app.preparation.models import ItemStationTask, PreparationItem, Station, user_stations

SOLD, DELIVERY_FLOW = 7, 8
KINDS = ("sold", "delivery", "station", "market")
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

    @property
    def label(self) -> str:
        return {
            "sold": _("Sold"),
            "delivery": _("Delivery"),
            "station": _("Station deadline"),
            "market": _("Bidding ends"),
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
                    detail=station.name,
                    href=f"/{item.module}/{item.id}",
                    uid=f"task-{task.id}",
                    overdue=due <= now,
                )
            )
    return events


def _market_events(who: Who, start: datetime, end: datetime) -> list[Event]:
    if "market" not in who.modules:
        return []
    adverts = db.session.scalars(
        select(Advert).where(
            Advert.status.in_(("published", "closed")),
            Advert.ends_at >= start,
            Advert.ends_at < end,
        )
    )
    return [
        Event(
            kind="market",
            at=advert.ends_at,
            title=f"{advert.brand} {advert.model} · {advert.regno}",
            detail=ngettext("%(num)s bid", "%(num)s bids", advert.bid_count or 0),
            href=f"/market/adverts/{advert.id}",
            uid=f"advert-{advert.id}",
        )
        for advert in adverts
    ]


def events_between(who: Who, start: datetime, end: datetime, now: datetime) -> list[Event]:
    """Every event of the user from `start` (inclusive) to `end`, in time order."""
    events = [
        *_item_events(who, start, end),
        *_station_events(who, start, end, now),
        *_market_events(who, start, end),
    ]
    return sorted(events, key=lambda e: (e.at, e.kind, e.uid))


def by_day(events: list[Event], zone: str) -> dict[date, list[Event]]:
    """The events grouped by their day in `zone`."""
    tz = pytz.timezone(zone)
    days: dict[date, list[Event]] = {}
    for event in events:
        days.setdefault(event.at.astimezone(tz).date(), []).append(event)
    return days
