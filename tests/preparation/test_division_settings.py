"""A division administrator changes only their divisions' rows of the module's settings (state
buttons, stations, station groups, packages, rules, rule interaction, add wizards), never the
instance's, and reads only their divisions' entries of the audit log."""

import pytest
from sqlalchemy import select

from app.core.audit import AuditLog, record
from app.core.models import Division
from app.core.settings import SettingRow
from app.extensions import db
from app.preparation import wizards
from app.preparation.models import StateButton, Station, StationGroup, StationPackage
from tests.helpers import page_text
from tests.preparation.test_admin import nordbil, one_of, post, rows_of
from tests.shell.conftest import demo_user

SCREENS = ["state-buttons", "stations", "station-packages", "station-groups"]
MODEL = {
    "state-buttons": StateButton,
    "stations": Station,
    "station-packages": StationPackage,
    "station-groups": StationGroup,
}


def divisions() -> dict[str, Division]:
    stmt = select(Division).where(Division.instance_id == nordbil())
    return {d.name: d for d in db.session.scalars(stmt.execution_options(all_instances=True))}


def own() -> Division:
    return divisions()["Nordbil Göteborg"]


def other() -> Division:
    return divisions()["Nordbil Solna"]


def snapshot(row) -> dict:
    db.session.expire_all()
    again = db.session.get(type(row), row.id)
    return {c.key: getattr(again, c.key) for c in type(row).__table__.columns}


@pytest.mark.parametrize("screen", SCREENS)
def test_the_instances_rows_are_read_only_for_a_division_admin(as_demo, screen):
    row = one_of(screen, nordbil())
    assert row.division_id is None  # the demo's settings are the instance's
    before = snapshot(row)
    client, token = as_demo("divadmin")
    listing = page_text(client.get(f"/admin/begcare/{screen}"))
    assert f'href="/admin/begcare/{screen}/{row.id}/edit"' not in listing
    assert "Read only" in listing
    for path in (f"{row.id}/edit", f"{row.id}/delete"):
        assert client.get(f"/admin/begcare/{screen}/{path}").status_code == 403, path
        answer = post(client, token, f"/admin/begcare/{screen}/{path}", name="Taken", title="X")
        assert answer.status_code == 403, path
    assert snapshot(row) == before
    admin, _ = as_demo("admin")
    assert f'href="/admin/begcare/{screen}/{row.id}/edit"' in page_text(
        admin.get(f"/admin/begcare/{screen}")
    )


def test_a_division_admin_adds_and_changes_a_station_group_of_their_division(as_demo):
    client, token = as_demo("divadmin")
    form = page_text(client.get("/admin/begcare/station-groups/new"))
    assert "Nordbil Göteborg" in form
    assert "Nordbil Solna" not in form and "The whole instance" not in form
    answer = post(
        client, token, "/admin/begcare/station-groups/new", name="Göteborg rekond",
        division_id=own().id,
    )  # fmt: skip
    assert answer.status_code == 302
    (group,) = rows_of(StationGroup, nordbil(), name="Göteborg rekond")
    assert group.division_id == own().id
    answer = post(
        client, token, f"/admin/begcare/station-groups/{group.id}/edit", name="Göteborg tvätt",
        division_id=own().id,
    )  # fmt: skip
    assert answer.status_code == 302
    assert snapshot(group)["name"] == "Göteborg tvätt"
    entry = db.session.scalars(
        select(AuditLog)
        .where(AuditLog.action == f"admin:begcare/station-groups:{group.id}:update")
        .order_by(AuditLog.id.desc())
    ).first()
    assert entry.division_id == own().id


