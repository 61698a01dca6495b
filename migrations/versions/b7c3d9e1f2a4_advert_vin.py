"""Adverts carry the vehicle's VIN (filled from the vehicle when sold from its page, issue 37).

Revision ID: b7c3d9e1f2a4
Revises: b7c1d2e3f4a5
"""

import sqlalchemy as sa
from alembic import op

revision = "b7c3d9e1f2a4"
down_revision = "b7c1d2e3f4a5"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("advert") as batch:
        batch.add_column(sa.Column("vin", sa.String(length=17), nullable=True))


def downgrade():
    with op.batch_alter_table("advert") as batch:
        batch.drop_column("vin")
