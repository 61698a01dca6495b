"""The vehicle passport of an advert (issue 33 item 4): the seller's choices, the bidders' page
showing only what was chosen, the seller's preview, and isolation between instances."""

from datetime import date, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import select
from werkzeug.datastructures import MultiDict

from app.core.models import Division, utcnow
from app.core.settings import GlobalSettingRow
from app.core.tenancy import activate
from app.extensions import db
from app.market import passport
from app.market.demo import bid_link
from app.market.models import Advert
from app.preparation.models import ItemStationTask, PreparationItem
from app.preparation.recon_models import ReconLine
from app.quicktest.models import Storage, StorageContainer
from tests.factories import make_instance
from tests.helpers import page_text
from tests.market._adverts import demo_login, group_named, make_advert

# The demo bidders' advert carries a passport: its vehicle's finished quick test and its work.
TEST_TITLE = "Snabbtest begagnat"


@pytest.fixture
def as_demo(demo_client):
    return demo_login(demo_client)


def demo_advert() -> Advert:
    path = bid_link()
    return db.session.scalars(
        select(Advert)
        .where(Advert.hash == path.split("/")[4])
        .execution_options(all_instances=True)
    ).one()


def other_vehicles_test(advert: Advert) -> StorageContainer:
    """A finished quick test of another vehicle of the same instance."""
    return db.session.scalars(
        select(StorageContainer)
        .where(
            StorageContainer.instance_id == advert.instance_id,
            StorageContainer.reported_at.is_not(None),
            (StorageContainer.item_id != advert.item_id) | StorageContainer.item_id.is_(None),
        )
        .execution_options(all_instances=True)
    ).first()


# --- the choices -------------------------------------------------------------------------------


def test_the_choices_are_read_from_the_form_and_stored_as_the_seller_ticked_them():
    form = MultiDict([("test", "7"), ("test", "3"), ("test", "7"), ("costs", "1")])
    choices = passport.Choices.from_form(form)
    assert (choices.tests, choices.work, choices.costs) == ([3, 7], False, True)
    assert choices.stored() == {
        "tests": [3, 7],
        "work": False,
        "costs": True,
        "service": False,
        "spec": [],
    }
    # Nothing ticked: no passport at all (the bidders' page shows none).
    assert passport.Choices.from_form(MultiDict()).stored() is None
    advert = Advert(passport={"tests": [3, "x"], "work": True})
    assert passport.Choices.of(advert) == passport.Choices(tests=[3], work=True, costs=False)
    assert passport.Choices.from_form(MultiDict([("service", "1")])).stored()["service"] is True
    assert passport.Choices.of(Advert()).empty
    with pytest.raises(passport.PassportError):
        passport.Choices.from_form(MultiDict([("test", "3; drop")]))


def test_a_quick_test_not_of_the_vehicle_is_refused_and_nothing_is_kept(demo_app):
    advert = demo_advert()
    activate(advert.instance_id)
    before = dict(advert.passport)
    stranger = other_vehicles_test(advert)
    with pytest.raises(passport.PassportError, match="not a finished test of this vehicle"):
        passport.save(advert, passport.Choices(tests=[stranger.id]))
    assert advert.passport == before


# --- the bidders' page -------------------------------------------------------------------------


def test_the_bid_page_shows_the_chosen_parts_only(demo_app, bidder):
    advert, path = demo_advert(), bid_link() + "?lang=nb-NO"
    text = page_text(bidder.get(path))
    assert "Kjøretøypass" in text and TEST_TITLE in text and "Utført arbeid" in text
    assert "Klargjøringskostnad" not in text  # costs were not ticked
    test = passport.finished_tests(advert, passport.vehicle_of(advert))[0]
    assert f'href="/quick-test/view/{test.uuid}"' in text
    # The quick test's own public view opens from the link.
    assert bidder.get(f"/quick-test/view/{test.uuid}").status_code == 200

    # Costs ticked: the actual reconditioning total appears, written the Norwegian way.
    activate(advert.instance_id)
    advert.passport = {**advert.passport, "costs": True, "work": False}
    db.session.flush()
    text = page_text(bidder.get(path))
    assert "Klargjøringskostnad" in text and "Utført arbeid" not in text
    assert "data-passport-service" not in text  # the service was not ticked

    # The service ticked: the vehicle's last service, its day and mileage.
    vehicle = passport.vehicle_of(advert)
    vehicle.last_service_on, vehicle.last_service_mileage = date(2026, 9, 14), 45210
    advert.passport = {**advert.passport, "service": True}
    db.session.flush()
    text = page_text(bidder.get(path))
    assert "data-passport-service" in text and "2026-09-14" in text and "45\u00a0210" in text

    # No choices: no passport.
    advert.passport = None
    db.session.flush()
    assert "data-passport" not in bidder.get(path).get_data(as_text=True)


