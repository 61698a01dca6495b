"""Every screen built on the shared mechanism, walked from its declaration: it lists, its form
opens, an empty form is refused with messages (never a 500, nothing saved), and a row of
another instance answers 404."""

from datetime import date
from decimal import Decimal

import pytest
from sqlalchemy import func, select

import app.admin.routes  # noqa: F401  (declares the screens)
import app.preparation  # noqa: F401  (first: the menu's imports form a cycle otherwise)
from app.admin.crud import SCREENS
from app.admin.models import Address, Tag
from app.auth.models import MODULES, Group
from app.auth.tokens import ApiToken
from app.automation.models import WebhookEndpoint
from app.core import roles as R
from app.core.audit import AuditLog
from app.core.models import Country, Division, InstanceScoped, Region
from app.core.settings import Holiday, SettingRow
from app.core.tenancy import activate
from app.dashboard.models import Goal
from app.extensions import db
from app.preparation.models import Location, StateButton, Station, StationGroup, StationPackage
from app.preparation.recon_models import ReconLimit
from app.purchase.models import Calculator, PurchaseDynamicField, PurchasePriority
from app.quicktest.models import Information, InformationGroup, Storage, StorageGroup
from tests.factories import make_instance, make_user
from tests.helpers import page_text, sign_in

ALL = ["ROLE_USER", R.ROLE_ADMIN, *R.ALL_TENANT_ROLES, *R.ALL_GLOBAL_ROLES]


def _row(screen):
    """A row of this screen's model, made in the active instance."""
    model = screen.model
    if model is SettingRow:
        return SettingRow(kind=screen.where[0].right.value, name="Other", data={})
    if model is Country:
        return Country(code="DK", name="Danmark", currency="DKK", locale="da-DK")
    if model is Region:
        return db.session.scalars(select(Region)).first()
    if model is Division:
        return db.session.scalars(select(Division)).first()
    if model is Location:  # a location of the screen's kind, in a division of the instance
        division = db.session.scalars(select(Division)).first()
        kind = screen.where[1].right.value
        return Location(module=screen.module, kind=kind, name="Other", division_id=division.id)
    if model is ReconLimit:  # the whole instance's approval limit of the screen's module
        return ReconLimit(module=screen.module, amount=Decimal(10000))
    if screen.module in ("begcare", "newcare"):
        values = {
            StateButton: {"from_state": 1, "to_state": 2, "title": "Other"},
            StationGroup: {"name": "Other"},
            Station: {"name": "Other", "target_minutes": 30},
            StationPackage: {"name": "Other"},
        }[model]
        return model(module=screen.module, **values)
    return {
        Group: lambda: Group(name="Other", roles=[]),
        Tag: lambda: Tag(name="Other"),
        Holiday: lambda: Holiday(name="Other", day=date(2026, 12, 24)),
        Address: lambda: Address(name="Other"),
        WebhookEndpoint: lambda: WebhookEndpoint(name="Other", url="https://x.example.test/"),
        ApiToken: lambda: ApiToken(name="Other", token_hash="x" * 64, token_hint="dc_x", scopes=[]),
        InformationGroup: lambda: InformationGroup(title="Other", ordering=0),
        Storage: lambda: Storage(title="Other"),
        StorageGroup: lambda: StorageGroup(title="Other", ordering=0),
        Information: lambda: Information(title="Other", type="text", choices=[], ordering=0),
        PurchasePriority: lambda: PurchasePriority(name="Other", ordering=0),
        PurchaseDynamicField: lambda: PurchaseDynamicField(
            title="Other", section="S", field_type="text"
        ),
        Calculator: lambda: Calculator(
            title="Other", rows=[], preset_description="", preset_percent=0
        ),
        Goal: lambda: Goal(name="sold", goal_name="Other", goal_value=1, module="begcare"),
    }[model]()


SCOPED = sorted(p for p, s in SCREENS.items() if issubclass(s.model, InstanceScoped))


