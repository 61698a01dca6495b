"""The scheduled jobs that belong to no feature of their own."""

from collections.abc import Callable
from datetime import timedelta
from typing import TypeVar

from sqlalchemy import delete, or_, select

from app.auth.models import PasswordResetToken
from app.core.models import Instance, utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.preparation import service_due
from app.preparation.tasks import sync_overdue_warnings

T = TypeVar("T")

# A used or expired reset link is kept this long (for the audit of a dispute), then purged.
RESET_TOKEN_KEEP = timedelta(days=1)


def _each_instance(work: Callable[[], T]) -> dict[int, T]:
    """Run `work` in every active instance, each in its own unit of work; {instance id: result}."""
    result = {}
    ids = db.session.scalars(select(Instance.id).where(Instance.active.is_(True))).all()
    for instance_id in ids:
        activate(instance_id)
        try:
            result[instance_id] = work()
            db.session.commit()
        finally:
            activate(None)
    return result


def refresh_overdue_warnings() -> dict[int, tuple[int, int]]:
    """Set or clear every item's overdue warning, instance by instance (the logic of
    `flask --app wsgi preparation sync-warnings`); {instance id: (set, cleared)}."""
    return _each_instance(sync_overdue_warnings)


def evaluate_service_due() -> dict[int, tuple[int, int]]:
    """Mark the vehicles due for a service and give them their check-up tasks, instance by
    instance (app/preparation/service_due.py); {instance id: (due vehicles, tasks added)}."""
    return _each_instance(service_due.evaluate_instance)


def purge_reset_tokens() -> int:
    """Delete the reset links that expired or were used more than RESET_TOKEN_KEEP ago."""
    cutoff = utcnow() - RESET_TOKEN_KEEP
    return db.session.execute(
        delete(PasswordResetToken).where(
            or_(PasswordResetToken.expires_at < cutoff, PasswordResetToken.used_at < cutoff)
        )
    ).rowcount
