"""The vehicle import: read a CSV or XLSX file, check every row with the add-vehicle rules of
app/preparation (regno and VIN formats, required brand and model, one live vehicle per regno and
VIN), then insert the new rows in bulk as a job whose progress is stored on the ImportRun row.

Importing the same file twice changes nothing: a row whose regno or VIN is already on a live
vehicle of the instance counts as unchanged. The per-state counters (item_state_count) are
rebuilt once at the end with app.preparation.services.recount.
"""

import csv
import io
import re
import zipfile
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from flask_babel import force_locale, format_decimal
from flask_babel import gettext as _
from sqlalchemy import insert, select

from app.admin.models import ImportRun
from app.auth.models import User
from app.core import audit
from app.core.i18n import babel_name
from app.core.models import Country, Division, Region, utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.items import normalise_regno, normalise_vin, regno_error, vin_error
from app.preparation.models import ItemStateEvent, PreparationItem
from app.preparation.services import _bump, bump_counts_version
from app.preparation.states import STATES

ARCHIVED = 9
DEFAULT_STATE = 2  # incoming, as a vehicle added by hand
CHUNK = 1000
# The limits of a file, each named in its refusal (422 on the form). A file is read as a stream
# and refused at the first row, cell or part beyond them, so even a workbook that declares
# A1:XFD1048576 or unpacks to gigabytes is answered at once (docs/decisions.md, issue 28).
MAX_ROWS = 200_000  # rows after the header, empty ones included
MAX_COLUMNS = 100
MAX_CELL = 1_000  # characters; the longest value kept is 80
MAX_UNPACKED_MB = 64  # an XLSX file's parts together, unpacked
MAX_PART_MB = 16  # any part but the sheets (shared texts, styles ...): read whole, not streamed
MAX_ERRORS_KEPT = 500
# Column names the file may use (lower case, spaces and dashes as underscores).
ALIASES = {
    "regno": "regno", "registration": "regno", "registration_number": "regno", "regnr": "regno",
    "reg_no": "regno", "vin": "vin", "chassis": "vin", "brand": "brand", "make": "brand",
    "marke": "brand", "märke": "brand", "model": "model", "modell": "model",
    "model_series": "model_series", "series": "model_series", "model_year": "model_year",
    "year": "model_year", "arsmodell": "model_year", "årsmodell": "model_year",
    "fuel_type": "fuel_type", "fuel": "fuel_type", "color": "color", "colour": "color",
    "mileage": "mileage", "miltal": "mileage", "state": "state", "status": "state",
    "division": "division", "purchase_price": "purchase_price", "sales_price": "sales_price",
    "price": "sales_price",
}  # fmt: skip
NUMBER = re.compile(r"[\s\u00a0]")


class FileRefused(ValueError):
    """The file as a whole cannot be read (translated message)."""


@dataclass
class Checked:
    """The outcome of checking every row of a file."""

    total: int = 0
    new: list[dict] = field(default_factory=list)
    unchanged: int = 0
    errors: list[dict] = field(default_factory=list)  # {"row": n, "messages": [...]}
    failed: int = 0


# --- reading ---------------------------------------------------------------------------------


def _header(name) -> str | None:
    key = re.sub(r"[\s\-]+", "_", str(name or "").strip().lower())
    return ALIASES.get(key)


def read_rows(filename: str, content: bytes) -> list[dict]:
    """The file's rows as dicts keyed by our column names; FileRefused when unreadable."""
    if filename.lower().endswith(".xlsx"):
        raw_rows = _xlsx_rows(content)
    elif filename.lower().endswith((".csv", ".txt")):
        raw_rows = _csv_rows(content)
    else:
        raise FileRefused(_("Choose a CSV or XLSX file."))
    try:
        header = next(raw_rows)
    except StopIteration:
        raise FileRefused(_("The file is empty.")) from None
    columns = [_header(h) for h in _checked(header, 1)]
    if "regno" not in columns and "vin" not in columns:
        raise FileRefused(_("The file needs a column regno or vin in its first row."))
    rows = []
    for number, raw in enumerate(raw_rows, start=2):
        if number > MAX_ROWS + 1:
            raise FileRefused(
                _("A file may hold at most %(max)s rows.", max=format_decimal(MAX_ROWS))
            )
        values = [("" if v is None else str(v).strip()) for v in _checked(raw, number)]
        if any(values):
            rows.append({c: v for c, v in zip(columns, values, strict=False) if c})
    return rows


def _checked(raw: list, number: int) -> list:
    """The row itself, or FileRefused when it is wider or holds a longer cell than allowed."""
    if len(raw) > MAX_COLUMNS:
        raise FileRefused(_("A row may hold at most %(max)s columns.", max=MAX_COLUMNS))
    if any(len(str(v)) > MAX_CELL for v in raw if v is not None):
        raise FileRefused(_cell_too_long(number))
    return raw


def _cell_too_long(number: int) -> str:
    return _(
        "A cell may hold at most %(max)s characters (row %(row)s).",
        max=format_decimal(MAX_CELL),
        row=number,
    )