def test_work_finished_after_publishing_appears_without_saving_again(demo_app):
    """The passport is computed when shown: a task finished later is in it."""
    advert = demo_advert()
    activate(advert.instance_id)
    task = db.session.scalars(
        select(ItemStationTask).where(
            ItemStationTask.item_id == advert.item_id, ItemStationTask.status == "done"
        )
    ).first()
    task.status, task.finished_at = "active", None  # as it was when the advert was published
    db.session.flush()
    with demo_app.test_request_context():
        before = passport.build(advert).work
        task.status, task.finished_at = "done", utcnow()
        db.session.flush()
        assert len(passport.build(advert).work) == len(before) + 1


# --- the seller's page and preview -------------------------------------------------------------


def test_the_seller_chooses_previews_and_saves(demo_app, as_demo):
    client, token = as_demo("seller")
    advert = demo_advert()
    path = f"/market/adverts/{advert.id}/passport"
    page = client.get(path)
    assert page.status_code == 200
    text = page_text(page)
    assert "Preview as bidders see it" in text and TEST_TITLE in text and "data-passport" in text
    test = passport.finished_tests(advert, passport.vehicle_of(advert))[0]

    # Preview with costs ticked: shown in the preview, not saved.
    body = {"csrf_token": token, "test": str(test.id), "costs": "1", "action": "preview"}
    preview = page_text(client.post(path, data=body))
    assert "Reconditioning cost" in preview and "not saved yet" in preview
    db.session.refresh(advert)
    assert advert.passport["costs"] is False

    # Save: kept, and the bidders' page has the cost now.
    saved = client.post(path, data={**body, "action": "save"})
    assert saved.status_code == 302
    db.session.refresh(advert)
    assert advert.passport == {
        "tests": [test.id],
        "work": False,
        "costs": True,
        "service": False,
        "spec": [],
    }

    # Another vehicle's test: refused in the seller's language, the ticks kept, nothing saved.
    stranger = other_vehicles_test(advert)
    refused = client.post(path, data={"csrf_token": token, "test": str(stranger.id), "work": "1"})
    assert refused.status_code == 422
    text = page_text(refused)
    assert "A chosen quick test is not a finished test of this vehicle." in text
    assert 'name="work" value="1" checked' in text
    db.session.refresh(advert)
    assert advert.passport == {
        "tests": [test.id],
        "work": False,
        "costs": True,
        "service": False,
        "spec": [],
    }


def test_a_buyer_cannot_open_the_sellers_passport_page(demo_app, as_demo):
    client, _token = as_demo("buyer")
    assert client.get(f"/market/adverts/{demo_advert().id}/passport").status_code in (403, 404)


def test_the_advert_page_links_the_passport_for_the_seller_only(demo_app, as_demo):
    advert = demo_advert()
    client, _token = as_demo("seller")
    assert "data-passport-link" in client.get(f"/market/adverts/{advert.id}").get_data(True)


# --- isolation ---------------------------------------------------------------------------------


