"""The module's admin screens: who sees and changes them, what they refuse, what they record."""

import re

import pytest
from sqlalchemy import select

from app.core.audit import AuditLog
from app.core.models import Division, Instance
from app.core.tenancy import activate
from app.extensions import db
from app.preparation import locations
from app.preparation.models import (
    ItemStationTask,
    Location,
    PreparationItem,
    StateButton,
    Station,
    StationGroup,
    StationPackage,
    StationPackageStep,
)
from app.preparation.services import add_item, state_counts
from tests.factories import make_instance, make_user
from tests.helpers import message_key, page_text, sign_in
from tests.preparation.manage_helpers import (
    QueryCounter,
    fresh_shell_caches,  # noqa: F401 - autouse
)
from tests.shell.conftest import demo_user

LIST_SCREENS = [
    "states",
    "state-buttons",
    "stations",
    "station-packages",
    "station-groups",
    "locations",
    "keylocations",
    "delivery-locations",
]
WRITE_SCREENS = LIST_SCREENS[1:]
READ_ROLE = {
    "states": "STATES",
    "state-buttons": "STATE_BUTTON",
    "stations": "STATION",
    "station-packages": "STATION_PACKAGE",
    "station-groups": "STATION_GROUP",
    "locations": "PARKING",
    "keylocations": "KEY_LOCATION",
}
KIND = {"locations": "parking", "keylocations": "key", "delivery-locations": "delivery"}


def instance_named(name: str) -> Instance:
    return db.session.scalars(select(Instance).where(Instance.company_name == name)).one()


def nordbil() -> int:
    return instance_named("Nordbil AB").id


def fjordauto() -> int:
    return instance_named("Fjordauto AS").id


def rows_of(model, instance_id: int, **where):
    stmt = select(model).where(model.instance_id == instance_id).order_by(model.id)
    for column, value in where.items():
        stmt = stmt.where(getattr(model, column) == value)
    return list(db.session.scalars(stmt.execution_options(all_instances=True)))


def division(slug: str) -> Division:
    return db.session.scalars(
        select(Division).where(Division.slug == slug).execution_options(all_instances=True)
    ).one()


def one_of(screen: str, instance_id: int, module: str = "begcare"):
    """An existing row of a screen in an instance (for edit and delete addresses)."""
    if screen == "state-buttons":
        return rows_of(StateButton, instance_id, module=module)[0]
    if screen == "stations":
        return rows_of(Station, instance_id, module=module)[-1]
    if screen == "station-packages":
        return rows_of(StationPackage, instance_id, module=module)[0]
    if screen == "station-groups":
        return rows_of(StationGroup, instance_id, module=module)[0]
    # A location no vehicle is at: one in use cannot be deleted (test_locations_act.py).
    places = rows_of(Location, instance_id, module=module, kind=KIND[screen])
    free = next((p for p in places if not locations.in_use(p)), None)
    if free is None:
        free = Location(
            instance_id=instance_id, module=module, kind=KIND[screen], name="Ledig",
            division_id=places[0].division_id,
        )  # fmt: skip
        db.session.add(free)
        db.session.flush()
    return free


def with_roles(email: str, *roles: str):
    user = demo_user(email)
    user.roles = [*user.roles, *roles]
    db.session.flush()
    return user


def audits(action: str) -> list[AuditLog]:
    return list(
        db.session.scalars(select(AuditLog).where(AuditLog.action == action).order_by(AuditLog.id))
    )


# --- who sees, who changes ----------------------------------------------------------------------


@pytest.mark.parametrize("screen", LIST_SCREENS)
@pytest.mark.parametrize("module", ["begcare", "newcare"])
def test_admin_and_division_admin_see_every_screen_of_both_modules(as_demo, screen, module):
    for name in ("admin", "divadmin"):
        client, _ = as_demo(name)
        response = client.get(f"/admin/{module}/{screen}")
        assert response.status_code == 200, name
        html = page_text(response)
        assert '<h1 class="page-title">' in html
        if screen != "states":
            assert f'href="/admin/{module}/{screen}/new"' in html  # they may change it


@pytest.mark.parametrize("screen", LIST_SCREENS)
def test_users_without_rights_are_refused_every_screen(as_demo, screen):
    for name in ("seller", "station"):
        client, token = as_demo(name)
        assert client.get(f"/admin/begcare/{screen}").status_code == 403
        if screen != "states":
            assert client.get(f"/admin/begcare/{screen}/new").status_code == 403
            response = client.post(
                f"/admin/begcare/{screen}/new", data={"name": "X", "csrf_token": token}
            )
            assert response.status_code == 403


