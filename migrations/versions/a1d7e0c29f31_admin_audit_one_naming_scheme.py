"""Admin audit entries under one naming scheme: the entries the hand-written admin screens wrote
under their own names (ranking.season.create, messages.system_message.delete, ...) renamed to
the shared screens' `admin:{path}:{id}:{op}` with the record's name and the values before and
after, so that every record's history page shows them. The old name and details stay in the
entry (legacy_action, legacy) and the downgrade puts them back.

Revision ID: a1d7e0c29f31
Revises: 15e84387b9e4
Create Date: 2026-11-28 03:50:00
"""

import sqlalchemy as sa
from alembic import op

revision = "a1d7e0c29f31"
down_revision = "15e84387b9e4"
branch_labels = None
depends_on = None

audit_log = sa.table(
    "audit_log",
    sa.column("id", sa.Integer),
    sa.column("action", sa.String),
    sa.column("details", sa.JSON),
)

def _module(slug: str):
    return lambda details: f"{details['module']}/{slug}" if details.get("module") else None


def _location(details: dict) -> str | None:
    slug = {"parking": "locations", "key": "keylocations", "delivery": "delivery-locations"}
    kind = slug.get(details.get("kind"))
    return f"{details['module']}/{kind}" if kind and details.get("module") else None


# old action prefix -> (the screen's path, or a function of the details giving it; the key of
# the record's id; the key of its name)
FAMILIES = {
    "preparation.admin.station_group.": (_module("station-groups"), "id", "name"),
    "preparation.admin.station.": (_module("stations"), "id", "name"),
    "preparation.admin.station_package.": (_module("station-packages"), "id", "name"),
    "preparation.admin.state_button.": (_module("state-buttons"), "id", "title"),
    "preparation.admin.location.": (_location, "id", "name"),
    "messages.system_message.": ("global/system-messages", "message_id", "message"),
    "purchase.admin.fields.": ("purchase-analysis/purchase-analyses-dynamic-fields", "id", "id"),
    "purchase.admin.priorities.": ("purchase-analysis/purchase-analyses-priorities", "id", "id"),
    "purchase.admin.calculators.": ("general/calculators", "id", "id"),
    "quicktest.admin.information_group.": ("general/information-groups", "id", "title"),
    "quicktest.admin.information.": ("general/information", "id", "title"),
    "quicktest.admin.storage.": ("general/storages", "id", "title"),
    "quicktest.admin.storage_group.": ("general/storages/groups", "id", "title"),
    "ranking.season.": ("global/ranking/seasons", "season_id", "identifier"),
    "ranking.tier.": ("global/ranking/tiers", "tier_id", "name"),
}
OPS = {"saved": "update", "deleted": "delete"}
PLUMBING = {"id", "module", "kind", "storage_id", "user"}


def _family(action: str):
    for prefix, family in FAMILIES.items():
        if action.startswith(prefix) and "." not in action[len(prefix) :]:
            return prefix, family
    return None, None


def _renamed(action: str, details: dict) -> tuple[str, dict] | None:
    prefix, family = _family(action)
    if prefix is None:
        return None
    path, id_key, name_key = family
    path = path(details) if callable(path) else path
    record_id = details.get(id_key)
    if path is None or record_id is None:
        return None
    op_name = action[len(prefix) :]
    op_name = OPS.get(op_name, op_name)
    values = {k: v for k, v in details.items() if k not in PLUMBING and k != id_key}
    before, after = None, None
    if "changes" in values:
        changes = values.pop("changes") or {}
        before = {k: pair[0] for k, pair in changes.items()}
        after = {k: pair[1] for k, pair in changes.items()}
    else:
        values = values.pop("values", None) or values
        before, after = (values, None) if op_name == "delete" else (None, values)
    new = {
        "screen": path,
        "record_id": record_id,
        "name": str(details.get(name_key) or (values or {}).get(name_key) or record_id)[:200],
        "before": before,
        "after": after,
        "legacy_action": action,
        "legacy": details,
    }
    return f"admin:{path}:{record_id}:{op_name}"[:80], new


def rename_all(bind) -> None:
    prefixes = [audit_log.c.action.like(p + "%") for p in FAMILIES]
    rows = bind.execute(sa.select(audit_log).where(sa.or_(*prefixes))).all()
    for row in rows:
        renamed = _renamed(row.action, row.details or {})
        if renamed is not None:
            action, details = renamed
            bind.execute(
                audit_log.update()
                .where(audit_log.c.id == row.id)
                .values(action=action, details=details)
            )


def restore_all(bind) -> None:
    rows = bind.execute(sa.select(audit_log).where(audit_log.c.action.like("admin:%"))).all()
    for row in rows:
        details = row.details or {}
        if "legacy_action" in details:
            bind.execute(
                audit_log.update()
                .where(audit_log.c.id == row.id)
                .values(action=details["legacy_action"], details=details.get("legacy") or {})
            )


def upgrade():
    rename_all(op.get_bind())


def downgrade():
    restore_all(op.get_bind())
