"""The module's rules act on vehicles: tried before they are switched on, run by the scheduler
and when a vehicle changes, in the order of the rule interaction screen, every change in the
vehicle's history under the rule's name; their notifications reach the division's users in the
shell. And the event engine's "notify" and the bid event with its threshold."""

import re
from datetime import timedelta

from sqlalchemy import select

from app.automation.rules import run_rules
from app.core.happenings import announce
from app.core.models import Division, utcnow
from app.core.notifications import Notification
from app.core.settings import SettingRow, Tag
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import ItemTag, PreparationItem
from app.preparation.services import move_item
from tests.helpers import page_text
from tests.preparation.test_admin import nordbil, post, rows_of
from tests.shell.conftest import demo_user


def division(name: str) -> Division:
    stmt = select(Division).where(Division.name == name)
    return db.session.scalars(stmt.execution_options(all_instances=True)).one()


def price_check_tag() -> Tag:
    tag = Tag(instance_id=nordbil(), name="Price check", color="#b54708")
    db.session.add(tag)
    db.session.flush()
    return tag


def parked_long(division_id: int, count: int = 2) -> list[PreparationItem]:
    """Vehicles of the division put in Parked 40 days ago."""
    items = rows_of(PreparationItem, nordbil(), module="begcare", division_id=division_id)
    chosen = [i for i in items if i.state not in (5, 9)][:count]
    for item in chosen:
        move_item(item, 5, when=utcnow() - timedelta(days=40))
    for item in items:  # nobody else parked long in this division
        if item.state == 5 and item not in chosen:
            item.state_changed_at = utcnow()
    db.session.flush()
    return chosen


def rule_form(tag: Tag, division_id: int, **extra) -> dict:
    return {
        "name": "Parked too long", "division_id": division_id,
        "c_state_op": "is", "c_state": "parked", "c_days_in_state_op": "gt",
        "c_days_in_state": "30", "tag": str(tag.id), "notify": "ROLE_USER_DIVISION_ADMIN",
        **extra,
    }  # fmt: skip


def test_a_rule_is_tried_switched_on_and_run_by_the_scheduler(as_demo):
    gothenburg = division("Nordbil Göteborg")
    tag = price_check_tag()
    items = parked_long(gothenburg.id)
    client, token = as_demo("admin")
    tried = client.post(
        "/admin/begcare/rules/try", data={**rule_form(tag, gothenburg.id), "csrf_token": token}
    )
    assert tried.status_code == 200
    text = page_text(tried)
    assert "Would affect 2 vehicles today" in text
    assert all(i.regno in text for i in items)
    assert not rows_of(SettingRow, nordbil(), name="Parked too long")  # a try saves nothing
    saved = post(client, token, "/admin/begcare/rules/new", **rule_form(tag, gothenburg.id))
    assert saved.status_code == 302
    (rule,) = rows_of(SettingRow, nordbil(), name="Parked too long")
    assert rule.active is False and rule.data["conditions"][0] == {
        "field": "state", "op": "is", "value": "parked"
    }  # fmt: skip
    assert "Would affect 2 vehicles" in page_text(client.get(f"/admin/begcare/rules/{rule.id}/try"))
    run_rules()
    assert not rows_of(ItemTag, nordbil(), tag_id=tag.id)  # not switched on: nothing happens
    answer = post(
        client, token, f"/admin/begcare/rules/{rule.id}/edit",
        **rule_form(tag, gothenburg.id, active="y", warning="Check the price"),
    )  # fmt: skip
    assert answer.status_code == 302
    db.session.expire_all()
    run_rules()
    activate(None)
    assert {t.item_id for t in rows_of(ItemTag, nordbil(), tag_id=tag.id)} == {i.id for i in items}
    run_rules()  # again: once per time the rule comes to hold
    notes = [
        n
        for n in rows_of(Notification, nordbil(), user_id=demo_user("divadmin@demo.test").id)
        if n.params.get("rule") == "Parked too long"
    ]
    assert len(notes) == 2
    divadmin, _ = as_demo("divadmin")
    page = page_text(divadmin.get("/notifications"))
    assert f"Rule Parked too long: {items[0].regno}" in page
    assert re.search(r"Notifications: \d+ unread", page)
    parked = divadmin.get("/begcare/items/parked?sort=regno").get_data(as_text=True)
    assert parked.count('<span class="badge rule-warning">Check the price</span>') == 2
    history = page_text(divadmin.get(f"/begcare/{items[0].id}", follow_redirects=True))
    assert "Rule Parked too long" in history and "Tag Price check added" in history
    assert all(n.user_id != demo_user("buyer@demo.test").id for n in notes)  # Fjordauto's