@pytest.mark.parametrize("screen", READ_ROLE)
def test_a_read_role_shows_a_screen_but_changes_nothing(as_demo, screen):
    with_roles("seller@demo.test", f"ROLE_TENANT_BEGCARE_{READ_ROLE[screen]}_READ")
    client, token = as_demo("seller")
    response = client.get(f"/admin/begcare/{screen}")
    assert response.status_code == 200
    html = page_text(response)
    assert "Changing them needs an administrator" in html or screen == "states"
    assert "/new" not in html and "/edit" not in html and "/delete" not in html
    # the other module and the other screens stay closed
    assert client.get(f"/admin/newcare/{screen}").status_code == 403
    if screen == "states":
        return
    row = one_of(screen, nordbil())
    assert client.get(f"/admin/begcare/{screen}/new").status_code == 403
    assert client.get(f"/admin/begcare/{screen}/{row.id}/edit").status_code == 403
    for path in ("new", f"{row.id}/edit", f"{row.id}/delete"):
        response = client.post(
            f"/admin/begcare/{screen}/{path}", data={"name": "Changed", "csrf_token": token}
        )
        assert response.status_code == 403, path
    db.session.expire_all()
    assert db.session.get(type(row), row.id) is not None
    assert getattr(db.session.get(type(row), row.id), "name", "") != "Changed"


def test_delivery_location_admin_may_change_delivery_locations_only(as_demo):
    with_roles("seller@demo.test", "ROLE_TENANT_DELIVERY_LOCATION_ADMIN")
    client, token = as_demo("seller")
    solna = division("nordbil-solna")
    response = client.post(
        "/admin/begcare/delivery-locations/new",
        data={"name": "Leveranshall 2", "division_id": solna.id, "csrf_token": token},
    )
    assert response.status_code == 302
    assert "Leveranshall 2" in page_text(client.get("/admin/begcare/delivery-locations"))
    assert client.get("/admin/begcare/locations").status_code == 403


def test_a_module_the_user_does_not_have_is_not_found(as_demo):
    user = with_roles("seller@demo.test", "ROLE_ADMIN")
    user.modules = ["begcare"]
    db.session.flush()
    client, _ = as_demo("seller")
    assert client.get("/admin/begcare/stations").status_code == 200
    assert client.get("/admin/newcare/stations").status_code == 404


# --- isolation: other instances, other modules, other divisions ---------------------------------


@pytest.mark.parametrize("screen", WRITE_SCREENS)
def test_ids_of_another_instance_are_not_found(as_demo, screen):
    foreign = one_of(screen, fjordauto())
    for name in ("admin", "divadmin"):
        client, token = as_demo(name)
        for path in (f"{foreign.id}/edit", f"{foreign.id}/delete"):
            assert client.get(f"/admin/begcare/{screen}/{path}").status_code == 404, path
            response = client.post(
                f"/admin/begcare/{screen}/{path}", data={"name": "Taken", "csrf_token": token}
            )
            assert response.status_code == 404, path
    db.session.expire_all()
    assert db.session.get(type(foreign), foreign.id) is not None


@pytest.mark.parametrize("screen", WRITE_SCREENS)
def test_ids_of_the_other_module_are_not_found(as_demo, screen):
    client, token = as_demo("admin")
    newcare_row = one_of(screen, nordbil(), module="newcare")
    assert client.get(f"/admin/begcare/{screen}/{newcare_row.id}/edit").status_code == 404
    response = client.post(
        f"/admin/begcare/{screen}/{newcare_row.id}/delete", data={"csrf_token": token}
    )
    assert response.status_code == 404
    assert client.get(f"/admin/newcare/{screen}/{newcare_row.id}/edit").status_code == 200


def test_the_other_instances_rows_are_not_listed(as_demo):
    client, _ = as_demo("admin")
    html = page_text(client.get("/admin/begcare/stations"))
    assert "Mechanical inspection" in html  # both instances have one; Nordbil's is shown
    others = rows_of(Station, fjordauto(), module="begcare")  # the same words in English
    assert others and not any(f"/admin/begcare/stations/{s.id}/" in html for s in others)


