"""A workbook made to make the import spin (a declared A1:XFD1048576 with a cell at its far
corner, a shared-strings bomb, a sheet that unpacks to far more than it weighs) or one beyond
the limits is refused on the form at once: 422 with the limit named, the module kept
(issue 28, finding 2). The workbooks are built here, small."""

import io
import re
import zipfile

import pytest
from openpyxl import Workbook

from tests.admin.test_import import setup_admin, upload
from tests.helpers import page_text, sign_in

SHEET = "xl/worksheets/sheet1.xml"
STRINGS = "xl/sharedStrings.xml"
TYPES = "[Content_Types].xml"


def _book(*rows) -> bytes:
    book = Workbook()
    for row in rows:
        book.active.append(row)
    data = io.BytesIO()
    book.save(data)
    return data.getvalue()


def _rezip(content: bytes, change: dict, add: dict | None = None) -> bytes:
    """The workbook with some parts' text changed (`change`: name → function of the text) and
    parts added (`add`: name → (head, one repeated piece, times, tail)), written in chunks."""
    source = zipfile.ZipFile(io.BytesIO(content))
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            text = source.read(info.filename).decode()
            target.writestr(info.filename, change.get(info.filename, lambda t: t)(text))
        for name, (head, piece, times, tail) in (add or {}).items():
            with target.open(name, "w") as part:
                part.write(head.encode())
                chunk = piece.encode() * 10_000
                for _ in range(times // 10_000):
                    part.write(chunk)
                part.write(tail.encode())
    return data.getvalue()


def far_corner(division: str) -> bytes:
    """4 KB: a normal sheet that declares A1:XFD1048576 and holds a cell at XFD1048576."""
    content = _book(["regno", "brand", "model", "division"], ["ABC123", "Volvo", "V60", division])
    return _rezip(
        content,
        {
            SHEET: lambda t: re.sub(r'<dimension ref="[^"]*"', '<dimension ref="A1:XFD1048576"', t)
            .replace("</sheetData>", '<row r="1048576"><c r="XFD1048576"><v>1</v></c></row></sheetData>')
        },
    )  # fmt: skip


def strings_bomb(division: str) -> bytes:
    """A table of 1.4 million shared texts (24 MB unpacked, a few KB packed), one used."""
    content = _book(["regno", "brand", "model", "division"], ["ABC123", "Volvo", "V60", division])
    return _rezip(
        content,
        {
            TYPES: lambda t: t.replace(
                "</Types>",
                '<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
                'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>',
            ),
            SHEET: lambda t: t.replace(
                "<v>V60</v>", '<v>0</v>'
            ),
        },
        {
            STRINGS: (
                '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">',
                "<si><t>V60</t></si>", 1_400_000, "</sst>",
            )
        },
    )  # fmt: skip


def sheet_bomb(division: str) -> bytes:
    """A sheet of 3.5 million rows of a cell each: 90 MB unpacked, well under 1 MB packed."""
    content = _book(["regno", "brand", "model", "division"], ["ABC123", "Volvo", "V60", division])
    return _rezip(
        content,
        {SHEET: lambda t: t.replace("</sheetData>", "").replace("</worksheet>", "")},
        {"xl/worksheets/sheet2.xml": ("<x>", "<row><c><v>1</v></c></row>", 3_500_000, "</x>")},
    )


def wide(division: str) -> bytes:
    """The header row's last cell in column XFD (16,384)."""
    header = ["regno", "brand", "model", "division"] + [None] * 16_379 + ["note"]
    return _book(header, ["ABC123", "Volvo", "V60", division])


def long_cell(division: str) -> bytes:
    return _book(
        ["regno", "brand", "model", "division"], ["ABC123", "Volvo", "V" * 5_000, division]
    )


@pytest.mark.parametrize(
    ("build", "refusal"),
    [
        (far_corner, "A file may hold at most 200,000 rows."),
        (strings_bomb, "each of its parts but the sheets to at most 16 MB"),
        (sheet_bomb, "An XLSX file may unpack to at most 64 MB"),
        (wide, "A row may hold at most 100 columns."),
        (long_cell, "A cell may hold at most 1,000 characters (row 2)."),
    ],
    ids=["far-corner", "strings-bomb", "sheet-bomb", "wide", "long-cell"],
)
def test_a_workbook_beyond_the_limits_is_refused_on_the_form(client, build, refusal):
    user, division = setup_admin()
    token = sign_in(client, user)
    content = build(division.name)
    assert len(content) < 1_000_000  # what is uploaded is small
    response = upload(client, token, content, "cars.xlsx", "newcare")
    assert response.status_code == 422
    assert refusal in page_text(response)
    assert re.search(
        r'<option[^>]*selected[^>]*value="newcare"|value="newcare"[^>]*selected',
        response.get_data(as_text=True),
    )


def test_a_csv_cell_beyond_the_limit_is_refused_with_its_row(client):
    user, division = setup_admin()
    token = sign_in(client, user)
    content = f"regno;brand;model;division\nABC123;Volvo;V60;{division.name}\nABC124;Volvo;{'V' * 200_000};x\n"
    response = upload(client, token, content.encode())
    assert response.status_code == 422
    assert "A cell may hold at most 1,000 characters (row 3)." in page_text(response)
    response = upload(client, token, b"regno;brand\n\x81\x8d;x\n")
    assert response.status_code == 422
    assert "The file is not text in UTF-8 or Windows-1252." in page_text(response)
