"""The admin screens' audit entries: one naming scheme, `admin:{path}:{id}:{op}`, with the
record's name and the values before and after. Entries written under older names were renamed
by the migration admin_audit_one_naming_scheme, so every record's history reads them."""

from datetime import date, datetime
from decimal import Decimal

from flask_babel import lazy_gettext as _l
from sqlalchemy import inspect, select

from app.core import audit
from app.core.audit import AuditLog
from app.extensions import db

OPS = {
    "create": _l("Created"),
    "update": _l("Changed"),
    "delete": _l("Deleted or deactivated"),
    "invite": _l("Invitation sent"),
}
SECRET_COLUMNS = {"password_hash", "token_hash", "content", "session_nonce"}


def plain(value):
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes):
        return None
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def snapshot(screen, row) -> dict:
    if screen.snapshot is not None:
        return screen.snapshot(row)
    mapper = inspect(type(row))
    return {
        c.key: plain(getattr(row, c.key))
        for c in mapper.column_attrs
        if c.key not in SECRET_COLUMNS and c.key not in ("search_text",)
    }


def action_name(screen, row_id: int, op: str) -> str:
    return f"admin:{screen.path}:{row_id}:{op}"[:80]


def record_change(screen, row, op: str, before: dict | None, after: dict | None) -> None:
    """One audit row: who (and on whose behalf), when, what, the values before and after."""
    changed = None
    if before is not None and after is not None:
        changed = sorted(k for k in after if before.get(k) != after.get(k))
        before = {k: before.get(k) for k in changed}
        after = {k: after.get(k) for k in changed}
    audit.record(
        action_name(screen, row.id, op),
        division_id=screen.division_of(row),
        screen=screen.path,
        record_id=row.id,
        name=str(screen.label(row))[:200],
        before=before,
        after=after,
    )


def history(screen, row_id: int) -> list[AuditLog]:
    prefix = f"admin:{screen.path}:{row_id}:"
    stmt = (
        select(AuditLog)
        .where(AuditLog.action.like(prefix.replace("_", r"\_") + "%", escape="\\"))
        .order_by(AuditLog.created_at.desc(), AuditLog.id.desc())
        .limit(200)
    )
    return list(db.session.scalars(stmt))