def test_division_admin_keeps_the_locations_of_their_division_only(as_demo):
    client, token = as_demo("divadmin")
    goteborg, solna = division("nordbil-goteborg"), division("nordbil-solna")
    html = page_text(client.get("/admin/begcare/locations"))
    assert "Nordbil Göteborg" in html and "Nordbil Solna" not in html
    others = rows_of(Location, nordbil(), module="begcare", kind="parking", division_id=solna.id)
    assert client.get(f"/admin/begcare/locations/{others[0].id}/edit").status_code == 404
    form = page_text(client.get("/admin/begcare/locations/new"))
    assert f'value="{goteborg.id}"' in form and f'value="{solna.id}"' not in form
    response = client.post(
        "/admin/begcare/locations/new",
        data={"name": "P9", "division_id": solna.id, "csrf_token": token},
    )
    assert response.status_code == 422
    assert not rows_of(Location, nordbil(), name="P9")
    response = client.post(
        "/admin/begcare/locations/new",
        data={"name": "P9", "division_id": goteborg.id, "csrf_token": token},
    )
    assert response.status_code == 302
    assert [loc.division_id for loc in rows_of(Location, nordbil(), name="P9")] == [goteborg.id]


# --- states -------------------------------------------------------------------------------------


def test_states_screen_shows_the_nine_states_their_vehicles_and_buttons(as_demo):
    client, _ = as_demo("admin")
    html = page_text(client.get("/admin/begcare/states"))
    rows = re.findall(r'<tr data-state="(\d)">(.*?)</tr>', html, re.S)
    assert [int(n) for n, _ in rows] == list(range(1, 10))
    activate(nordbil())
    counts = state_counts(None)["begcare"]
    activate(None)
    for n, row in rows:
        number = re.search(r'class="num"><a href="[^"]+">(\d+)</a>', row).group(1)
        assert int(number) == counts[int(n)]
    flow = dict(rows)["4"]
    assert "Park" in flow and "Move to showroom" in flow
    assert "None: vehicles stay in this state." in dict(rows)["9"]
    assert client.post("/admin/begcare/states").status_code == 405


# --- state buttons ------------------------------------------------------------------------------


def post(client, token, path, **data):
    return client.post(path, data={**data, "csrf_token": token})


def test_state_buttons_are_added_edited_and_deleted_with_audit(as_demo):
    client, token = as_demo("admin")
    response = post(
        client, token, "/admin/begcare/state-buttons/new",
        from_state=5, to_state=9, title="Archive parked", ordering=3,
    )  # fmt: skip
    assert response.status_code == 302
    assert response.headers["Location"] == "/admin/begcare/state-buttons"
    listed = page_text(client.get("/admin/begcare/state-buttons"))
    assert "Archive parked" in listed and "Saved." in listed
    (button,) = rows_of(StateButton, nordbil(), title="Archive parked")
    button_id = button.id
    assert (button.module, button.from_state, button.to_state) == ("begcare", 5, 9)
    created = audits(f"admin:begcare/state-buttons:{button_id}:create")[-1]
    assert created.details["after"]["title"] == "Archive parked"

    response = post(
        client, token, f"/admin/begcare/state-buttons/{button.id}/edit",
        from_state=5, to_state=9, title="Archive", ordering=3,
    )  # fmt: skip
    assert response.status_code == 302
    updated = audits(f"admin:begcare/state-buttons:{button_id}:update")[-1]
    assert (updated.details["before"], updated.details["after"]) == (
        {"title": "Archive parked"},
        {"title": "Archive"},
    )

    confirm = client.get(f"/admin/begcare/state-buttons/{button.id}/delete")
    assert confirm.status_code == 200
    assert "cannot be undone" in page_text(confirm)
    assert rows_of(StateButton, nordbil(), id=button.id)  # nothing deleted by looking
    assert (
        post(client, token, f"/admin/begcare/state-buttons/{button.id}/delete").status_code == 302
    )
    db.session.expire_all()
    assert not rows_of(StateButton, nordbil(), id=button_id)
    assert audits(f"admin:begcare/state-buttons:{button_id}:delete")[-1].details["record_id"] == (
        button_id
    )


def test_a_state_button_to_the_same_state_is_refused_and_the_input_kept(as_demo):
    client, token = as_demo("divadmin")
    response = post(
        client, token, "/admin/newcare/state-buttons/new",
        from_state=4, to_state=4, title="Stay here", ordering=1,
    )  # fmt: skip
    assert response.status_code == 422
    html = page_text(response)
    assert "A state button must lead to another state." in html
    assert 'id="to_state-error"' in html and 'value="Stay here"' in html
    assert not rows_of(StateButton, nordbil(), title="Stay here")