def _csv_rows(content: bytes):
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            text = content.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        raise FileRefused(_("The file is not text in UTF-8 or Windows-1252."))
    sample = text[:4096]
    delimiter = ";" if sample.count(";") > sample.count(",") else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        yield from reader
    except csv.Error:  # a field beyond the csv module's own limit (128 KB)
        raise FileRefused(_cell_too_long(reader.line_num)) from None


def _xlsx_rows(content: bytes):
    """The first sheet's rows, streamed: the zip's unpacked sizes are checked before anything
    is parsed, the sheet's declared dimension is not believed (openpyxl's read-only sheet pads
    every row to it), and each row is only as wide as its last cell, checked by read_rows
    before the next row is read."""
    # lazy: openpyxl takes ~0.1 s to load; only a workbook upload needs it
    from openpyxl import load_workbook

    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
        parts = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        raise FileRefused(_("The file is not a readable XLSX workbook.")) from None
    total = sum(part.file_size for part in parts)
    whole = (p for p in parts if not p.filename.startswith("xl/worksheets/"))
    if total > MAX_UNPACKED_MB << 20 or any(p.file_size > MAX_PART_MB << 20 for p in whole):
        raise FileRefused(
            _(
                "An XLSX file may unpack to at most %(total)s MB, and each of its parts but the "
                "sheets to at most %(part)s MB.",
                total=MAX_UNPACKED_MB,
                part=MAX_PART_MB,
            )
        )
    try:
        book = load_workbook(io.BytesIO(content), read_only=True, data_only=True)
        sheet = book.active
        sheet.reset_dimensions()
    except Exception:  # openpyxl raises many kinds for a file that is not a workbook
        raise FileRefused(_("The file is not a readable XLSX workbook.")) from None
    try:
        for row in sheet.iter_rows(values_only=True):
            yield [_cell(v) for v in row]
    except Exception:  # a broken part found while streaming
        raise FileRefused(_("The file is not a readable XLSX workbook.")) from None
    finally:
        book.close()


def _cell(value):
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# --- checking --------------------------------------------------------------------------------


def _divisions() -> dict[str, tuple[int, str | None]]:
    """Division name, slug and id (lower case) → (id, country code), of the active instance."""
    rows = db.session.execute(
        select(Division.id, Division.name, Division.slug, Country.code)
        .join(Region, Division.region_id == Region.id)
        .join(Country, Region.country_id == Country.id)
    ).all()
    found = {}
    for division_id, name, slug, code in rows:
        for key in (name.lower(), slug.lower(), str(division_id)):
            found[key] = (division_id, code)
    return found


def _states() -> dict[str, int]:
    found = {}
    for s in STATES:
        for key in (str(s.id), s.key, s.segment, str(s.title).lower()):
            found[key.lower()] = s.id
    return found


def _live_numbers(module: str) -> tuple[set[str], set[str]]:
    rows = db.session.execute(
        select(PreparationItem.regno, PreparationItem.vin).where(PreparationItem.state != ARCHIVED)
    ).all()
    return {r for r, _v in rows}, {v for _r, v in rows if v}


def _int(value: str, low: int, high: int) -> int | None:
    cleaned = NUMBER.sub("", value)
    if not re.fullmatch(r"\d+", cleaned) or not low <= int(cleaned) <= high:
        raise ValueError
    return int(cleaned)


def _money(value: str) -> Decimal:
    cleaned = NUMBER.sub("", value).replace(",", ".")
    try:
        amount = Decimal(cleaned)
    except InvalidOperation:
        raise ValueError from None
    if amount < 0 or amount >= Decimal("1e10"):
        raise ValueError
    return amount.quantize(Decimal("0.01"))


def check_rows(rows: list[dict], module: str) -> Checked:
    """Check every row with the add-vehicle rules; the new ones keep their insert values."""
    divisions, states = _divisions(), _states()
    regnos, vins = _live_numbers(module)
    seen_regnos: set[str] = set()
    seen_vins: set[str] = set()
    result = Checked(total=len(rows))
    for number, row in enumerate(rows, start=2):  # row 1 is the header
        messages = []
        regno = normalise_regno(row.get("regno"))
        vin = normalise_vin(row.get("vin")) or None
        division_raw = (row.get("division") or "").strip().lower()
        division = divisions.get(division_raw)
        if division is None:
            messages.append(
                _(
                    "Division %(name)s is not one of the instance's divisions.",
                    name=row.get("division") or "–",
                )
                if division_raw
                else _("Enter the division.")
            )
        elif message := regno_error(regno, division[1]):
            messages.append(message)
        if vin and (message := vin_error(vin)):
            messages.append(message)
        if ((regno and regno in regnos) or (vin and vin in vins)) and not messages:
            result.unchanged += 1
            continue
        if regno and regno in seen_regnos:
            messages.append(_("%(value)s appears more than once in the file.", value=regno))
        if vin and vin in seen_vins:
            messages.append(_("%(value)s appears more than once in the file.", value=vin))
        brand = " ".join((row.get("brand") or "").split())
        model = " ".join((row.get("model") or "").split())
        if not brand:
            messages.append(_("Enter the brand."))
        if not model:
            messages.append(_("Enter the model."))
        state_raw = (row.get("state") or "").strip().lower()
        state = states.get(state_raw, None) if state_raw else DEFAULT_STATE
        if state is None:
            messages.append(_("State %(state)s is unknown.", state=row.get("state")))
        values = {}
        for name, parse, label in (
            ("model_year", lambda v: _int(v, 1900, 2100), _("Model year")),
            ("mileage", lambda v: _int(v, 0, 9_999_999), _("Mileage")),
            ("purchase_price", _money, _("Purchase price")),
            ("sales_price", _money, _("Sales price")),
        ):
            raw = (row.get(name) or "").strip()
            if not raw:
                continue
            try:
                values[name] = parse(raw)
            except ValueError:
                messages.append(
                    _("%(field)s: %(value)s is not a valid number.", field=label, value=raw)
                )
        if messages:
            result.failed += 1
            if len(result.errors) < MAX_ERRORS_KEPT:
                result.errors.append({"row": number, "regno": regno, "messages": messages})
            continue
        seen_regnos.add(regno)
        if vin:
            seen_vins.add(vin)
        result.new.append(
            {
                "module": module, "division_id": division[0], "state": state, "regno": regno,
                "vin": vin, "brand": brand[:60], "model": model[:80],
                "model_series": (row.get("model_series") or None) and row["model_series"][:80],
                "fuel_type": (row.get("fuel_type") or None) and row["fuel_type"][:30],
                "color": (row.get("color") or None) and row["color"][:40],
                "warning": False, **values,
            }
        )  # fmt: skip
    return result


