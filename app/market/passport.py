"""The vehicle passport of an advert (issue 33): a public summary of the car's preparation the
seller chooses to show bidders: finished quick tests (each with its public view), the work done
(station tasks and the day each finished), the last service, the specification fields the
seller picks (the tyres among them: the demo keeps its tyres as a specification field) and,
only if the seller ticks it, the actual reconditioning cost from the cost lines.

The advert stores the seller's choices only (`Advert.passport`: which sections, which quick
tests, show costs yes or no); the passport itself is computed each time it is shown. Computed,
not frozen at publishing, because a car is often still being prepared while it is on the
market: work finished after publishing then reaches the bidders without the seller saving
again, the seller's preview and the bidders' page can never disagree, and nothing is copied
that could go stale. What a bidder sees is still bounded by the choices: a quick test appears
only when the seller picked it, costs only when the seller ticked them.

The vehicle is the advert's own preparation item (`Advert.item_id`, set when the advert is made
from a vehicle in stock); a typed-in advert is matched by its registration number among the
seller's instance's vehicles. Every query names the advert's instance, so another instance's
tests, tasks or costs never enter a passport.

Tyres are the vehicle's specification fields (app/preparation/specification.py) the seller
picks one by one: an instance that records its tyres as a field ("Tyres": make and size, tread
depth) shows them; names are in the bidder's language, numbers written their way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from flask import url_for
from flask_babel import gettext as _
from sqlalchemy import func, select

from app.core.localized import for_reader
from app.extensions import db
from app.market.formatting import advert_day
from app.market.models import Advert
from app.market.rates import format_amount
from app.preparation import specification
from app.preparation.items import normalise_regno
from app.preparation.models import (
    ItemStationTask,
    PreparationItem,
    Station,
    VehiclePropertyValue,
)
from app.preparation.recon import currency_of
from app.preparation.recon_models import ACTUAL, ReconLine
from app.quicktest.models import Storage, StorageContainer

WORK, COSTS, TESTS, SERVICE, SPEC = "work", "costs", "tests", "service", "spec"


class PassportError(ValueError):
    """Choices that cannot be kept, with the message for the seller."""


@dataclass
class Choices:
    """What the seller chose to show: quick tests by id, the work done, its actual cost, the
    last service, specification fields by property id."""

    tests: list[int] = field(default_factory=list)
    work: bool = False
    costs: bool = False
    service: bool = False
    spec: list[int] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.tests or self.work or self.costs or self.service or self.spec)

    @classmethod
    def of(cls, advert: Advert) -> Choices:
        raw = advert.passport or {}
        return cls(
            tests=[int(t) for t in raw.get(TESTS, []) if str(t).isdigit()],
            work=bool(raw.get(WORK)),
            costs=bool(raw.get(COSTS)),
            service=bool(raw.get(SERVICE)),
            spec=[int(p) for p in raw.get(SPEC, []) if str(p).isdigit()],
        )

    @classmethod
    def ticked(cls, form) -> Choices:
        """The ticked boxes as they are (ids that are no number left out): what the form shows
        again beside a refusal."""
        return cls(
            tests=sorted({int(r) for r in form.getlist("test") if r.isdigit()}),
            work=form.get("work") == "1",
            costs=form.get("costs") == "1",
            service=form.get("service") == "1",
            spec=sorted({int(r) for r in form.getlist("spec") if r.isdigit()}),
        )

    @classmethod
    def from_form(cls, form) -> Choices:
        """The ticked boxes; an id that is no number is refused, not dropped silently."""
        if any(not r.isdigit() for r in form.getlist("test")):
            raise PassportError(_("Choose the quick tests from the list."))
        if any(not r.isdigit() for r in form.getlist("spec")):
            raise PassportError(_("Choose the specification fields from the list."))
        return cls.ticked(form)

    def stored(self) -> dict | None:
        if self.empty:
            return None
        return {
            TESTS: self.tests,
            WORK: self.work,
            COSTS: self.costs,
            SERVICE: self.service,
            SPEC: self.spec,
        }


def vehicle_of(advert: Advert) -> PreparationItem | None:
    """The advert's vehicle in the seller's instance: its own item, else the newest vehicle with
    its registration number."""
    query = select(PreparationItem).where(PreparationItem.instance_id == advert.instance_id)
    if advert.item_id is not None:
        query = query.where(PreparationItem.id == advert.item_id)
    else:
        regno = normalise_regno(advert.regno or "")
        if not regno:
            return None
        query = query.where(PreparationItem.regno == regno).order_by(PreparationItem.id.desc())
    return db.session.scalars(query.execution_options(all_instances=True).limit(1)).first()


def finished_tests(advert: Advert, item: PreparationItem | None) -> list[StorageContainer]:
    """The vehicle's finished quick tests (the ones the seller may choose), newest first."""
    if item is None:
        return []
    return list(
        db.session.scalars(
            select(StorageContainer)
            .join(Storage, Storage.id == StorageContainer.storage_id)
            .where(
                StorageContainer.item_id == item.id,
                StorageContainer.instance_id == advert.instance_id,
                StorageContainer.reported_at.is_not(None),
            )
            .order_by(StorageContainer.reported_at.desc(), StorageContainer.id.desc())
            .execution_options(all_instances=True)
        )
    )


