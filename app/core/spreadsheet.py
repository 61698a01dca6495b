"""Cells of the files people open in a spreadsheet program (every CSV and XLSX export).

Text that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is what a spreadsheet
program reads as a formula (a vehicle named `=HYPERLINK(...)` becomes a live link, `=cmd|...`
worse): it is written as text, the OWASP rule for "CSV injection". In a CSV a leading
apostrophe marks it text (the program shows the value without it); in an XLSX the cell is a
string cell with the "quote prefix" style, which is what Excel stores when one types `'=...`,
so the program shows the exact text and keeps it text when the cell is edited. Numbers are
numbers, negative ones included: only text is ever changed.
"""

import csv
import io
from collections.abc import Iterable, Iterator
from decimal import Decimal

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
NUMBERS = int | float | Decimal


def formula_like(value) -> bool:
    """Whether `value` is text that a spreadsheet program would take for a formula."""
    return isinstance(value, str) and value.startswith(FORMULA_STARTS)


def csv_row(values: Iterable) -> list:
    """A CSV row's cells: formula-like text behind an apostrophe, the rest as it is."""
    return [f"'{v}" if formula_like(v) else v for v in values]


def xlsx_row(sheet, values: Iterable) -> list:
    """A write-only sheet's row (`sheet.append`): numbers stay numbers, anything else is
    text, and formula-like text is a quote-prefixed string cell, never a formula."""
    # lazy: openpyxl takes ~0.1 s to load; only XLSX files need it
    from openpyxl.cell import WriteOnlyCell

    row = []
    for value in values:
        if not isinstance(value, NUMBERS | str):
            value = str(value)
        if formula_like(value):
            cell = WriteOnlyCell(sheet, value=value)
            cell.data_type, cell.quotePrefix = "s", True
            value = cell
        row.append(value)
    return row


def csv_chunks(
    columns: Iterable[str], rows: Iterable[Iterable], delimiter: str = ";"
) -> Iterator[str]:
    """A CSV file as text chunks of about 64 KB, with a byte order mark first (spreadsheet
    programs then read UTF-8); every row through csv_row."""
    buffer = io.StringIO()
    buffer.write("\ufeff")
    writer = csv.writer(buffer, delimiter=delimiter)
    writer.writerow(csv_row(columns))
    for values in rows:
        writer.writerow(csv_row(values))
        if buffer.tell() > 64_000:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()
