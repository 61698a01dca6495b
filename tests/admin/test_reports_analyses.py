"""Reports: the purchase analyses export (issue 31 item 5), CSV and XLSX, of the viewer's
instance and only the divisions the viewer may see."""

import csv
import io
from datetime import date, timedelta

from openpyxl import load_workbook
from sqlalchemy import select

from app.admin.models import ExportRun
from app.admin.reports import run_export
from app.core import roles as R
from app.core.models import Division
from app.core.tenancy import activate
from app.extensions import db
from app.purchase.models import PurchaseAnalysis
from tests.factories import make_instance, make_user
from tests.helpers import sign_in
from tests.shell.conftest import demo_user

ADMIN = ["ROLE_USER", R.ROLE_ADMIN, *R.ALL_TENANT_ROLES]
TOMORROW = (date.today() + timedelta(days=1)).isoformat()
URL = f"/admin/general/reports?report=analyses&start=2000-01-01&end={TOMORROW}"


def _csv(response) -> list[list[str]]:
    text = response.get_data(as_text=True).lstrip("\ufeff")
    return list(csv.reader(io.StringIO(text), delimiter=";"))


def _stranger_analysis() -> str:
    """An analysis in another instance, made in the same period."""
    other = make_instance()
    activate(other.id)
    division = db.session.scalars(select(Division)).first()
    db.session.add(PurchaseAnalysis(
        instance_id=other.id, identifier="STRANGER-1", division_id=division.id, regno="XXX999",
        brand="Saab", model="9-3", valuation={"priceAvg": 1},
    ))  # fmt: skip
    db.session.commit()
    activate(None)
    return "STRANGER-1"


def test_analyses_export_has_the_instances_analyses_as_csv_and_xlsx(demo_app, demo_client):
    stranger = _stranger_analysis()
    admin = demo_user("admin@demo.test")
    activate(admin.active_instance_id)
    analyses = db.session.scalars(select(PurchaseAnalysis).order_by(PurchaseAnalysis.id)).all()
    expected = {a.identifier: a for a in analyses}
    activate(None)
    assert len(expected) >= 2
    sign_in(demo_client, admin)
    rows = _csv(demo_client.get(f"{URL}&format=csv&lang=en-GB"))
    header = rows[0]
    assert header[:8] == ["Identifier", "Created", "Division", "Brand", "Model", "Model year",
                          "Registration number", "Mileage (km)"]  # fmt: skip
    assert {"Status", "Created by", "Average valuation", "Valuation source",
            "Latest price in", "Expected reconditioning"} <= set(header)  # fmt: skip
    by_id = {row[0]: dict(zip(header, row, strict=True)) for row in rows[1:]}
    assert set(by_id) == set(expected) and stranger not in by_id
    for identifier, analysis in expected.items():
        row = by_id[identifier]
        assert row["Registration number"] == analysis.regno
        assert row["Brand"] == analysis.brand and row["Division"] == analysis.division.name
        average = (analysis.valuation or {}).get("priceAvg")
        assert row["Average valuation"] == ("" if average is None else str(int(average)))
        assert row["Valuation source"] == (analysis.valuation or {}).get("source", "")
        if analysis.valuations:
            assert row["Latest price in"] == str(int(analysis.valuations[-1].price_in))
    swedish = _csv(demo_client.get(f"{URL}&format=csv&lang=sv-SE"))
    assert swedish[0][0] != "Identifier" and len(swedish) == len(rows)

    xlsx = demo_client.get(f"{URL}&format=xlsx&lang=en-GB")
    sheet = load_workbook(io.BytesIO(xlsx.data)).active
    cells = [list(r) for r in sheet.iter_rows(values_only=True)]
    assert list(cells[0]) == header
    column = header.index("Average valuation")
    numbers = [r[column] for r in cells[1:] if r[column] is not None]
    assert numbers and all(isinstance(n, int | float) for n in numbers)
    assert {r[0] for r in cells[1:]} == set(expected)


def test_division_admin_gets_only_their_divisions_analyses(demo_app, demo_client):
    admin = demo_user("admin@demo.test")
    activate(admin.active_instance_id)
    analyses = db.session.scalars(select(PurchaseAnalysis)).all()
    division = analyses[0].division

    narrow = make_user(admin.active_instance, roles=ADMIN, divisions=[division])
    db.session.commit()
    mine = {a.identifier for a in analyses if a.division_id == division.id}
    others = {a.identifier for a in analyses} - mine
    activate(None)
    assert others, "the demo has analyses in more than one division"
    sign_in(demo_client, narrow)
    rows = _csv(demo_client.get(f"{URL}&format=csv&lang=en-GB"))
    assert {row[0] for row in rows[1:]} == mine


def test_a_large_export_job_keeps_to_the_runs_users_divisions(demo_app):
    admin = demo_user("admin@demo.test")
    activate(admin.active_instance_id)
    analyses = db.session.scalars(select(PurchaseAnalysis)).all()
    division = analyses[0].division
    narrow = make_user(admin.active_instance, roles=ADMIN, divisions=[division])
    run = ExportRun(
        instance_id=admin.active_instance_id, user_id=narrow.id, report="analyses",
        start=date(2000, 1, 1), end=date.today(), format="csv", language="en-GB",
    )  # fmt: skip
    db.session.add(run)
    db.session.commit()
    mine = {a.identifier for a in analyses if a.division_id == division.id}
    activate(None)
    run_export(run.id)
    done = db.session.scalars(
        select(ExportRun).where(ExportRun.id == run.id).execution_options(all_instances=True)
    ).one()
    rows = list(csv.reader(io.StringIO(done.content.decode().lstrip("\ufeff")), delimiter=";"))
    assert done.status == "done" and rows[0][0] == "Identifier"
    assert {row[0] for row in rows[1:]} == mine
