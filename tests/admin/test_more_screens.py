"""Configuration, API users, the template engine, reports and the impersonation gaps."""

import csv
import io
from datetime import date, timedelta

from sqlalchemy import select

import app.preparation  # noqa: F401  (first: the menu's imports form a cycle otherwise)
from app.auth.tokens import ApiToken, hash_token, token_for
from app.core import roles as R
from app.core.audit import AuditLog
from app.core.models import Division, Instance
from app.core.settings import SettingRow
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import PreparationItem
from app.preparation.services import add_item
from tests.factories import make_instance, make_user
from tests.helpers import page_text, sign_in

ADMIN = ["ROLE_USER", R.ROLE_ADMIN, *R.ALL_TENANT_ROLES]


def test_configuration_switches_my_events_and_module_options(client):
    admin = make_user(make_instance(), roles=ADMIN, modules=["begcare"])
    token = sign_in(client, admin)
    assert client.get("/my-events").status_code == 404
    page = page_text(client.get("/admin/general/configuration"))
    assert "My events" in page and "Measure to delivered" in page
    data = {"csrf_token": token, "configuration__enable_my_events": "y", "begcare__soldFlow": "y"}
    assert client.post("/admin/general/configuration", data=data).status_code == 302
    assert client.get("/my-events").status_code == 200  # read where the product reads it
    instance = db.session.get(Instance, admin.active_instance_id)
    db.session.refresh(instance)
    assert instance.module_option("begcare", "leads") is False
    assert instance.module_option("begcare", "soldFlow") is True
    menu = page_text(client.get("/begcare/items/incoming"))
    assert "/begcare/items/leads" not in menu  # leads switched off: no menu entry
    entry = db.session.scalars(
        select(AuditLog).where(AuditLog.action.like("admin:general/configuration:%"))
    ).one()
    assert entry.details["before"]["configuration__enable_my_events"] is False
    assert entry.details["after"]["configuration__enable_my_events"] is True


def test_configuration_reader_cannot_change(client):
    reader = make_user(make_instance(), roles=["ROLE_USER", R.tenant_read("CONFIGURATION")])
    token = sign_in(client, reader)
    assert client.get("/admin/general/configuration").status_code == 200
    response = client.post(
        "/admin/general/configuration",
        data={"csrf_token": token, "configuration__enable_my_events": "y"},
    )
    assert response.status_code == 403


def test_api_user_token_is_shown_once_stored_hashed_and_revocable(client):
    admin = make_user(make_instance(), roles=ADMIN)
    token = sign_in(client, admin)
    response = client.post(
        "/admin/core/core-api-users/new",
        data={"csrf_token": token, "name": "Website", "scopes": ["vehicles:read"],
              "expires_on": (date.today() + timedelta(days=30)).isoformat()},
    )  # fmt: skip
    assert response.status_code == 200
    text = page_text(response)
    assert "shown only this once" in text
    secret = text.split('data-testid="api-token"')[0].rsplit('value="', 1)[1].split('"', 1)[0]
    assert secret.startswith("dc_")
    row = db.session.scalars(select(ApiToken)).one()
    assert row.token_hash == hash_token(secret) and secret not in str(row.__dict__)
    assert token_for(secret).id == row.id and row.scopes == ["vehicles:read"]
    listing = page_text(client.get("/admin/core/core-api-users"))
    assert secret not in listing and row.token_hint in listing
    client.post(f"/admin/core/core-api-users/{row.id}/delete", data={"csrf_token": token})
    db.session.expire_all()
    assert token_for(secret) is None


def test_template_preview_is_sanitised_and_one_per_language(client):
    admin = make_user(make_instance(), roles=ADMIN)
    token = sign_in(client, admin)
    data = {
        "csrf_token": token, "template": "admin_invite", "language": "sv-SE",
        "subject": "Välkommen", "active": "y",
        "body": "<p>Hej {user_name}</p><script>alert(1)</script><p>{reset_url}</p>",
    }  # fmt: skip
    assert client.post("/admin/general/template-engine/new", data=data).status_code == 302
    again = client.post("/admin/general/template-engine/new", data=data)
    assert again.status_code == 422
    assert "already has a text in this language" in page_text(again)
    row_id = db.session.scalars(
        select(SettingRow.id).where(SettingRow.kind == "email_template")
    ).one()
    preview = page_text(client.get(f"/admin/general/template-engine/{row_id}/preview"))
    assert "Hej Anna Berg" in preview and "alert(1)" not in preview
    assert 'href="https://example.test/reset-password/…"' in preview


def test_reports_export_the_period_as_csv_and_xlsx(client):
    instance = make_instance()
    admin = make_user(instance, roles=ADMIN, all_divisions=True)
    activate(instance.id)
    division = db.session.scalars(select(Division)).first()
    add_item(
        PreparationItem(
            instance_id=instance.id, module="begcare", division_id=division.id, state=2,
            regno="ABC123", brand="Volvo", model="V60",
        )
    )  # fmt: skip
    activate(None)
    sign_in(client, admin)
    today = date.today().isoformat()
    response = client.get(
        f"/admin/general/reports?report=vehicles&start={today}&end={today}&format=csv"
    )
    rows = list(
        csv.reader(io.StringIO(response.get_data(as_text=True).lstrip("\ufeff")), delimiter=";")
    )
    assert rows[0][:3] == ["id", "module", "regno"] and rows[1][2] == "ABC123"
    xlsx = client.get(
        f"/admin/general/reports?report=vehicles&start={today}&end={today}&format=xlsx"
    )
    assert xlsx.data[:2] == b"PK"
    bad = client.get(
        f"/admin/general/reports?report=vehicles&start={today}&end=2000-01-01&format=csv"
    )
    assert bad.status_code == 422 and "must not be before" in page_text(bad)


