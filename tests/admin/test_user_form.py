"""The user form speaks a dealer's language (issue 38): roles by area with their names and what
they allow, codes only on request, presets that fill the form within what the writer may grant,
and page titles that name the thing."""

import re
from html.parser import HTMLParser

from sqlalchemy import func, select

from app.auth.models import User
from app.core import roles as R
from app.core.models import Division
from app.core.tenancy import activate
from app.extensions import db
from tests.factories import make_instance, make_user
from tests.helpers import page_text, sign_in

ADMIN_ROLES = ["ROLE_USER", R.ROLE_ADMIN, *R.ALL_TENANT_ROLES, *R.ALL_GLOBAL_ROLES]
CODE = re.compile(r"\b(ROLE|IS)_[A-Z_]+\b")


class VisibleText(HTMLParser):
    """The text a reader sees: no scripts, no styles, no codes hidden until "Show codes"."""

    HIDDEN = ("script", "style")

    def __init__(self, codes_shown: bool) -> None:
        super().__init__()
        self.codes_shown, self.depth, self.parts = codes_shown, 0, []

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if self.depth or tag in self.HIDDEN or ("role-code" in classes and not self.codes_shown):
            self.depth += 1

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


def visible(response, codes_shown: bool = False) -> str:
    parser = VisibleText(codes_shown)
    parser.feed(response.get_data(as_text=True))
    return " ".join(parser.parts)


def admin(instance=None):
    return make_user(instance or make_instance(), roles=ADMIN_ROLES, all_divisions=True)


def test_the_add_form_names_roles_by_area_and_hides_the_codes(client):
    token = sign_in(client, admin())
    page = client.get("/admin/core/users/new")
    assert page.status_code == 200
    text = visible(page)
    assert not CODE.search(text), CODE.search(text)
    for legend in ("Vehicles", "Statistics", "Administration", "Platform"):
        assert f"<legend>{legend}</legend>" in page_text(page)
    assert "Station worker" in text and "Sees the vehicles waiting at their station" in text
    assert "Admin screen: Countries" in text  # named after the admin menu's entry
    # The code is there for support, in a <code> shown on "Show codes" (a redraw, no save).
    assert '<code class="role-code">ROLE_STATION_USER</code>' in page_text(page)
    shown = client.post("/admin/core/users/new", data={"csrf_token": token, "redraw": "codes-on"})
    assert shown.status_code == 200
    assert "described-choices show-codes" in page_text(shown)
    assert "ROLE_STATION_USER" in visible(shown, codes_shown=True)


def test_page_titles_name_the_thing(client):
    instance = make_instance()
    token = sign_in(client, admin(instance))
    text = page_text(client.get("/admin/core/users/new"))
    assert "<title>Add user · Administration" in text
    assert '<span aria-current="page">Add user</span>' in text
    sara = make_user(instance, firstname="Sara", lastname="Lindqvist")
    text = page_text(client.get(f"/admin/core/users/{sara.id}/edit"))
    assert '<span aria-current="page">Edit user Sara Lindqvist</span>' in text
    assert token


def test_a_preset_fills_the_form_without_saving(client):
    instance = make_instance()
    token = sign_in(client, admin(instance))
    before = db.session.scalar(select(func.count(User.id)))
    page = client.post(
        "/admin/core/users/new",
        data={"csrf_token": token, "email": "st@example.test", "firstname": "Stina",
              "lastname": "Station", "language": "sv-SE", "roles": [R.ROLE_ADMIN],
              "modules": ["market"], "preset": "station-worker", "redraw": "preset"},
    )  # fmt: skip
    assert page.status_code == 200
    text = page_text(page)
    checked = set(
        re.findall(
            r'<input checked id="roles-\d+" name="roles" type="checkbox" value="(\w+)"', text
        )
    )
    assert checked == {"ROLE_USER", R.ROLE_STATION_USER}
    modules = set(
        re.findall(
            r'<input checked id="modules-\d+" name="modules" type="checkbox" value="(\w+)"', text
        )
    )
    assert modules == {"begcare"}
    assert 'value="Stina"' in text  # what was typed stays
    assert db.session.scalar(select(func.count(User.id))) == before


def test_presets_offer_only_what_the_writer_may_grant(client):
    instance = make_instance(divisions=2)
    activate(instance.id)
    mine = db.session.scalars(select(Division).order_by(Division.id)).first()
    activate(None)
    # A division admin who also holds the station role may hand it on, not the salesperson's.
    divadmin = make_user(
        instance, roles=["ROLE_USER", R.ROLE_USER_DIVISION_ADMIN, R.ROLE_STATION_USER],
        modules=["begcare"], divisions=[mine],
    )  # fmt: skip
    token = sign_in(client, divadmin)
    page = client.get("/admin/core/users/new")
    options = re.findall(
        r'<option[^>]*value="([\w-]*)"', page_text(page).split('id="preset"', 1)[1]
    )
    assert "station-worker" in options
    assert "salesperson" not in options and "division-admin" not in options
    filled = page_text(client.post(
        "/admin/core/users/new",
        data={"csrf_token": token, "preset": "station-worker", "redraw": "preset"},
    ))  # fmt: skip
    # The writer's only division is filled in.
    assert re.search(
        rf'<input checked id="divisions-\d+" name="divisions" type="checkbox" value="{mine.id}"',
        filled,
    )
    refused = client.post(
        "/admin/core/users/new",
        data={"csrf_token": token, "preset": "salesperson", "redraw": "preset"},
    )
    assert "ROLE_USER_BEGCARE_ADD_VEHICLE" not in page_text(refused)


def test_groups_show_the_names_of_their_roles(client):
    from app.auth.models import Group

    instance = make_instance()
    activate(instance.id)
    db.session.add(Group(name="Verkstad", roles=[R.ROLE_STATION_USER, R.ROLE_STATISTICS]))
    db.session.flush()
    activate(None)
    sign_in(client, admin(instance))
    text = visible(client.get("/admin/core/users/new"))
    assert "Verkstad" in text and "Station worker, Statistics" in text
    group_form = visible(client.get("/admin/core/groups/new"))
    assert "Station worker" in group_form and not CODE.search(group_form)
