"""The privilege sweep: nobody grants more than they hold, or edits someone beyond their reach.

Generated, not hand-listed: the fields that carry reach come from the admin screens' forms
(app.admin.crud.SCREENS), the roles from app.core.roles, the writers' ceilings from
app.auth.privileges. For every kind of writer (a division admin, an instance admin, a customer
company's admin, someone acting as another user) and every reach field of every screen, each
attempt to grant beyond the ceiling, to the writer itself, to a person within its reach and to a
new person, is refused, and so is every change to a person beyond its reach; after each attempt
the database is exactly as before. A screen with a reach field the sweep has no attempt for, or
a role the model does not place, fails it. The control test removes the ceiling and shows the
sweep finding the grants it then lets through.
"""

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

import pytest
from sqlalchemy import func, select

import app.preparation  # noqa: F401  (first: the menu's imports form a cycle otherwise)
from app.admin.crud import SCREENS
from app.auth import privileges as P
from app.auth.models import MODULES, Group, User
from app.core import roles as R
from app.core.audit import AuditLog
from app.core.models import Division
from app.core.tenancy import activate
from app.extensions import db
from app.mail.models import EmailMessage
from tests.factories import make_instance, make_user
from tests.helpers import sign_in

# The form fields that carry reach, and the screens' forms that have them.
REACH_FIELDS = {"roles", "groups", "modules", "divisions", "all_divisions", "is_global"}
NEW_PEOPLE = itertools.count(1)
WATCHED = ("user", "user_instance", "user_group", "user_division", "group", "api_user")
TOKENS = "core/core-api-users"  # an API token's rights: its service user's, within its maker's


def reach_screens() -> dict[str, set[str]]:
    """Each admin screen whose form has a field that carries reach, with those fields."""
    found = {}
    for path, screen in SCREENS.items():
        fields = {name for name in REACH_FIELDS if hasattr(screen.form, name)}
        if fields:
            found[path] = fields
    return found


def every_role() -> set[str]:
    """Every role the code names: the constants of app.core.roles and its generated lists."""
    names = {v for k, v in vars(R).items() if isinstance(v, str) and re.match(r"(ROLE|IS)_", v)}
    return names | set(R.ALL_TENANT_ROLES) | set(R.ALL_GLOBAL_ROLES) | set(R.NO_CHAT_ROLES)


def database_state() -> dict:
    """The rows that carry reach and identity, plus the audit log and mails (nothing sent)."""
    state = {}
    for name in WATCHED:
        table = db.metadata.tables[name]
        rows = db.session.execute(select(table).execution_options(all_instances=True)).all()
        state[name] = sorted(repr(tuple(row)) for row in rows)
    state["audit"] = db.session.scalar(select(func.count(AuditLog.id)))
    state["mail"] = db.session.scalar(select(func.count(EmailMessage.id)))
    return state


@dataclass
class World:
    a: object  # the company everyone but the customer's admin works in
    b: object  # a customer company
    divisions: list  # A's: [d1, d2]
    b_divisions: list
    admins_group: Group  # a group of A carrying ROLE_ADMIN
    people: dict = field(default_factory=dict)


