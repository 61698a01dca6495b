"""item table filters: indexes and a generated search text with a trigram index

Revision ID: 500b2e591c94
Revises: 42ee4a6ff61d
Create Date: 2026-11-22 01:18:12.863273

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "500b2e591c94"
down_revision = "42ee4a6ff61d"
branch_labels = None
depends_on = None


def upgrade():
    if op.get_bind().dialect.name == "postgresql":
        # The trigram operator class of the search index. A trusted extension since
        # PostgreSQL 13: the database owner may create it. Left in place on downgrade.
        op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    # SQLite adds a stored generated column only by rebuilding the table.
    sqlite = op.get_bind().dialect.name == "sqlite"
    with op.batch_alter_table(
        "preparation_item", recreate="always" if sqlite else "auto"
    ) as batch_op:
        batch_op.add_column(
            sa.Column(
                "search_text",
                sa.String(length=300),
                sa.Computed(
                    "lower(regno || ' ' || coalesce(vin, '') || ' ' || brand || ' ' || model || ' ' || coalesce(model_series, ''))",
                    persisted=True,
                ),
                nullable=True,
            )
        )
        batch_op.create_index(
            "ix_item_module_brand_model", ["instance_id", "module", "brand", "model"], unique=False
        )
        batch_op.create_index(
            "ix_item_module_changed", ["instance_id", "module", "state_changed_at"], unique=False
        )
        batch_op.create_index(
            "ix_item_module_color", ["instance_id", "module", "color"], unique=False
        )
        batch_op.create_index(
            "ix_item_module_fuel", ["instance_id", "module", "fuel_type"], unique=False
        )
        batch_op.create_index(
            "ix_item_module_mileage", ["instance_id", "module", "mileage"], unique=False
        )
        batch_op.create_index(
            "ix_item_module_price", ["instance_id", "module", "sales_price"], unique=False
        )
        batch_op.create_index(
            "ix_item_module_state_changed",
            ["instance_id", "module", "state", "state_changed_at"],
            unique=False,
        )
        batch_op.create_index(
            "ix_item_module_warning", ["instance_id", "module", "warning"], unique=False
        )
        batch_op.create_index(
            "ix_item_module_year", ["instance_id", "module", "model_year"], unique=False
        )
        batch_op.create_index(
            "ix_item_search_text",
            ["search_text"],
            unique=False,
            postgresql_using="gin",
            postgresql_ops={"search_text": "gin_trgm_ops"},
        )


def downgrade():
    with op.batch_alter_table("preparation_item", schema=None) as batch_op:
        batch_op.drop_index(
            "ix_item_search_text",
            postgresql_using="gin",
            postgresql_ops={"search_text": "gin_trgm_ops"},
        )
        batch_op.drop_index("ix_item_module_year")
        batch_op.drop_index("ix_item_module_warning")
        batch_op.drop_index("ix_item_module_state_changed")
        batch_op.drop_index("ix_item_module_price")
        batch_op.drop_index("ix_item_module_mileage")
        batch_op.drop_index("ix_item_module_fuel")
        batch_op.drop_index("ix_item_module_color")
        batch_op.drop_index("ix_item_module_changed")
        batch_op.drop_index("ix_item_module_brand_model")
        batch_op.drop_column("search_text")