# --- the job ---------------------------------------------------------------------------------


def run_to_work_on(model, run_id: int):
    """The import or export run (`model`) a job is to work on, its instance made the active one;
    None when it is gone or already finished (a job run twice does nothing the second time)."""
    run = db.session.scalars(
        select(model).where(model.id == run_id).execution_options(all_instances=True)
    ).first()
    if run is None or run.status not in ("queued", "running"):
        return None
    activate(run.instance_id)
    return run


@contextmanager
def failing_run(model, run_id: int):
    """Around a run's work: on an error, what it did since its last commit is rolled back,
    the run is marked failed and the error goes on."""
    try:
        yield
    except Exception:
        db.session.rollback()
        run = db.session.get(model, run_id)
        run.status, run.finished_at = "failed", utcnow()
        db.session.commit()
        raise


def run_import(run_id: int) -> str:
    """Job: import a previewed file; progress is committed after every chunk.

    Idempotent: a run found "running" was cut off (its worker died) and is resumed. The rows
    its committed chunks created are now on live vehicles, so the check counts them unchanged;
    they are counted as created once, as before, and only the rest is inserted."""
    run = run_to_work_on(ImportRun, run_id)
    if run is None:
        return "skipped"
    instance_id, module, user_id = run.instance_id, run.module, run.user_id
    created_before = run.created if run.status == "running" else 0
    run.status, run.created = "running", created_before
    db.session.commit()
    with failing_run(ImportRun, run_id):
        with force_locale(babel_name(run.language)):
            checked = check_rows(read_rows(run.filename, run.content), module)
        checked.unchanged -= created_before
        run.total, run.unchanged, run.failed = checked.total, checked.unchanged, checked.failed
        run.errors = checked.errors
        run.processed = created_before + checked.unchanged + checked.failed
        db.session.commit()
        now = utcnow()
        items = PreparationItem.__table__
        events = ItemStateEvent.__table__
        for start in range(0, len(checked.new), CHUNK):
            chunk = checked.new[start : start + CHUNK]
            for values in chunk:
                values |= {"instance_id": instance_id, "state_changed_at": now,
                           "created_at": now, "modified_at": now}  # fmt: skip
            ids = db.session.execute(
                insert(items).returning(items.c.id, items.c.state), chunk
            ).all()
            db.session.execute(
                insert(events),
                [
                    {"instance_id": instance_id, "item_id": item_id, "from_state": None,
                     "to_state": state, "user_id": user_id, "created_at": now}
                    for item_id, state in ids
                ],
            )  # fmt: skip
            # The per-state counters move with every chunk (as add_item does per vehicle).
            groups = Counter((values["division_id"], values["state"]) for values in chunk)
            for (division_id, state), count in sorted(groups.items()):
                _bump(instance_id, module, division_id, state, count)
            bump_counts_version(instance_id)
            run.created += len(chunk)
            run.processed += len(chunk)
            db.session.commit()
        run.status, run.finished_at = "done", utcnow()
        audit.record(
            f"admin:general/import:{run.id}:import",
            user=db.session.get(User, user_id) if user_id else None,
            instance_id=instance_id,
            created=run.created,
            unchanged=run.unchanged,
            failed=run.failed,
            filename=run.filename,
        )
        db.session.commit()
    return run.status


def progress(run: ImportRun) -> dict:
    percent = (
        100 if run.status == "done" else int(run.processed * 100 / run.total) if run.total else 0
    )
    return {
        "status": run.status,
        "total": run.total,
        "processed": run.processed,
        "created": run.created,
        "unchanged": run.unchanged,
        "failed": run.failed,
        "percent": min(100, percent),
    }