def test_another_instances_tests_tasks_and_costs_never_enter_a_passport(demo_app):
    """Rows of another instance pointing at the advert's vehicle (as a forged id would) are left
    out of the choices offered, refused when chosen and never shown."""
    advert = demo_advert()
    activate(advert.instance_id)
    item = db.session.get(PreparationItem, advert.item_id)
    with demo_app.test_request_context():
        own_cost = passport.build(advert, passport.Choices(costs=True)).cost
    other = make_instance("Elsewhere AB")  # active from here
    division = db.session.scalars(select(Division).where(Division.instance_id == other.id)).first()
    storage = Storage(title="Foreign test", instance_id=other.id)
    db.session.add(storage)
    db.session.flush()
    foreign = StorageContainer(
        instance_id=other.id, identifier=item.regno, storage_id=storage.id,
        division_id=division.id, item_id=item.id, reported_at=utcnow() - timedelta(hours=1),
    )  # fmt: skip
    db.session.add(foreign)
    db.session.flush()
    task = db.session.scalars(
        select(ItemStationTask).where(ItemStationTask.item_id == item.id)
        .execution_options(all_instances=True)
    ).first()  # fmt: skip
    db.session.add(
        ReconLine(
            instance_id=other.id, item_id=item.id, task_id=task.id, phase="actual",
            kind="parts", amount=Decimal("999999"),
        )
    )  # fmt: skip
    db.session.flush()
    activate(advert.instance_id)
    assert foreign.id not in {t.id for t in passport.finished_tests(advert, item)}
    with pytest.raises(passport.PassportError):
        passport.check(passport.Choices(tests=[foreign.id]), advert, item)
    with demo_app.test_request_context():
        shown = passport.build(advert, passport.Choices(tests=[foreign.id], costs=True))
    assert shown.tests == []
    assert shown.cost == own_cost


def test_another_sellers_advert_is_not_found(demo_app, as_demo):
    """A seller opens only its own adverts' passports (another company's advert: 404)."""
    foreign = make_advert(group_named("Fjordauto AS"))
    client, _token = as_demo("seller")
    assert client.get(f"/market/adverts/{foreign.id}/passport").status_code == 404


# --- specification fields: the tyres ---------------------------------------------------------


def test_the_tyres_the_seller_picked_reach_the_bidder_in_their_language(demo_app, bidder):
    """The demo's passport shows the vehicle's tyres field and no other specification field;
    names are the bidder's language, the value as entered."""
    advert = demo_advert()
    vehicle = passport.vehicle_of(advert)
    with demo_app.test_request_context("/?lang=nb-NO"):
        fields = {p.name: v for p, v in passport.specification_fields(advert, vehicle)}
    assert "Dekk" in fields and "Egenvekt" in fields  # the vehicle has both filled in
    text = page_text(bidder.get(bid_link() + "?lang=nb-NO"))
    assert "Spesifikasjon og dekk" in text and "data-passport-specification" in text
    assert "Dekk" in text and fields["Dekk"] in text
    assert "Egenvekt" not in text and "Däck" not in text  # not picked; not Swedish


def test_a_field_the_vehicle_has_no_value_of_is_refused_with_the_ticks_kept(demo_app, as_demo):
    client, token = as_demo("seller")
    advert = demo_advert()
    activate(advert.instance_id)
    before = dict(advert.passport)
    vehicle = passport.vehicle_of(advert)
    filled = {p.id for p, _v in passport.specification_fields(advert, vehicle)}
    empty_row = GlobalSettingRow(kind="property", name="Vinterdäck", data={"type": "text"})
    db.session.add(empty_row)
    db.session.flush()
    empty = empty_row.id
    assert empty not in filled
    path = f"/market/adverts/{advert.id}/passport"
    body = {"csrf_token": token, "spec": str(empty), "service": "1", "action": "save"}
    refused = client.post(path, data=body)
    assert refused.status_code == 422
    text = page_text(refused)
    assert "A chosen specification field has no value on this vehicle." in text
    assert 'name="service" value="1" checked' in text
    db.session.refresh(advert)
    assert advert.passport == before
    # A picked field with a value is kept, and the preview shows it.
    kept = next(iter(filled))
    saved = client.post(path, data={**body, "spec": str(kept)})
    assert saved.status_code == 302
    db.session.refresh(advert)
    assert advert.passport["spec"] == [kept] and advert.passport["service"] is True