def test_a_division_admin_cannot_give_a_row_to_the_instance_or_another_division(as_demo):
    client, token = as_demo("divadmin")
    for owner in ("", other().id):
        answer = post(
            client, token, "/admin/begcare/station-groups/new", name="Not mine",
            division_id=owner,
        )  # fmt: skip
        assert answer.status_code == 422
    assert not rows_of(StationGroup, nordbil(), name="Not mine")
    theirs = StationGroup(
        instance_id=nordbil(), module="begcare", name="Solna", division_id=other().id
    )
    db.session.add(theirs)
    db.session.flush()
    answer = post(
        client, token, f"/admin/begcare/station-groups/{theirs.id}/edit", name="Mine now",
        division_id=own().id,
    )  # fmt: skip
    assert answer.status_code == 403
    assert snapshot(theirs)["division_id"] == other().id


def test_an_admin_still_changes_the_instances_rows(as_demo):
    client, token = as_demo("admin")
    group = one_of("station-groups", nordbil())
    answer = post(
        client, token, f"/admin/begcare/station-groups/{group.id}/edit", name="Rekond ny",
        division_id="",
    )  # fmt: skip
    assert answer.status_code == 302
    assert snapshot(group)["name"] == "Rekond ny" and group.division_id is None


@pytest.mark.parametrize("screen", ["rules", "rule-interaction", "add-wizards"])
def test_module_rules_and_wizards_of_the_instance_are_read_only_for_a_division_admin(
    as_demo, screen
):
    kind = {"rules": "rule", "rule-interaction": "interaction", "add-wizards": "wizard"}[screen]
    shared = SettingRow(instance_id=nordbil(), kind=f"begcare.{kind}", name="Shared", data={})
    db.session.add(shared)
    db.session.flush()
    before = snapshot(shared)
    client, token = as_demo("divadmin")
    listing = page_text(client.get(f"/admin/begcare/{screen}"))
    assert "Shared" in listing and f"/admin/begcare/{screen}/{shared.id}/edit" not in listing
    edit = post(
        client, token, f"/admin/begcare/{screen}/{shared.id}/edit", name="Mine",
        division_id=own().id,
    )  # fmt: skip
    assert edit.status_code == 403
    assert post(client, token, f"/admin/begcare/{screen}/{shared.id}/delete").status_code == 403
    assert snapshot(shared) == before
    steps = {}
    if screen == "add-wizards":  # a wizard has a titled step with the fields a vehicle needs
        steps = {f"fields-{n}-step": "1" if c.key in wizards.ALWAYS else "0"
                 for n, c in enumerate(wizards.CATALOGUE)}  # fmt: skip
        steps["steps-0-title_en_GB"] = "Intake"
    # A rule needs a condition, a rule interaction its rule (app/admin/rules.py); the other
    # screens ignore those fields.
    rule = SettingRow(instance_id=nordbil(), kind="begcare.rule", name="R", division_id=own().id)
    db.session.add(rule)
    db.session.flush()
    made = post(
        client, token, f"/admin/begcare/{screen}/new", name="Göteborg only",
        division_id=own().id, active="y", c_state_op="is", c_state="parked", x_rule=rule.id,
        x_stop="", **steps,
    )  # fmt: skip
    assert made.status_code == 302
    (mine,) = rows_of(SettingRow, nordbil(), name="Göteborg only")
    assert mine.division_id == own().id
    assert f"/admin/begcare/{screen}/{mine.id}/edit" in page_text(
        client.get(f"/admin/begcare/{screen}")
    )


def test_a_division_admin_reads_only_their_divisions_audit_entries(as_demo):
    admin = demo_user("admin@demo.test")
    for name, division_id in (
        ("test.own", own().id), ("test.other", other().id), ("test.instance", None),
    ):  # fmt: skip
        record(name, user=admin, instance_id=nordbil(), division_id=division_id)
    db.session.flush()
    client, _ = as_demo("divadmin")
    text = page_text(client.get("/admin/begcare/logs?q=test."))
    assert "test.own" in text
    assert "test.other" not in text and "test.instance" not in text
    client, _ = as_demo("admin")
    text = page_text(client.get("/admin/begcare/logs?q=test."))
    assert all(name in text for name in ("test.own", "test.other", "test.instance"))
