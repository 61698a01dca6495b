"""Mail: the RQ job that stored a mail (email_message.job_key)

A job run again after it was cut off finds the mail it stored by its key instead of storing
another. Nullable (mails stored by a request, or by a job run inline, have none) and unique:
two runs of one job cannot both store a mail.

Revision ID: f6ae047114b1
Revises: c95894507d20
Create Date: 2026-11-27 07:34:55.242363

"""
from alembic import op
import sqlalchemy as sa

# revision identifiers, used by Alembic.
revision = 'f6ae047114b1'
down_revision = 'c95894507d20'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('email_message', schema=None) as batch_op:
        batch_op.add_column(sa.Column('job_key', sa.String(length=64), nullable=True))
        batch_op.create_unique_constraint(batch_op.f('uq_email_message_job_key'), ['job_key'])


def downgrade():
    with op.batch_alter_table('email_message', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_email_message_job_key'), type_='unique')
        batch_op.drop_column('job_key')