def test_a_division_admin_makes_rules_only_for_their_divisions(as_demo):
    tag = price_check_tag()
    solna = division("Nordbil Solna")
    client, token = as_demo("divadmin")
    answer = post(client, token, "/admin/begcare/rules/new", **rule_form(tag, solna.id))
    assert answer.status_code == 422
    assert "Not a valid choice" in page_text(answer)
    assert not rows_of(SettingRow, nordbil(), name="Parked too long")
    tried = client.post(
        "/admin/begcare/rules/try", data={**rule_form(tag, solna.id), "csrf_token": token}
    )
    assert tried.status_code == 422 and "Would affect" not in page_text(tried)
    theirs = SettingRow(instance_id=nordbil(), kind="begcare.rule", name="Solna", division_id=solna.id,
                        data={"conditions": [{"field": "state", "op": "is", "value": "parked"}]})  # fmt: skip
    db.session.add(theirs)
    db.session.flush()
    assert client.get(f"/admin/begcare/rules/{theirs.id}/try").status_code == 403


def test_a_rule_without_a_condition_is_refused_with_the_form_kept(as_demo):
    client, token = as_demo("admin")
    answer = post(client, token, "/admin/begcare/rules/new", name="Nothing", division_id="",
                  c_mileage_op="gt", c_mileage="")  # fmt: skip
    assert answer.status_code == 422
    text = page_text(answer)
    assert "Choose or enter a value for this condition." in text
    assert 'value="Nothing"' in answer.get_data(as_text=True)

    tried = post(client, token, "/admin/begcare/rules/try", name="Nothing", division_id="",
                 c_mileage_op="gt", c_mileage="")  # fmt: skip
    assert tried.status_code == 422
    html = tried.get_data(as_text=True)
    assert "Choose or enter a value for this condition." in page_text(tried)
    assert 'value="Nothing"' in html and 'aria-invalid="true"' in html
    assert "Would affect" not in html


def test_a_vehicle_moved_is_checked_at_once_and_the_first_rule_wins(as_demo):
    gothenburg = division("Nordbil Göteborg")
    activate(nordbil())
    item = next(
        i for i in rows_of(PreparationItem, nordbil(), module="begcare", division_id=gothenburg.id)
        if i.state == 4 and not i.warning
    )  # fmt: skip
    first, second = (
        SettingRow(instance_id=nordbil(), kind="begcare.rule", name=name, active=True,
                   division_id=gothenburg.id,
                   data={"conditions": [{"field": "tasks_overdue", "op": "is", "value": "no"}],
                         "move": target})
        for name, target in (("A to showroom", "showroom"), ("B to sold", "sold"))
    )  # fmt: skip
    db.session.add_all([first, second])
    db.session.flush()
    db.session.add(
        SettingRow(instance_id=nordbil(), kind="begcare.interaction", name="B first", active=True,
                   division_id=gothenburg.id, data={"rule": str(second.id), "priority": 1})
    )  # fmt: skip
    db.session.flush()
    move_item(item, 5)
    assert item.state == 7  # B acted first; A's move is left out
    client, _ = as_demo("admin")
    history = page_text(client.get(f"/begcare/{item.id}", follow_redirects=True))
    assert "Rule B to sold" in history
    assert "Not moved to Showroom: a rule before it moved the vehicle" in history


def test_the_event_engines_notify_reaches_the_role_in_the_app(as_demo):
    activate(nordbil())
    db.session.add(
        SettingRow(instance_id=nordbil(), kind="event", name="Big bids", active=True,
                   data={"event": "bid_placed", "action": "notify", "target": "ROLE_ADMIN",
                         "threshold": 100000})
    )  # fmt: skip
    db.session.flush()
    announce("bid.placed", nordbil(), advertId=1, amount=900, currency="SEK", advertAmount=900)
    admin = demo_user("admin@demo.test")
    assert not rows_of(Notification, nordbil(), user_id=admin.id)
    announce("bid.placed", nordbil(), advertId=1, amount=2, currency="SEK", advertAmount=150000)
    (note,) = rows_of(Notification, nordbil(), user_id=admin.id)
    client, token = as_demo("admin")
    assert "A bid is placed: #1 (event rule Big bids)" in page_text(client.get("/notifications"))
    seller, seller_token = as_demo("seller")
    assert (
        seller.post(f"/notifications/{note.id}/read", data={"csrf_token": seller_token}).status_code
        == 404
    )
    client, token = as_demo("admin")
    client.post(f"/notifications/{note.id}/read", data={"csrf_token": token})
    db.session.expire_all()
    assert db.session.get(Notification, note.id).read_at is not None
    assert "Notifications: none unread" in page_text(client.get("/notifications"))