def test_a_duplicate_state_button_is_refused_with_a_message(as_demo):
    client, token = as_demo("admin")
    existing = rows_of(StateButton, nordbil(), module="begcare", from_state=4, to_state=6)[0]
    response = post(
        client, token, "/admin/begcare/state-buttons/new",
        from_state=4, to_state=6, title="Showroom again", ordering=1,
    )  # fmt: skip
    assert response.status_code == 422
    html = page_text(response)
    assert "There is already a state button from Flow to Showroom." in html
    assert 'value="Showroom again"' in html
    # editing another button onto the same pair is refused too; editing the button itself is not
    other = rows_of(StateButton, nordbil(), module="begcare", from_state=4, to_state=5)[0]
    response = post(
        client, token, f"/admin/begcare/state-buttons/{other.id}/edit",
        from_state=4, to_state=6, title="Park", ordering=1,
    )  # fmt: skip
    assert response.status_code == 422
    response = post(
        client, token, f"/admin/begcare/state-buttons/{existing.id}/edit",
        from_state=4, to_state=6, title="To the showroom", ordering=existing.ordering,
    )  # fmt: skip
    assert response.status_code == 302


def test_state_button_fields_are_checked(as_demo):
    client, token = as_demo("admin")
    response = post(
        client, token, "/admin/begcare/state-buttons/new",
        from_state=1, to_state=2, title="", ordering="first",
    )  # fmt: skip
    assert response.status_code == 422
    assert message_key(response, "title") == "FIELD_REQUIRED"
    assert 'id="ordering-error"' in page_text(response)
    response = post(
        client, token, "/admin/begcare/state-buttons/new",
        from_state=1, to_state=12, title="x" * 81, ordering=99999,
    )  # fmt: skip
    html = page_text(response)
    assert message_key(response, "title") == "FIELD_TOO_LONG"
    assert "Enter a whole number from 0 to 9999." in html
    assert 'id="to_state-error"' in html


# --- stations and groups ------------------------------------------------------------------------


def test_stations_are_added_with_a_group_and_edited(as_demo):
    client, token = as_demo("admin")
    group = rows_of(StationGroup, nordbil(), module="begcare", name="Rekond")[0]
    response = post(
        client, token, "/admin/begcare/stations/new",
        name="Polering", station_group_id=group.id, target_minutes=75, ordering=7,
    )  # fmt: skip
    assert response.status_code == 302
    (station,) = rows_of(Station, nordbil(), name="Polering")
    assert (station.station_group_id, station.target_minutes) == (group.id, 75)
    html = page_text(client.get("/admin/begcare/stations"))
    assert re.search(r"<th scope=\"row\">Polering</th>\s*<td>Reconditioning", html)  # Rekond
    response = post(
        client, token, f"/admin/begcare/stations/{station.id}/edit",
        name="Polering", station_group_id="None", target_minutes=90, ordering=7,
    )  # fmt: skip
    assert response.status_code == 302
    db.session.expire_all()
    assert db.session.get(Station, station.id).station_group_id is None
    entry = audits(f"admin:begcare/stations:{station.id}:update")[-1].details
    assert (entry["before"]["target_minutes"], entry["after"]["target_minutes"]) == (75, 90)
    assert (entry["before"]["station_group_id"], entry["after"]["station_group_id"]) == (
        group.id,
        None,
    )


def test_station_fields_and_duplicates_are_checked(as_demo):
    client, token = as_demo("admin")
    response = post(
        client, token, "/admin/begcare/stations/new",
        name=" tvätt ", station_group_id="None", target_minutes=0, ordering=1,
    )  # fmt: skip
    assert response.status_code == 422
    assert "Enter a whole number from 1 to 10080." in page_text(response)
    response = post(
        client, token, "/admin/begcare/stations/new",
        name=" tvätt ", station_group_id="None", target_minutes=30, ordering=1,
    )  # fmt: skip
    assert response.status_code == 422
    html = page_text(response)
    assert "There is already a station called tvätt." in html and 'id="name-error"' in html
    foreign_group = rows_of(StationGroup, fjordauto(), module="begcare")[0]
    response = post(
        client, token, "/admin/begcare/stations/new",
        name="Ny", station_group_id=foreign_group.id, target_minutes=30, ordering=1,
    )  # fmt: skip
    assert response.status_code == 422 and 'id="station_group_id-error"' in page_text(response)