def build_world() -> World:
    a, b = make_instance("Company A"), make_instance("Company B")
    activate(a.id)
    divisions = list(db.session.scalars(select(Division).order_by(Division.id)))
    admins_group = Group(name="Admins", roles=[R.ROLE_ADMIN])
    db.session.add_all([admins_group, Group(name="Sales", roles=["ROLE_USER"])])
    db.session.flush()
    activate(b.id)
    b_divisions = list(db.session.scalars(select(Division).order_by(Division.id)))
    activate(None)
    world = World(a, b, divisions, b_divisions, admins_group)
    everything = list(MODULES)
    instance_admin = ["ROLE_USER", R.ROLE_ADMIN, R.IS_IMPERSONATOR, *R.ALL_TENANT_ROLES]
    world.people = {
        "platform": make_user(
            a, instances=[a, b], modules=everything, all_divisions=True,
            roles=[*instance_admin, *R.ALL_GLOBAL_ROLES],
        ),
        "instance_admin": make_user(a, roles=instance_admin, modules=everything, all_divisions=True),
        "customer_admin": make_user(
            b, roles=["ROLE_USER", R.ROLE_ADMIN, R.tenant_read("USER")], modules=["market"],
            all_divisions=True,
        ),
        "division_admin": make_user(
            a, roles=["ROLE_USER", R.ROLE_USER_DIVISION_ADMIN], modules=["begcare"],
            divisions=[divisions[0]],
        ),
        "staff": make_user(a, roles=["ROLE_USER"], modules=["begcare"], divisions=[divisions[0]]),
        # Works in A, also belongs to B: B's admin may change only what B granted.
        "shared": make_user(
            a, instances=[a, b], roles=["ROLE_USER"], modules=["market"], all_divisions=True
        ),
    }  # fmt: skip
    db.session.flush()
    return world


@dataclass
class Writer:
    kind: str
    person: str  # the one signed in
    acting_as: str | None = None  # whom they act as (the session's reach is both people's)
    screens: tuple = ("core/users", TOKENS)
    beyond: tuple = ()  # people whose reach exceeds this writer's: no change of theirs passes
    within: tuple = ("staff",)  # people inside this writer's reach, granted too much


WRITERS = [
    Writer("division admin", "division_admin", beyond=("instance_admin", "platform", "shared")),
    Writer(
        "instance admin",
        "instance_admin",
        screens=("core/users", "core/groups", TOKENS),
        beyond=("platform",),
    ),
    Writer(
        "customer admin",
        "customer_admin",
        screens=("core/users", "core/groups", TOKENS),
        beyond=("platform",),
        within=("shared",),
    ),
    Writer(
        "acting as a division admin",
        "platform",
        acting_as="division_admin",
        beyond=("instance_admin", "platform", "shared"),
    ),
]


def effective_reach(world: World, writer: Writer) -> P.Reach:
    person = world.people[writer.person]
    instance = world.b if writer.person == "customer_admin" else world.a
    if writer.acting_as:
        return P.acting_reach(world.people[writer.acting_as], person, instance.id)
    return P.reach_of(person, instance.id)


def excess(world: World, writer: Writer) -> dict[str, list]:
    """For each reach field, the values beyond the writer's ceiling (each one an attempt)."""
    limit = P.ceiling(effective_reach(world, writer))
    instance = world.b if writer.person == "customer_admin" else world.a
    divisions = world.b_divisions if instance is world.b else world.divisions
    activate(instance.id)
    groups = list(db.session.scalars(select(Group).where(Group.instance_id == instance.id)))
    activate(None)
    roles = sorted(every_role())
    return {
        "roles": [r for r in roles if not limit.holds_roles([r]) and r not in limit.platform],
        "groups": [g.id for g in groups if not limit.holds_roles(g.roles)],
        "modules": [m for m in MODULES if m not in limit.modules],
        "divisions": [
            d.id for d in divisions if limit.divisions is not None and d.id not in limit.divisions
        ],
        "all_divisions": ["y"] if limit.divisions is not None else [],
        "is_global": ["y"] if not limit.is_global else [],
    }


ATTEMPTS: dict[str, Callable] = {
    # field -> (base form, value) -> the posted form with the value added
    "roles": lambda base, value: {**base, "roles": [*base.get("roles", []), value]},
    "groups": lambda base, value: {**base, "groups": [*base.get("groups", []), value]},
    "modules": lambda base, value: {**base, "modules": [*base.get("modules", []), value]},
    "divisions": lambda base, value: {**base, "divisions": [*base.get("divisions", []), value]},
    "all_divisions": lambda base, value: {**base, "all_divisions": value},
    "is_global": lambda base, value: {**base, "is_global": value},
}


TOKEN_FORM = {
    "name": "Wider", "scopes": ["account:read", "vehicles:write"],
    "expires_on": (date.today() + timedelta(days=30)).isoformat(),
}  # fmt: skip


