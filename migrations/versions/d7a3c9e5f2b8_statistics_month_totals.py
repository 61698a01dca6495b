"""Monthly running totals of the statistics page (issue 33): recon_month_total (reconditioning
cost per vehicle and per task, by month, division, brand and model or station) and
flow_month_total (vehicles entering the flow and sold per month and week, stays per state,
task minutes per station), filled from the existing rows in one INSERT ... SELECT a table.

The backfill is the app's own definition of what each vehicle adds to the totals
(app.preparation.totals.rebuild), the same SELECTs every later write keeps them with, so the
two cannot drift apart. Both tables are new (no lock on a growing table); their rows grow with
months, divisions, models and stations, not with the vehicles.

Revision ID: d7a3c9e5f2b8
Revises: 9d3f5a7c2e14
"""

import sqlalchemy as sa
from alembic import op

revision = "d7a3c9e5f2b8"
down_revision = "9d3f5a7c2e14"
branch_labels = None
depends_on = None

RECON_KEY = ("instance_id", "module", "figure", "month", "division_id", "brand", "model",
             "station_id")  # fmt: skip
FLOW_KEY = ("instance_id", "module", "figure", "month", "division_id", "week", "state",
            "station_id", "seller_id")  # fmt: skip


def _table(name: str, *columns) -> None:
    """A monthly total: whose, which figure and month, `columns`, how many rows it sums."""
    op.create_table(
        name,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("module", sa.String(10), nullable=False),
        sa.Column("figure", sa.String(10), nullable=False),
        sa.Column("month", sa.Date, nullable=False),
        sa.Column("division_id", sa.Integer, nullable=False),
        sa.Column("count", sa.Integer, nullable=False),
        *columns,
        sa.Column(
            "instance_id", sa.Integer, sa.ForeignKey("instance.id", ondelete="CASCADE"),
            nullable=False, index=True,
        ),
    )  # fmt: skip


def upgrade():
    _table(
        "recon_month_total",
        sa.Column("brand", sa.String(60), nullable=False),
        sa.Column("model", sa.String(80), nullable=False),
        sa.Column("station_id", sa.Integer, nullable=False),
        sa.Column("estimate", sa.Numeric(16, 2), nullable=False),
        sa.Column("actual", sa.Numeric(16, 2), nullable=False),
        sa.Column("over", sa.Integer, nullable=False),
    )
    op.create_index("ux_recon_month_total", "recon_month_total", list(RECON_KEY), unique=True)
    _table(
        "flow_month_total",
        sa.Column("week", sa.Date, nullable=False),
        sa.Column("state", sa.Integer, nullable=False),
        sa.Column("station_id", sa.Integer, nullable=False),
        sa.Column("seller_id", sa.Integer, nullable=False),
        sa.Column("amount", sa.Float, nullable=False),
        sa.Column("working", sa.Integer, nullable=False),
    )
    op.create_index("ux_flow_month_total", "flow_month_total", list(FLOW_KEY), unique=True)
    # lazy: the totals are defined once, by the SELECTs that keep them (see the docstring)
    from app.preparation.totals import rebuild

    if op.get_bind().dialect.name != "postgresql":
        rebuild(op.get_bind())
        return
    # The new tables' foreign keys lock `instance` against writes until their transaction
    # ends: commit them first, then fill them (a minute at 1M vehicles), each statement on
    # its own. Rows written meanwhile by the code before this release are counted by
    # `flask preparation recount`.
    with op.get_context().autocommit_block():
        rebuild(op.get_bind())
        op.execute("ANALYZE recon_month_total, flow_month_total")


def downgrade():
    op.drop_index("ux_flow_month_total", table_name="flow_month_total")
    op.drop_table("flow_month_total")
    op.drop_index("ux_recon_month_total", table_name="recon_month_total")
    op.drop_table("recon_month_total")
