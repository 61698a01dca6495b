"""Module settings of one division or of the whole instance, and who may change which.

State buttons, stations, station groups, station packages and the module's rules, rule
interaction and add wizards are either the instance's (`division_id` None, shared by every
division) or one division's. ROLE_ADMIN changes all of them; a division administrator only the
rows of their own divisions (the divisions they see): the instance's rows are read-only for
them, and every address that would change one answers 403 (docs/decisions.md)."""

from flask_babel import lazy_gettext as _l
from sqlalchemy import ForeignKey, select
from sqlalchemy.orm import Mapped, mapped_column

from app.core import roles as R
from app.core.models import Division
from app.extensions import db

WHOLE_INSTANCE = _l("The whole instance")


class DivisionSetting:
    """A setting row of one division, or (None) of the whole instance."""

    division_id: Mapped[int | None] = mapped_column(
        ForeignKey("division.id", ondelete="CASCADE"), index=True
    )


def instance_divisions() -> list[Division]:
    """The active instance's divisions by name: the owners a setting row may have."""
    return list(db.session.scalars(select(Division).order_by(Division.name)))


def own_division_ids(v) -> set[int]:
    return {d.id for d in v.visible_divisions}


def may_change(v, division_id: int | None) -> bool:
    """Whether the viewer may change (or delete) a setting row of this division (None: the
    instance's)."""
    if v.has(R.ROLE_ADMIN):
        return True
    return division_id is not None and v.is_division_admin and division_id in own_division_ids(v)


def owner_choices(v, divisions) -> list[tuple[int | None, str]]:
    """Whose a new or changed row may be: the whole instance (ROLE_ADMIN only) and the
    divisions the viewer may change, from `divisions` (the instance's)."""
    whole = [(None, str(WHOLE_INSTANCE))] if v.has(R.ROLE_ADMIN) else []
    return whole + [(d.id, d.name) for d in divisions if may_change(v, d.id)]


def division_label(divisions, division_id: int | None) -> str:
    """The name of a row's division (from `divisions`), or "The whole instance"."""
    if division_id is None:
        return str(WHOLE_INSTANCE)
    return next((d.name for d in divisions if d.id == division_id), "–")