def test_a_station_with_tasks_cannot_be_deleted(as_demo):
    client, token = as_demo("admin")
    activate(nordbil())
    wash = db.session.scalars(
        select(Station).where(Station.module == "begcare", Station.name == "Tvätt")
    ).one()
    activate(None)
    listed = page_text(client.get("/admin/begcare/stations"))
    assert f'href="/admin/begcare/stations/{wash.id}/delete"' not in listed
    assert "In use" in listed
    page = client.get(f"/admin/begcare/stations/{wash.id}/delete")
    html = page_text(page)
    assert "Wash has station tasks on" in html and "cannot be deleted" in html  # Tvätt
    assert 'type="submit"' not in html.split('id="main"', 1)[1]
    response = post(client, token, f"/admin/begcare/stations/{wash.id}/delete")
    assert response.status_code == 409
    db.session.expire_all()
    assert db.session.get(Station, wash.id) is not None


def test_an_unused_station_is_deleted_and_leaves_its_packages(as_demo):
    client, token = as_demo("admin")
    activate(nordbil())
    station = Station(module="begcare", name="Glasreparation", target_minutes=40, ordering=9)
    db.session.add(station)
    db.session.flush()
    package = db.session.scalars(
        select(StationPackage).where(StationPackage.module == "begcare")
    ).first()
    db.session.add(StationPackageStep(package_id=package.id, station_id=station.id, ordering=9))
    db.session.flush()
    station_id, package_name = station.id, package.name
    activate(None)
    page = page_text(client.get(f"/admin/begcare/stations/{station_id}/delete"))
    assert f"It is taken out of these packages: {package_name}." in page
    assert post(client, token, f"/admin/begcare/stations/{station_id}/delete").status_code == 302
    db.session.expire_all()
    assert db.session.get(Station, station_id) is None
    assert not rows_of(StationPackageStep, nordbil(), station_id=station_id)


def test_station_groups_are_added_renamed_and_deleted_keeping_their_stations(as_demo):
    client, token = as_demo("divadmin")
    own = division("nordbil-goteborg").id
    response = post(
        client, token, "/admin/begcare/station-groups/new", name="Däck", division_id=own
    )
    assert response.status_code == 302
    (group,) = rows_of(StationGroup, nordbil(), name="Däck")
    response = post(
        client, token, "/admin/begcare/station-groups/new", name="däck", division_id=own
    )
    assert response.status_code == 422
    assert "There is already a station group called däck." in page_text(response)
    response = post(
        client, token, f"/admin/begcare/station-groups/{group.id}/edit", name="", division_id=own
    )
    assert response.status_code == 422 and message_key(response, "name") == "FIELD_REQUIRED"
    client, token = as_demo("admin")  # the instance's group: an administrator's to delete
    rekond = rows_of(StationGroup, nordbil(), module="begcare", name="Rekond")[0]
    rekond_id = rekond.id
    members = [s.id for s in rows_of(Station, nordbil(), station_group_id=rekond_id)]
    page = page_text(client.get(f"/admin/begcare/station-groups/{rekond_id}/delete"))
    assert f"Its {len(members)} stations stay, without a group." in page
    response = post(client, token, f"/admin/begcare/station-groups/{rekond_id}/delete")
    assert response.status_code == 302
    db.session.expire_all()
    assert db.session.get(StationGroup, rekond_id) is None
    assert all(db.session.get(Station, i).station_group_id is None for i in members)
    entry = audits(f"admin:begcare/station-groups:{rekond_id}:delete")[-1]
    assert entry.details["before"]["name"] == "Rekond" and entry.details["after"] is None


# --- station packages ---------------------------------------------------------------------------


def test_a_package_is_built_from_stations_in_the_chosen_order(as_demo):
    client, token = as_demo("admin")
    stations = {s.name: s.id for s in rows_of(Station, nordbil(), module="begcare")}
    form = page_text(client.get("/admin/begcare/station-packages/new"))
    assert len(re.findall(r'<select[^>]+name="steps-\d+"', form)) == len(stations)
    assert '<label for="steps-0">Step 1</label>' in form
    response = post(
        client, token, "/admin/begcare/station-packages/new", name="Snabb",
        **{"steps-0": stations["Fotografering"], "steps-1": "None", "steps-2": stations["Tvätt"]},
    )  # fmt: skip
    assert response.status_code == 302
    (package,) = rows_of(StationPackage, nordbil(), name="Snabb")
    steps = rows_of(StationPackageStep, nordbil(), package_id=package.id)
    assert [(s.station_id, s.ordering) for s in sorted(steps, key=lambda s: s.ordering)] == [
        (stations["Fotografering"], 0),
        (stations["Tvätt"], 1),
    ]
    listed = page_text(client.get("/admin/begcare/station-packages"))
    assert re.search(
        r"Snabb</th>\s*<td>\s*<ol[^>]*>\s*<li>Photography</li>\s*<li>Wash</li>", listed
    )
    edit = page_text(client.get(f"/admin/begcare/station-packages/{package.id}/edit"))
    assert re.search(rf'<option selected value="{stations["Fotografering"]}">', edit)
    response = post(
        client, token, f"/admin/begcare/station-packages/{package.id}/edit", name="Snabb",
        **{"steps-0": stations["Tvätt"], "steps-1": stations["Fotografering"]},
    )  # fmt: skip
    assert response.status_code == 302
    entry = audits(f"admin:begcare/station-packages:{package.id}:update")[-1].details
    assert entry["before"]["steps"] == ["Fotografering", "Tvätt"]
    assert entry["after"]["steps"] == ["Tvätt", "Fotografering"]


