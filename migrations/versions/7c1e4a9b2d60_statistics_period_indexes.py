"""Statistics by period read the period's rows (issue 34): state events by time
(ix_state_event_instance_created), tasks by when they were finished
(ix_task_instance_finished) and cost lines by phase and time (ix_recon_line_created), so that
the preparation statistics, the reconditioning statistics and the dashboard's period widgets
no longer read every event, task and cost line (sequential scans on 100k vehicles). Built
concurrently on PostgreSQL: no lock on the tables while they build; nothing is rewritten.

Revision ID: 7c1e4a9b2d60
Revises: e6a1c3f9d2b8
Create Date: 2026-12-06 07:00:00

"""

from alembic import op

revision = "7c1e4a9b2d60"
down_revision = "e6a1c3f9d2b8"
branch_labels = None
depends_on = None

INDEXES = (
    ("ix_state_event_instance_created", "item_state_event", ["instance_id", "created_at"]),
    ("ix_task_instance_finished", "item_station_task", ["instance_id", "finished_at"]),
    ("ix_recon_line_created", "recon_line", ["instance_id", "phase", "created_at"]),
)


def upgrade():
    if op.get_bind().dialect.name == "postgresql":
        with op.get_context().autocommit_block():
            for name, table, columns in INDEXES:
                op.create_index(
                    name, table, columns, postgresql_concurrently=True, if_not_exists=True
                )
    else:
        for name, table, columns in INDEXES:
            op.create_index(name, table, columns)


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        with op.get_context().autocommit_block():
            for name, table, _columns in INDEXES:
                op.drop_index(name, table, postgresql_concurrently=True, if_exists=True)
    else:
        for name, table, _columns in INDEXES:
            op.drop_index(name, table)
