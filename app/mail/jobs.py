"""The mail's scheduled job: delivery queued again for mails whose delivery job was never sent
or met an SMTP error that may pass."""

import logging
from datetime import timedelta

from flask import current_app
from sqlalchemy import select

from app.core import jobs
from app.core.models import utcnow
from app.extensions import db
from app.mail.models import EmailMessage

log = logging.getLogger(__name__)

# At most this many mails a run, oldest first: a backlog (say a lost Redis's worth) is worked
# off over a few runs instead of one huge run.
RESEND_PER_RUN = 100
# A mail is left alone this long at least, however short its job's time limit.
RESEND_FLOOR = timedelta(minutes=15)


def resend_after() -> timedelta:
    """How long a mail may stay queued before the sweep queues its delivery again: past the
    longest normal delivery with one retry (its job runs its time limit, the worker dies, the
    heartbeat lapses the grace later, maintenance queues it again, and the retry runs its time
    limit: 12 minutes with the defaults), and at least RESEND_FLOOR."""
    config = current_app.config
    timeout = int(config["MAIL_JOB_TIMEOUT_SECONDS"])
    window = 2 * timeout + int(config["MAIL_JOB_GRACE_SECONDS"])
    window += int(config["JOB_MAINTENANCE_SECONDS"])
    return max(RESEND_FLOOR, timedelta(seconds=window))


def resend_queued(limit: int = RESEND_PER_RUN) -> int:
    """Queue the delivery again of the queued mails whose retry_at has passed, longest due
    first, at most `limit`; return how many. A mail is due resend_after() after it was stored,
    its delivery job never run to its end: the unit of work that stored it was cut off between
    its commit and its dispatch (a scheduled job, a killed web process), Redis lost the job
    (restarted without its append-only file), or an inline delivery broke off (a database
    error). Or it is due after the backoff that an SMTP error which may pass set (the server
    down or busy: app.mail.services.deliver). A mail whose first job is merely slow is sent once
    all the same: deliver locks the row and skips a mail already sent."""
    due = (
        select(EmailMessage.id)
        .where(EmailMessage.status == "queued", EmailMessage.retry_at < utcnow())
        .order_by(EmailMessage.retry_at, EmailMessage.id)
        .limit(limit)
        .execution_options(all_instances=True)  # system work: the mails of every instance
    )
    ids = db.session.scalars(due).all()
    for mail_id in ids:
        jobs.enqueue("app.mail.services:deliver", mail_id)
    log.info("mail resend: %d mails due, their delivery queued again", len(ids))
    return len(ids)