def user_form(person: User | None, instance_id: int) -> dict:
    """What the edit form holds for a person (a new person: the least there is)."""
    if person is None:
        return {
            "email": f"new.person.{next(NEW_PEOPLE)}@example.test", "firstname": "New", "lastname": "Person",
            "language": "en-GB", "active": "y",
        }  # fmt: skip
    membership = person.membership_in(instance_id)
    form = {
        "email": person.email, "firstname": person.firstname, "lastname": person.lastname,
        "language": "en-GB",
        "roles": list(membership.roles) if membership else [],
        "modules": list(membership.modules) if membership else [],
        "divisions": [d.id for d in person.divisions if d.instance_id == instance_id],
    }  # fmt: skip
    return form  # without the active flag: kept by the home company's administrator alone


def session_for(client, world: World, writer: Writer) -> str:
    token = sign_in(client, world.people[writer.person])
    if writer.acting_as:
        target = world.people[writer.acting_as]
        answer = client.post(f"/admin/core/users/{target.id}/act-as", data={"csrf_token": token})
        assert answer.status_code == 302, f"{writer.kind}: could not start acting"
        token = sign_in_token(client)
    return token


def sign_in_token(client) -> str:
    from tests.conftest import csrf_token

    return csrf_token(client, "/error")


def sweep(client, world: World, writer: Writer, too_much: dict | None = None) -> list[str]:
    """Every attempt of this writer beyond its reach; the ones that got through (or changed
    anything), described."""
    leaks = []
    token = session_for(client, world, writer)
    instance = world.b if writer.person == "customer_admin" else world.a
    me = world.people[writer.acting_as or writer.person]

    baseline = [database_state()]

    def attempt(label: str, method: str, path: str, data: dict | None = None) -> None:
        if method == "GET":
            answer = client.get(path)
            through = answer.status_code == 200
        else:
            answer = client.post(path, data={"csrf_token": token, **(data or {})})
            through = answer.status_code in (200, 302)
        db.session.expire_all()
        after = database_state()
        changed = after != baseline[0]
        baseline[0] = after
        if through or changed:
            leaks.append(f"{writer.kind}: {label} answered {answer.status_code}"
                         f"{' and changed the database' if changed else ''}")  # fmt: skip

    too_much = too_much or excess(world, writer)
    turn = [0]
    for path in writer.screens:
        fields = reach_screens()[path]
        for name in sorted(fields):
            for value in too_much[name]:
                if path == TOKENS:  # a new token with the value among its rights
                    attempt(f"{path} new token with {name}={value}", "POST", f"/admin/{path}/new",
                            ATTEMPTS[name](TOKEN_FORM, value))  # fmt: skip
                    continue
                if path == "core/groups":
                    if name != "roles":
                        continue
                    attempt(f"{path} new group with {value}", "POST", f"/admin/{path}/new",
                            {"name": "Wider", "roles": [value]})  # fmt: skip
                    continue
                # Each value on one of the writer's targets in turn: itself, people within its
                # reach, a new person (every target gets every field).
                targets = [("themselves", me), *((p, world.people[p]) for p in writer.within),
                           ("a new person", None)]  # fmt: skip
                who, person = targets[turn[0] % len(targets)]
                turn[0] += 1
                data = ATTEMPTS[name](user_form(person, instance.id), value)
                url = f"/admin/{path}/{person.id}/edit" if person else f"/admin/{path}/new"
                attempt(f"{path} {who} {name}={value}", "POST", url, data)
    for who in writer.beyond:
        person = world.people[who]
        base = f"/admin/core/users/{person.id}"
        attempt(f"open {who}'s form", "GET", f"{base}/edit")
        attempt(f"change {who}", "POST", f"{base}/edit",
                {**user_form(person, instance.id), "firstname": "Taken", "email": "x@evil.test"})  # fmt: skip
        attempt(f"deactivate {who}", "POST", f"{base}/delete")
        attempt(f"re-invite {who}", "POST", f"{base}/invite")
        attempt(f"act as {who}", "POST", f"{base}/act-as")
    return leaks