def test_a_package_needs_stations_each_once_and_a_free_name(as_demo):
    client, token = as_demo("admin")
    wash = rows_of(Station, nordbil(), module="begcare", name="Tvätt")[0]
    response = post(
        client, token, "/admin/begcare/station-packages/new", name="Tom", **{"steps-0": "None"}
    )
    assert response.status_code == 422
    assert "Choose at least one station." in page_text(response)
    response = post(
        client, token, "/admin/begcare/station-packages/new", name="Dubbel",
        **{"steps-0": wash.id, "steps-1": wash.id},
    )  # fmt: skip
    assert response.status_code == 422
    html = page_text(response)
    assert "Each station can be in a package only once." in html
    assert 'value="Dubbel"' in html  # what was typed is kept
    response = post(
        client, token, "/admin/begcare/station-packages/new", name="standard",
        **{"steps-0": wash.id},
    )  # fmt: skip
    assert response.status_code == 422
    assert "There is already a package called standard." in page_text(response)
    newcare_wash = rows_of(Station, nordbil(), module="newcare", name="Tvätt")[0]
    response = post(
        client, token, "/admin/begcare/station-packages/new", name="Fel modul",
        **{"steps-0": newcare_wash.id},
    )  # fmt: skip
    assert response.status_code == 422
    assert not rows_of(StationPackage, nordbil(), name="Fel modul")


def test_a_packages_name_is_kept_in_each_language_and_read_in_the_readers(as_demo):
    client, token = as_demo("admin")
    wash = rows_of(Station, nordbil(), module="begcare", name="Tvätt")[0]
    assert "Name in each language" in page_text(client.get("/admin/begcare/station-packages/new"))
    response = post(
        client, token, "/admin/begcare/station-packages/new", name="Snabbtvätt",
        **{"steps-0": wash.id, "name_texts-de-DE": "Schnellwäsche", "name_texts-sv-SE": "Snabbtvätt"},
    )  # fmt: skip
    assert response.status_code == 302
    (package,) = rows_of(StationPackage, nordbil(), name="Snabbtvätt")
    assert package.name_texts == {"de-DE": "Schnellwäsche", "sv-SE": "Snabbtvätt"}
    german = page_text(client.get("/admin/begcare/station-packages?lang=de-DE"))
    assert "Schnellwäsche" in german and "Snabbtvätt" not in german
    found = page_text(client.get("/admin/begcare/station-packages?q=Schnellw&lang=sv-SE"))
    assert "Snabbtvätt" in found  # searched in every language, read in the reader's


def test_deleting_a_package_keeps_the_vehicles_tasks(as_demo):
    client, token = as_demo("admin")
    package_id = rows_of(StationPackage, nordbil(), module="begcare", name="Standard")[0].id
    items = [i.id for i in rows_of(PreparationItem, nordbil(), package_id=package_id)]
    assert items
    tasks = len(rows_of(ItemStationTask, nordbil(), item_id=items[0]))
    page = page_text(client.get(f"/admin/begcare/station-packages/{package_id}/delete"))
    assert f"{len(items)} vehicles have this package" in page
    response = post(client, token, f"/admin/begcare/station-packages/{package_id}/delete")
    assert response.status_code == 302
    db.session.expire_all()
    assert db.session.get(StationPackage, package_id) is None
    assert db.session.get(PreparationItem, items[0]).package_id is None
    assert len(rows_of(ItemStationTask, nordbil(), item_id=items[0])) == tasks


# --- locations ----------------------------------------------------------------------------------