def test_impersonator_without_manager_admin_gets_the_act_as_selector(client):
    instance = make_instance()
    impersonator = make_user(instance, roles=["ROLE_USER", R.IS_IMPERSONATOR])
    sign_in(client, impersonator)
    assert "data-top-selector" in page_text(client.get("/user"))
    assert client.get("/api/users/detailed-list").status_code == 200


def test_global_user_admin_finds_users_of_every_instance(client):
    first, second = make_instance(), make_instance()
    stranger = make_user(second, email="stranger@example.test")
    global_admin = make_user(first, roles=["ROLE_USER", R.IS_IMPERSONATOR, R.global_read("USER")])
    local = make_user(first, roles=["ROLE_USER", R.IS_IMPERSONATOR])
    sign_in(client, global_admin)
    listed = client.get("/api/users/detailed-list").json["hydra:member"]
    assert stranger.id not in {u["id"] for u in listed}  # the list: the active instance
    found = client.get("/api/users/detailed-list?search=stranger").json["hydra:member"]
    assert stranger.id in {u["id"] for u in found}  # a search: every instance
    sign_in(client, local)
    found = client.get("/api/users/detailed-list?search=stranger").json["hydra:member"]
    assert stranger.id not in {u["id"] for u in found}


def test_global_user_admin_searches_every_instance_and_acts_as_a_user(client):
    first, second = make_instance(), make_instance()
    stranger = make_user(second, firstname="Petra", lastname="Fjord")
    global_admin = make_user(
        first,
        roles=["ROLE_USER", R.ROLE_ADMIN, R.IS_IMPERSONATOR, R.global_read("USER")],
    )
    token = sign_in(client, global_admin)
    found = page_text(client.get("/admin/global/users?q=petra"))
    assert stranger.email in found and f"/admin/global/users/{stranger.id}/act-as" in found
    api = client.get("/api/users/detailed-list?search=fjord").json["hydra:member"]
    assert [u["id"] for u in api] == [stranger.id]
    response = client.post(f"/admin/global/users/{stranger.id}/act-as", data={"csrf_token": token})
    assert response.status_code == 302
    assert "You are acting as Petra Fjord" in page_text(client.get("/user"))
    local = make_user(first, roles=["ROLE_USER", R.ROLE_ADMIN, R.IS_IMPERSONATOR])
    token = sign_in(client, local)
    assert client.get(f"/admin/core/users/{stranger.id}/edit").status_code == 404
    assert (
        client.post(
            f"/admin/core/users/{stranger.id}/act-as", data={"csrf_token": token}
        ).status_code
        == 404
    )


def test_an_active_template_replaces_the_invite_mail_in_its_language(client):
    from app.mail.models import EmailMessage

    admin = make_user(make_instance(), roles=ADMIN, all_divisions=True)
    token = sign_in(client, admin)
    client.post(
        "/admin/general/template-engine/new",
        data={"csrf_token": token, "template": "admin_invite", "language": "sv-SE",
              "subject": "Välkommen till {company}", "active": "y",
              "body": "<p>Hej {user_name}!</p><p>Välj lösenord:</p><p>{reset_url}</p>"},
    )  # fmt: skip
    for email, language in (("sv@example.test", "sv-SE"), ("en@example.test", "en-GB")):
        client.post(
            "/admin/core/users/new",
            data={"csrf_token": token, "email": email, "firstname": "Nils", "lastname": "Holm",
                  "language": language, "active": "y"},
        )  # fmt: skip
    swedish = db.session.scalars(
        select(EmailMessage).where(EmailMessage.to_address == "sv@example.test")
    ).one()
    instance = db.session.get(Instance, admin.active_instance_id)
    assert swedish.subject == f"Välkommen till {instance.company_name}"
    assert "Hej Nils Holm!" in swedish.body_html and "/reset-password/" in swedish.body_html
    assert "Välj lösenord:\nhttp" in swedish.body_text
    english = db.session.scalars(
        select(EmailMessage).where(EmailMessage.to_address == "en@example.test")
    ).one()
    assert "Välkommen" not in english.subject  # no English text: the product's own


def test_a_large_report_is_written_by_a_job_with_progress_and_a_download(client, monkeypatch):
    from app.admin import reports

    monkeypatch.setattr(reports, "JOB_THRESHOLD", 0)
    instance = make_instance()
    admin = make_user(instance, roles=ADMIN, all_divisions=True)
    activate(instance.id)
    division = db.session.scalars(select(Division)).first()
    for regno in ("ABC123", "ABC124"):
        add_item(
            PreparationItem(
                instance_id=instance.id, module="begcare", division_id=division.id, state=2,
                regno=regno, brand="Volvo", model="V60",
            )
        )  # fmt: skip
    activate(None)
    sign_in(client, admin)
    today = date.today().isoformat()
    response = client.get(
        f"/admin/general/reports?report=vehicles&start={today}&end={today}&format=csv"
    )
    assert response.status_code == 302
    run_url = response.headers["Location"]
    assert client.get(f"{run_url}?progress=1").json == {
        "status": "done", "total": 2, "processed": 2, "percent": 100
    }  # fmt: skip
    assert "The file is ready." in page_text(client.get(run_url))
    rows = client.get(f"{run_url}/download").get_data(as_text=True).lstrip("\ufeff").splitlines()
    assert len(rows) == 3 and "ABC124" in rows[2]
    other = make_user(instance, roles=ADMIN)
    sign_in(client, other)
    assert client.get(f"{run_url}/download").status_code == 404  # someone else's export