def _sweep_all(client) -> list[str]:
    world = build_world()
    leaks = []
    for writer in WRITERS:
        leaks += sweep(client, world, writer)
        client.get("/logout")
    return leaks


def test_every_reach_field_has_attempts_and_every_role_a_place():
    """A new screen with a reach field, or a new role, is not silently outside the sweep."""
    screens = reach_screens()
    assert set(screens) == {"core/users", "global/users", "core/groups", TOKENS}
    assert all(fields <= set(ATTEMPTS) for fields in screens.values())
    swept = {path for writer in WRITERS for path in writer.screens}
    assert swept | {"global/users"} == set(screens)  # global/users: only global admins write it
    placed = set(P.INSTANCE_ROLES) | set(R.PLATFORM_ROLES)
    assert every_role() - placed == set(), "a role the privilege model does not place"


@pytest.mark.parametrize("writer", WRITERS, ids=[w.kind for w in WRITERS])
def test_nobody_grants_beyond_their_ceiling_or_edits_beyond_their_reach(client, writer):
    world = build_world()
    assert excess(world, writer)["roles"], "every writer kind has something it may not grant"
    assert sweep(client, world, writer) == []


def test_the_sweep_finds_grants_when_the_ceiling_is_removed(client, monkeypatch):
    """The control: with every writer's ceiling lifted to everything, the sweep reports leaks."""
    world = build_world()
    everything = P.Reach(
        frozenset(P.INSTANCE_ROLES), frozenset(R.PLATFORM_ROLES), frozenset(MODULES), None, True,
        every_role=True,
    )  # fmt: skip
    too_much = excess(world, WRITERS[0])  # what the real ceiling withholds
    monkeypatch.setattr(P, "ceiling", lambda writer: everything)
    leaks = sweep(client, world, WRITERS[0], too_much)
    assert {"roles", "groups", "modules", "divisions"} <= {
        found.group(1) for leak in leaks if (found := re.search(r" (\w+)=\S+ answered", leak))
    }
    assert any("roles=ROLE_GLOBAL_" in leak for leak in leaks)  # the platform's, too


def test_a_customers_admin_changes_only_what_its_company_granted(client):
    """B's admin edits a person who also works in A: B's grant changes, the person's e-mail
    and A's grant do not (identity is kept by the home company)."""
    world = build_world()
    shared, b = world.people["shared"], world.b
    token = sign_in(client, world.people["customer_admin"])
    form = user_form(shared, b.id)
    answer = client.post(
        f"/admin/core/users/{shared.id}/edit",
        data={**form, "csrf_token": token, "email": "taken@evil.test", "roles": ["ROLE_USER",
              R.ROLE_CCMARKET_ADMIN]},
    )  # fmt: skip
    assert answer.status_code == 302
    db.session.expire_all()
    shared = db.session.get(User, shared.id)
    assert shared.email != "taken@evil.test"
    assert R.ROLE_CCMARKET_ADMIN in shared.membership_in(b.id).roles
    assert R.ROLE_CCMARKET_ADMIN not in shared.membership_in(world.a.id).roles


def test_a_token_within_the_makers_reach_is_made_so_the_sweep_refusals_are_real(client):
    """The token form the sweep posts is taken when it asks for no more than the maker holds:
    its refusals above are for the rights, not for a form that never passes."""
    world = build_world()
    token = sign_in(client, world.people["instance_admin"])
    within = {**TOKEN_FORM, "roles": ["ROLE_USER"], "modules": ["begcare"], "all_divisions": "y"}
    answer = client.post(f"/admin/{TOKENS}/new", data={"csrf_token": token, **within})
    assert answer.status_code == 200 and 'data-testid="api-token"' in answer.get_data(as_text=True)
    staff = sign_in(client, world.people["division_admin"])
    assert client.post(
        f"/admin/{TOKENS}/new", data={"csrf_token": staff, **within}
    ).status_code in (
        403,
        404,
    )
