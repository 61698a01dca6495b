"""Rights, generated from the admin menu data (app/shell/menu.py) so that a new screen cannot be
forgotten: every admin route answers 403 to a user lacking its role and 200 to one having it."""

import pytest

import app.preparation  # noqa: F401  (first: the menu's imports form a cycle otherwise)
from app.auth.models import MODULES
from app.auth.viewer import Snapshot, Viewer
from app.core import roles as R
from app.shell.menu import ADMIN_MENU
from tests.factories import make_instance, make_user
from tests.helpers import sign_in

ALL_ROLES = sorted(
    {
        "ROLE_USER",
        R.ROLE_ADMIN,
        R.ROLE_USER_DIVISION_ADMIN,
        *R.ALL_TENANT_ROLES,
        *R.ALL_GLOBAL_ROLES,
    }
)


class _User:
    modules = list(MODULES)
    is_global = False
    login_type = "default"


def _viewer(roles) -> Viewer:
    return Viewer(user=_User(), instance=None, snapshot=Snapshot(frozenset(roles)))


def _leaves(entries, trail=()):
    for entry in entries:
        if entry.children:
            yield from _leaves(entry.children, (*trail, entry))
        else:
            yield entry.path, (*trail, entry)


def _granting(trail) -> list[str]:
    """The single roles that open this entry (with every module)."""
    return [r for r in ALL_ROLES if all(e.rule(_viewer({"ROLE_USER", r})) for e in trail)]


ROUTES = [(path, _granting(trail)) for path, trail in _leaves(ADMIN_MENU)]


def test_every_admin_route_is_checked():
    assert len(ROUTES) > 50
    assert all(granting for _path, granting in ROUTES)


@pytest.mark.parametrize(("path", "granting"), ROUTES, ids=[p for p, _g in ROUTES])
def test_lacking_role_is_403_and_having_it_is_200(client, path, granting):
    instance = make_instance()
    role = next((r for r in granting if r != R.ROLE_ADMIN), granting[0])
    having = make_user(instance, roles=["ROLE_USER", role], modules=list(MODULES))
    lacking = make_user(
        instance, roles=[r for r in ALL_ROLES if r not in granting], modules=list(MODULES)
    )
    sign_in(client, lacking)
    assert client.get(path).status_code == 403, f"{path} without {granting}"
    sign_in(client, having)
    assert client.get(path).status_code == 200, f"{path} with {role}"