def test_a_divisions_rule_looks_only_at_its_own_parking_locations(as_demo):
    from app.preparation.models import Location

    tag = price_check_tag()
    gothenburg, solna = division("Nordbil Göteborg"), division("Nordbil Solna")
    elsewhere = rows_of(Location, nordbil(), module="begcare", kind="parking", division_id=solna.id)
    client, token = as_demo("admin")
    answer = post(
        client, token, "/admin/begcare/rules/new",
        **rule_form(tag, gothenburg.id, c_location_op="is", c_location=elsewhere[0].id),
    )  # fmt: skip
    assert answer.status_code == 422
    assert "Choose a parking location of the rule's division." in page_text(answer)
    assert not rows_of(SettingRow, nordbil(), name="Parked too long")


def test_a_rules_warning_reads_in_each_readers_language(as_demo):
    gothenburg = division("Nordbil Göteborg")
    tag = price_check_tag()
    items = parked_long(gothenburg.id)
    client, token = as_demo("admin")
    german = {"warning_texts-de-DE": "Preis prüfen", "warning_texts-sv-SE": "Kolla priset"}
    form = rule_form(tag, gothenburg.id, active="y", warning="Check the price", **german)
    assert post(client, token, "/admin/begcare/rules/new", **form).status_code == 302
    (rule,) = rows_of(SettingRow, nordbil(), name="Parked too long")
    assert rule.data["warning_texts"] == {"de-DE": "Preis prüfen", "sv-SE": "Kolla priset"}
    edit = page_text(client.get(f"/admin/begcare/rules/{rule.id}/edit"))
    assert "Warning in each language" in edit
    db.session.expire_all()
    run_rules()
    activate(None)
    divadmin, _ = as_demo("divadmin")
    url = "/begcare/items/parked?sort=regno&lang="
    german_list = divadmin.get(url + "de-DE").get_data(as_text=True)
    assert german_list.count('<span class="badge rule-warning">Preis prüfen</span>') == 2
    assert "Check the price" not in german_list
    history = page_text(divadmin.get(f"/begcare/{items[0].id}?lang=sv-SE", follow_redirects=True))
    assert "Kolla priset" in history
    # a language without its own text reads the company's (Swedish)
    dutch = divadmin.get(url + "nl-NL").get_data(as_text=True)
    assert dutch.count('<span class="badge rule-warning">Kolla priset</span>') == 2
    # a translation changed later reaches the vehicles the rule already holds for
    form["warning_texts-nl-NL"] = "Prijs controleren"
    client, token = as_demo("admin")
    answer = post(client, token, f"/admin/begcare/rules/{rule.id}/edit", **form)
    assert answer.status_code == 302
    divadmin, _ = as_demo("divadmin")
    dutch = divadmin.get(url + "nl-NL").get_data(as_text=True)
    assert dutch.count('<span class="badge rule-warning">Prijs controleren</span>') == 2


def test_a_rules_name_reads_in_each_readers_language_in_the_vehicle_history(as_demo):
    gothenburg = division("Nordbil Göteborg")
    tag = price_check_tag()
    items = parked_long(gothenburg.id)
    client, token = as_demo("admin")
    names = {"name_texts-de-DE": "Zu lange geparkt", "name_texts-sv-SE": "Parkerad för länge"}
    form = rule_form(tag, gothenburg.id, active="y", **names)
    assert post(client, token, "/admin/begcare/rules/new", **form).status_code == 302
    (rule,) = rows_of(SettingRow, nordbil(), name="Parked too long")
    assert rule.data["name_texts"] == {"de-DE": "Zu lange geparkt", "sv-SE": "Parkerad för länge"}
    listed = page_text(client.get("/admin/begcare/rules?lang=de-DE"))
    assert "Zu lange geparkt" in listed
    db.session.expire_all()
    run_rules()
    activate(None)
    divadmin, _ = as_demo("divadmin")
    german = page_text(divadmin.get(f"/begcare/{items[0].id}?lang=de-DE", follow_redirects=True))
    assert "Zu lange geparkt" in german and "Parked too long" not in german
    # a language without its own text reads the company's (Swedish)
    dutch = page_text(divadmin.get(f"/begcare/{items[0].id}?lang=nl-NL", follow_redirects=True))
    assert "Parkerad för länge" in dutch