@pytest.mark.parametrize("screen", ["locations", "keylocations", "delivery-locations"])
def test_locations_of_each_kind_are_added_renamed_and_deleted(as_demo, screen):
    client, token = as_demo("admin")
    solna = division("nordbil-solna")
    path = f"/admin/newcare/{screen}"
    assert (
        post(client, token, f"{path}/new", name="Plats A", division_id=solna.id).status_code == 302
    )
    (location,) = rows_of(Location, nordbil(), name="Plats A")
    assert (location.module, location.kind, location.division_id) == (
        "newcare",
        KIND[screen],
        solna.id,
    )
    response = post(client, token, f"{path}/new", name="plats a", division_id=solna.id)
    assert response.status_code == 422
    assert "This division already has a location called plats a." in page_text(response)
    response = post(client, token, f"{path}/new", name="", division_id="")
    assert response.status_code == 422
    assert message_key(response, "name") == "FIELD_REQUIRED"
    assert 'id="division_id-error"' in page_text(response)
    foreign = division("fjordauto-bergen")
    response = post(client, token, f"{path}/new", name="Bergen", division_id=foreign.id)
    assert response.status_code == 422 and not rows_of(Location, fjordauto(), name="Bergen")
    response = post(
        client, token, f"{path}/{location.id}/edit", name="Plats B", division_id=solna.id
    )
    assert response.status_code == 302
    assert "Plats B" in page_text(client.get(path))
    location_id = location.id
    assert post(client, token, f"{path}/{location_id}/delete").status_code == 302
    db.session.expire_all()
    assert db.session.get(Location, location_id) is None
    deleted = audits(f"admin:newcare/{screen}:{location_id}:delete")[-1]
    assert deleted.details["before"]["kind"] == KIND[screen]


# --- the confirmation step ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "screen", ["state-buttons", "station-packages", "station-groups", "keylocations"]
)
def test_every_delete_asks_first_with_a_real_form(as_demo, screen):
    client, _ = as_demo("admin")
    row = one_of(screen, nordbil())
    html = page_text(client.get(f"/admin/begcare/{screen}/{row.id}/delete"))
    main = html.split('id="main"', 1)[1]
    assert '<form method="post">' in main and 'name="csrf_token"' in main
    assert f'href="/admin/begcare/{screen}"' in main  # cancel
    assert "confirm(" not in html
    db.session.expire_all()
    assert db.session.get(type(row), row.id) is not None


def test_a_post_without_the_csrf_token_changes_nothing(as_demo):
    client, _ = as_demo("admin")
    row = one_of("station-groups", nordbil())
    response = client.post(f"/admin/begcare/station-groups/{row.id}/delete")
    assert response.status_code == 400
    db.session.expire_all()
    assert db.session.get(StationGroup, row.id) is not None


# --- the admin menu and the module's admin link ----------------------------------------------------


def test_the_admin_menu_marks_the_screen_and_keeps_the_breadcrumb(as_demo):
    client, _ = as_demo("admin")
    html = page_text(client.get("/admin/newcare/stations/new"))
    nav = html.split('id="shell-nav"', 1)[1].split("</nav>", 1)[0]
    assert re.search(
        r'data-menu-key="admin.newcare.stations">\s*<a href="/admin/newcare/stations"', nav
    )
    assert "begcare.items" not in nav  # the admin area replaces the main menu
    crumbs = html.split('class="breadcrumb"', 1)[1].split("</ol>", 1)[0]
    assert '<a href="/admin/newcare/stations">Stations</a>' in crumbs
    assert '<span aria-current="page">Add station</span>' in crumbs


def test_module_administration_leads_to_the_modules_admin_screens(as_demo):
    client, _ = as_demo("divadmin")
    response = client.get("/begcare/admin")
    assert response.status_code == 302 and response.headers["Location"] == "/admin/begcare"
    html = page_text(client.get("/admin/begcare"))
    assert 'href="/admin/begcare/stations"' in html
    client, _ = as_demo("seller")
    assert client.get("/begcare/admin").status_code == 403


# --- cost ---------------------------------------------------------------------------------------


def _statements(client, path: str) -> int:
    with QueryCounter() as counter:
        assert client.get(path).status_code == 200
    return counter.count