def _urls(screen) -> tuple[str, str]:
    """The screen's list and the base of its rows' pages (for a screen with a parent, those of
    a parent row made in the active instance)."""
    if screen.parent is None:
        return screen.url, screen.url
    parent = _row(screen.parent)
    db.session.add(parent)
    db.session.flush()
    return screen.list_url(parent.id), screen.base_url(parent.id)


@pytest.mark.parametrize("path", sorted(SCREENS))
def test_screen_lists_and_refuses_an_empty_form(client, path):
    screen = SCREENS[path]
    instance = make_instance()
    admin = make_user(instance, roles=ALL, modules=list(MODULES), all_divisions=True)
    token = sign_in(client, admin)
    activate(instance.id)
    list_url, base_url = _urls(screen)
    activate(None)
    assert client.get(list_url).status_code == 200
    assert client.get(f"{list_url}?q=zz&page=abc").status_code == 200
    if not screen.can_create or not screen.write(_viewer_for(client)):
        return
    assert client.get(f"{base_url}/new").status_code == 200
    before = db.session.scalar(select(func.count()).select_from(screen.model))
    response = client.post(f"{base_url}/new", data={"csrf_token": token})
    assert response.status_code == 422, path
    assert 'class="field-error"' in page_text(response)
    assert db.session.scalar(select(func.count()).select_from(screen.model)) == before


def _viewer_for(client):
    class Everything:
        def has(self, role):
            return True

        is_division_admin = True

    return Everything()


@pytest.mark.parametrize("path", SCOPED)
def test_another_instances_row_is_404(client, path):
    screen = SCREENS[path]
    other = make_instance()
    activate(other.id)
    _list_url, base_url = _urls(screen)
    row = _row(screen)
    if screen.parent is not None:
        setattr(row, screen.parent_key, int(base_url.split("/")[-2]))
    db.session.add(row)
    db.session.flush()
    row_id = row.id
    activate(None)
    admin = make_user(make_instance(), roles=ALL, modules=list(MODULES), all_divisions=True)
    sign_in(client, admin)
    for op in ("edit", "delete", "history"):
        assert client.get(f"{base_url}/{row_id}/{op}").status_code == 404, (path, op)


def test_logs_show_changes_and_impersonation_and_are_searchable(client):
    admin = make_user(make_instance(), roles=ALL, modules=list(MODULES), all_divisions=True)
    token = sign_in(client, admin)
    client.post(
        "/admin/general/tags/new", data={"csrf_token": token, "name": "Export", "color": "#112233"}
    )
    db.session.add(
        AuditLog(action="impersonation_start", user_id=admin.id, instance_id=admin.active_instance_id,
                 details={"target": "x@example.test"})
    )  # fmt: skip
    db.session.flush()
    text = page_text(client.get("/admin/begcare/logs"))
    assert "admin:general/tags:" in text and "impersonation_start" in text
    found = page_text(client.get("/admin/begcare/logs?q=impersonation"))
    assert "impersonation_start" in found and "admin:general/tags" not in found
    other = make_user(make_instance(), roles=ALL, modules=list(MODULES))
    sign_in(client, other)
    assert "admin:general/tags" not in page_text(client.get("/admin/begcare/logs"))


SETTING_PATHS = sorted(p for p, s in SCREENS.items() if s.model is SettingRow)


@pytest.mark.parametrize("path", SETTING_PATHS)
def test_a_settings_edit_page_shows_what_is_stored(client, path):
    """Editing a stored setting starts from its name, description and active state (the form
    once came up empty: saving it unchanged would have cleared the name)."""
    screen = SCREENS[path]
    instance = make_instance()
    admin = make_user(instance, roles=ALL, modules=list(MODULES), all_divisions=True)
    sign_in(client, admin)
    activate(instance.id)
    row = _row(screen)
    row.description, row.active = "Kept as entered", False
    db.session.add(row)
    db.session.flush()
    row_id = row.id
    activate(None)
    text = page_text(client.get(f"{screen.url}/{row_id}/edit"))
    assert 'value="Other"' in text, path
    assert "Kept as entered" in text, path
    assert 'name="active"' in text and 'name="active" checked' not in text, path