def specification_fields(
    advert: Advert, item: PreparationItem | None
) -> list[tuple[specification.Property, str]]:
    """The vehicle's filled-in specification fields (active properties with a value), as the
    reader sees them: (property, shown value), by name. The values are the advert instance's."""
    if item is None:
        return []
    values = dict(
        db.session.execute(
            select(VehiclePropertyValue.property_id, VehiclePropertyValue.value)
            .where(
                VehiclePropertyValue.item_id == item.id,
                VehiclePropertyValue.instance_id == advert.instance_id,
            )
            .execution_options(all_instances=True)
        ).all()
    )
    return [
        (prop, specification.shown(prop, values[prop.id]))
        for prop in specification.active_properties()
        if values.get(prop.id, "") != ""
    ]


def check(choices: Choices, advert: Advert, item: PreparationItem | None) -> None:
    """Refuse a quick test that is not a finished test of this advert's vehicle, and a
    specification field the vehicle has no value of."""
    if choices.empty:
        return
    if item is None:
        raise PassportError(_("The advert has no vehicle in stock to show a passport of."))
    allowed = {t.id for t in finished_tests(advert, item)}
    if any(t not in allowed for t in choices.tests):
        raise PassportError(_("A chosen quick test is not a finished test of this vehicle."))
    filled = {prop.id for prop, _value in specification_fields(advert, item)}
    if any(p not in filled for p in choices.spec):
        raise PassportError(_("A chosen specification field has no value on this vehicle."))


def save(advert: Advert, choices: Choices) -> None:
    """Keep checked choices on the advert (flushes; the view commits)."""
    check(choices, advert, vehicle_of(advert))
    advert.passport = choices.stored()
    db.session.flush()


@dataclass
class Passport:
    """What bidders see, in the reader's language and the spec's date format (y-MM-dd)."""

    tests: list[dict] = field(default_factory=list)
    work: list[dict] | None = None
    cost: str | None = None
    service: dict | None = None  # {"day": y-MM-dd or "", "mileage": "48 200" or ""}
    specification: list[dict] = field(default_factory=list)  # {"name": ..., "value": ...}


def build(advert: Advert, choices: Choices | None = None) -> Passport | None:
    """The passport of the advert's (or the given) choices, computed now; None: nothing chosen
    or no vehicle. Chosen tests that are no longer finished tests of the vehicle are left out."""
    choices = Choices.of(advert) if choices is None else choices
    if choices.empty:
        return None
    item = vehicle_of(advert)
    if item is None:
        return None
    passport = Passport()
    if choices.tests:
        chosen = set(choices.tests)
        passport.tests = [
            {
                "title": t.storage.title,
                "day": advert_day(t.reported_at),
                "url": url_for("quicktest.public_view", uuid=t.uuid),
            }
            for t in finished_tests(advert, item)
            if t.id in chosen
        ]
    if choices.work:
        rows = db.session.execute(
            select(Station.name, Station.name_texts, ItemStationTask.finished_at)
            .join(Station, Station.id == ItemStationTask.station_id)
            .where(
                ItemStationTask.item_id == item.id,
                ItemStationTask.instance_id == advert.instance_id,
                ItemStationTask.status == "done",
            )
            .order_by(ItemStationTask.finished_at, ItemStationTask.id)
            .execution_options(all_instances=True)
        ).all()
        passport.work = [
            {"name": for_reader(texts, name), "day": advert_day(done)} for name, texts, done in rows
        ]
    if choices.costs:
        total = db.session.scalar(
            select(func.coalesce(func.sum(ReconLine.amount), 0))
            .where(
                ReconLine.item_id == item.id,
                ReconLine.instance_id == advert.instance_id,
                ReconLine.phase == ACTUAL,
            )
            .execution_options(all_instances=True)
        )
        whole = int(Decimal(total or 0).quantize(Decimal(1)))
        passport.cost = f"{format_amount(whole)}\u00a0{currency_of(item.division_id)}"
    if choices.service:  # the vehicle's last service (app/preparation/service_due.py)
        passport.service = {
            "day": item.last_service_on.isoformat() if item.last_service_on else "",
            "mileage": format_amount(item.last_service_mileage)
            if item.last_service_mileage is not None
            else "",
        }
    if choices.spec:
        chosen = set(choices.spec)
        passport.specification = [
            {"name": prop.name, "value": value}
            for prop, value in specification_fields(advert, item)
            if prop.id in chosen
        ]
    return passport