def test_admin_lists_cost_the_same_queries_with_many_rows(client):
    instance = make_instance(divisions=2)
    user = make_user(
        instance, modules=["begcare"], all_divisions=True, roles=["ROLE_USER", "ROLE_ADMIN"]
    )
    sign_in(client, user)
    activate(instance.id)
    division_id = db.session.scalars(select(Division.id)).first()

    def grow(n: int) -> None:
        for k in range(n):
            group = StationGroup(module="begcare", name=f"G{n}-{k}")
            station = Station(module="begcare", name=f"S{n}-{k}", group=group, target_minutes=30)
            db.session.add_all([group, station])
            db.session.flush()
            package = StationPackage(module="begcare", name=f"P{n}-{k}")
            package.steps = [StationPackageStep(station_id=station.id, ordering=0)]
            db.session.add(package)
            db.session.add(StateButton(module="begcare", from_state=1 + k % 9, to_state=1 + (k + 1 + n) % 9, title=f"B{n}-{k}"))  # fmt: skip
            db.session.add(
                Location(module="begcare", kind="key", name=f"K{n}-{k}", division_id=division_id)
            )
            item = add_item(
                PreparationItem(
                    module="begcare", division_id=division_id, state=2, regno=f"R{n}{k}",
                    brand="Kia", model="Niro", package_id=package.id,
                )
            )  # fmt: skip
            db.session.add(ItemStationTask(item_id=item.id, station_id=station.id))
        db.session.flush()

    paths = [f"/admin/begcare/{s}" for s in ("states", "state-buttons", "stations", "station-packages", "station-groups", "keylocations")]  # fmt: skip

    def measure() -> dict[str, int]:
        for path in paths:  # warm the shell's caches (menu snapshot, counts) first
            _statements(client, path)
        return {path: _statements(client, path) for path in paths}

    grow(1)
    few = measure()
    grow(7)
    many = measure()
    assert many == few
    assert max(few.values()) <= 14


# --- what the preparation pages do with it --------------------------------------------------------


def test_a_state_button_added_here_allows_that_move_and_deleting_it_forbids_it(as_demo):
    parked = rows_of(PreparationItem, nordbil(), module="begcare", state=5)[0]
    parked_id = parked.id
    client, token = as_demo("seller")
    post(client, token, f"/begcare/items/{parked_id}/move", to_state=9)
    db.session.expire_all()
    assert (
        db.session.get(PreparationItem, parked_id).state == 5
    )  # no button from parked to archived

    client, token = as_demo("admin")
    response = post(
        client, token, "/admin/begcare/state-buttons/new",
        from_state=5, to_state=9, title="Archive parked", ordering=1,
    )  # fmt: skip
    assert response.status_code == 302
    client, token = as_demo("seller")
    post(client, token, f"/begcare/items/{parked_id}/move", to_state=9)
    db.session.expire_all()
    assert db.session.get(PreparationItem, parked_id).state == 9

    back = rows_of(StateButton, nordbil(), module="begcare", from_state=6, to_state=4)[0]
    showroom_id = rows_of(PreparationItem, nordbil(), module="begcare", state=6)[0].id
    client, token = as_demo("admin")
    assert post(client, token, f"/admin/begcare/state-buttons/{back.id}/delete").status_code == 302
    client, token = as_demo("seller")
    post(client, token, f"/begcare/items/{showroom_id}/move", to_state=4)
    db.session.expire_all()
    assert db.session.get(PreparationItem, showroom_id).state == 6


def test_a_package_built_here_gives_a_new_vehicle_its_station_tasks_in_order(as_demo):
    client, token = as_demo("admin")
    stations = {s.name: s.id for s in rows_of(Station, nordbil(), module="begcare")}
    response = post(
        client, token, "/admin/begcare/station-packages/new", name="Bara foto och tvätt",
        **{"steps-0": stations["Fotografering"], "steps-1": stations["Tvätt"]},
    )  # fmt: skip
    assert response.status_code == 302
    package_id = rows_of(StationPackage, nordbil(), name="Bara foto och tvätt")[0].id
    client, token = as_demo("seller")
    form = page_text(client.get("/begcare/manage/vehicle?action=add"))
    assert "Bara foto och tvätt" in form
    response = post(
        client, token, "/begcare/manage/vehicle?action=add",
        division_id=division("nordbil-solna").id, regno="KLM12B", brand="Kia", model="Niro",
        package_id=package_id,
    )  # fmt: skip
    assert response.status_code == 302, page_text(response)
    (item,) = rows_of(PreparationItem, nordbil(), regno="KLM12B")
    tasks = sorted(rows_of(ItemStationTask, nordbil(), item_id=item.id), key=lambda t: t.ordering)
    assert [t.station_id for t in tasks] == [stations["Fotografering"], stations["Tvätt"]]
